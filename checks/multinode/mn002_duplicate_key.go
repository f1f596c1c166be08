package multinode

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

// MN002 reports a key a recipe sets twice in one mapping.
var MN002 = &checks.Rule{
	ID:       "MN002",
	Severity: checks.Warning,
	Title:    "Recipe sets a key twice in one mapping, to different values",
	Doc: "YAML forbids a key twice in one mapping, and the loaders disagree on what to do with one: srtctl's Python " +
		"loader keeps the last value without a word, stricter loaders reject the file. Either way one of the two " +
		"settings is dead, and which one runs depends on the reader — typically an override appended below a " +
		"copied block (`moe-runner-backend` set again at the end of `decode:`). This rule reports a key the PR " +
		"defines a second time, with another value, in one mapping of a multi-node recipe; keep one definition with " +
		"the value meant to run. A repeat of the same value is left alone: nothing that runs depends on it.",
	Run: runMN002,
}

func runMN002(p *checks.Pass) error {
	for _, fc := range changedRecipes(p) {
		head, err := p.Change.Head.ReadFile(p.Ctx, fc.Path)
		if err != nil || len(head) > maxRecipeBytes {
			continue // unreadable or too big: other rules and the budget say so
		}
		doc, err := yamlx.Parse(head)
		if err != nil {
			continue
		}
		for _, d := range conflicting(doc) {
			if !fc.IsAdded(d.Line) {
				continue // a duplicate the PR did not write
			}
			p.Report(checks.Finding{
				Path:  fc.Path,
				Line:  d.Line,
				Title: fmt.Sprintf("Recipe sets %s twice in one mapping", prose.Code(d.Key)),
				Body: fmt.Sprintf("Line %d sets %s again, to another value, in the mapping that sets it at line %d. srtctl's loader keeps the last "+
					"value silently (a strict YAML loader rejects the file), so line %d's value never runs. Keep one "+
					"definition, with the value meant to run.",
					d.Line, prose.Code(d.Key), d.FirstLine, d.FirstLine),
				Related: []checks.Location{{Path: fc.Path, Line: d.FirstLine, Note: "the first definition"}},
				// The distance to the first definition, not the line: the same
				// key doubled in two mappings is two findings.
				Key: "duplicate-key:" + strings.ToLower(d.Key) + ":" + strconv.Itoa(d.Line-d.FirstLine),
			})
		}
	}
	return nil
}

// conflicting finds the keys defined twice in one mapping with different
// values: a repeat of the same value changes nothing that runs.
func conflicting(doc *yaml.Node) []yamlx.Duplicate {
	var out []yamlx.Duplicate
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > maxDepth || n.Kind == yaml.AliasNode {
			return
		}
		if n.Kind == yaml.MappingNode {
			first := map[string]int{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
					continue
				}
				j, ok := first[k.Value]
				if !ok {
					first[k.Value] = i
					continue
				}
				if !yamlx.Equal(n.Content[j+1], n.Content[i+1]) {
					out = append(out, yamlx.Duplicate{Key: k.Value, Line: k.Line, FirstLine: n.Content[j].Line})
				}
			}
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	return out
}

// maxDepth bounds the walk of a hostile recipe's nesting.
const maxDepth = 200
