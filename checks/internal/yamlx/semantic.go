package yamlx

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// semanticBudget bounds the work Semantic does on one node, so alias
// expansion ("billion laughs") cannot turn a small file into a huge string.
const semanticBudget = 1 << 20

// Semantic renders the value of n in a form where two nodes compare equal
// exactly when they hold the same typed data: scalars are resolved to their tag's
// value (so `8`, `0x8` and `+8` agree, `"8"` does not), aliases are followed,
// merge keys (`<<`) are expanded, mapping order, style and comments are
// ignored, and the last of duplicate keys wins (as in yaml.v3 decoding).
// Unlike Canonical, scalars keep their type (`tp: 8` and `tp: "8"` differ,
// as they do for a program loading the file), and the work is bounded. ok
// is false when the node is too large to render within the budget.
func Semantic(n *yaml.Node) (s string, ok bool) {
	c := canonicalizer{budget: semanticBudget}
	var b strings.Builder
	c.write(&b, n, 0)
	return b.String(), !c.over
}

// Equal reports whether a and b hold the same data (see Semantic). Nodes
// too large to compare are reported as different, the safe answer for a
// rule asking "did this change?".
func Equal(a, b *yaml.Node) bool {
	ca, okA := Semantic(a)
	cb, okB := Semantic(b)
	return okA && okB && ca == cb
}

type canonicalizer struct {
	budget int
	over   bool
}

func (c *canonicalizer) write(b *strings.Builder, n *yaml.Node, depth int) {
	c.budget--
	if c.budget < 0 || depth > 1000 {
		c.over = true
		return
	}
	n = deref(n)
	if n == nil {
		b.WriteString("~")
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		b.WriteString(canonScalar(n))
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			c.write(b, item, depth+1)
		}
		b.WriteByte(']')
	case yaml.MappingNode:
		vals := map[string]*yaml.Node{}
		c.collect(n, vals, depth, map[*yaml.Node]bool{})
		keys := make([]string, 0, len(vals))
		for k := range vals {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k)
			b.WriteByte(':')
			c.write(b, vals[k], depth+1)
		}
		b.WriteByte('}')
	default:
		b.WriteString("?")
	}
}

// collect gathers a mapping's entries into vals, merged mappings first so
// that explicit keys override them, as the YAML merge-key spec says.
func (c *canonicalizer) collect(m *yaml.Node, vals map[string]*yaml.Node, depth int, seen map[*yaml.Node]bool) {
	if seen[m] || depth > 1000 {
		return
	}
	seen[m] = true
	var merges []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, m.Content[i+1])
		}
	}
	for _, v := range merges {
		v = deref(v)
		if v == nil {
			continue
		}
		var srcs []*yaml.Node
		if v.Kind == yaml.SequenceNode {
			// Earlier mappings in a merge list take precedence.
			for i := len(v.Content) - 1; i >= 0; i-- {
				srcs = append(srcs, deref(v.Content[i]))
			}
		} else {
			srcs = []*yaml.Node{v}
		}
		for _, s := range srcs {
			if s != nil && s.Kind == yaml.MappingNode {
				c.collect(s, vals, depth+1, seen)
			}
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			continue
		}
		var kb strings.Builder
		c.write(&kb, k, depth+1)
		vals[kb.String()] = m.Content[i+1]
	}
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 100; i++ {
		switch n.Kind {
		case yaml.AliasNode:
			n = n.Alias
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

func canonScalar(n *yaml.Node) string {
	tag := n.ShortTag()
	switch tag {
	case "!!str":
		return "s" + strconv.Quote(n.Value)
	case "!!null":
		return "~"
	case "!!bool":
		var v bool
		if n.Decode(&v) == nil {
			return "b" + strconv.FormatBool(v)
		}
	case "!!int":
		var v int64
		if n.Decode(&v) == nil {
			return "i" + strconv.FormatInt(v, 10)
		}
		var u uint64
		if n.Decode(&u) == nil {
			return "i" + strconv.FormatUint(u, 10)
		}
	case "!!float":
		var v float64
		if n.Decode(&v) == nil {
			if math.IsNaN(v) {
				return "fNaN"
			}
			return "f" + strconv.FormatFloat(v, 'g', -1, 64)
		}
	case "!!timestamp":
		var v time.Time
		if n.Decode(&v) == nil {
			return "t" + v.UTC().Format(time.RFC3339Nano)
		}
	}
	return tag + strconv.Quote(n.Value)
}
