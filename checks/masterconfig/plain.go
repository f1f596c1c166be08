package masterconfig

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
)

// The sweep generator loads master configs with PyYAML, whose YAML 1.1
// reads `yes`/`no`/`on`/`off` as booleans and `2_063_837` as an integer.
// Plain mirrors that, so a value means here what it means to the generator.

// plainBudget bounds the nodes one key's values may expand to (aliases
// included), so an alias bomb costs bounded work; past it values are nil.
const plainBudget = 20000

// plainMap converts a mapping node's entries and records each key's line
// relative to base.
func plainMap(m *yaml.Node, base int) (map[string]any, map[string]int) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	budget := plainBudget
	out := make(map[string]any, len(m.Content)/2)
	lines := make(map[string]int, len(m.Content)/2)
	for _, p := range yamlx.Pairs(m) {
		out[p.Key.Value] = plain(p.Value, &budget, 0)
		lines[p.Key.Value] = p.Key.Line - base
	}
	return out, lines
}

// Plain converts a YAML node to the values the generator sees: maps,
// lists, strings, ints, floats, bools and nil.
func Plain(n *yaml.Node) any {
	budget := plainBudget
	return plain(n, &budget, 0)
}

func plain(n *yaml.Node, budget *int, depth int) any {
	if n == nil || *budget <= 0 || depth > 64 {
		return nil
	}
	*budget--
	switch n.Kind {
	case yaml.AliasNode:
		return plain(n.Alias, budget, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return plain(n.Content[0], budget, depth+1)
		}
		return nil
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = plain(n.Content[i+1], budget, depth+1)
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			l = append(l, plain(c, budget, depth+1))
		}
		return l
	}
	return plainScalar(n)
}

// PlainScalar converts a scalar node as the generator's YAML loader does.
func PlainScalar(n *yaml.Node) any { return plainScalar(n) }

func plainScalar(n *yaml.Node) any {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Value
	}
	v := n.Value
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true
	case "false", "no", "off":
		return false
	case "", "~", "null":
		return nil
	}
	if i, ok := yamlx.DecimalInt(v); ok {
		return i
	}
	if n.Tag == "!!float" {
		if f, err := strconv.ParseFloat(strings.ReplaceAll(v, "_", ""), 64); err == nil {
			return f
		}
	}
	return v
}
