// Package yamlx holds the yaml.v3 node helpers the changelog and
// master-config checks share: parsing with line-numbered errors,
// duplicate-key detection (yaml.v3 only reports duplicates when decoding
// into Go values, not into nodes), mapping lookups, the canonical form
// that tells whether two nodes hold the same data (canon.go), and the
// split of a config file into its top-level keys (chunks.go).
package yamlx

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// SyntaxError is a YAML parse error with the parser's line (1-based; 0 when
// the parser gave none).
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

var lineRe = regexp.MustCompile(`line (\d+): `)

// Parse parses one YAML document into its document node. An empty input
// yields a document node with no content and no error.
func Parse(b []byte) (doc *yaml.Node, err error) {
	defer func() {
		// yaml.v3 has panicked on hostile input in the past; a finding is
		// better than a crash.
		if r := recover(); r != nil {
			doc, err = nil, &SyntaxError{Msg: fmt.Sprintf("YAML parser failed: %v", r)}
		}
	}()
	var n yaml.Node
	if err := yaml.Unmarshal(b, &n); err != nil {
		return nil, toSyntaxError(err)
	}
	if n.Kind == 0 {
		n.Kind = yaml.DocumentNode
	}
	return &n, nil
}

func toSyntaxError(err error) *SyntaxError {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	se := &SyntaxError{Msg: msg}
	if m := lineRe.FindStringSubmatchIndex(msg); m != nil {
		se.Line, _ = strconv.Atoi(msg[m[2]:m[3]])
		se.Msg = strings.TrimSpace(msg[:m[0]] + msg[m[1]:])
		// yaml.v3 prints scanner errors' lines 1-based but parser errors'
		// lines 0-based (it only adds one for the scanner).
		if isParserProblem(se.Msg) {
			se.Line++
		}
	} else if errors.As(err, &te) {
		se.Line = 0 // a decoding error with no position
	} else {
		// Both marks on the first line: yaml.v3 omits "line 0".
		se.Line = 1
	}
	return se
}

// parserProblems are the messages of libyaml's parser (as opposed to its
// scanner), whose positions yaml.v3 reports 0-based.
var parserProblems = []string{
	"did not find expected ',' or",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %",
	"found incompatible YAML document",
	"found undefined tag handle",
}

func isParserProblem(msg string) bool {
	for _, p := range parserProblems {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// Root returns the document's top-level node (nil for an empty document).
func Root(doc *yaml.Node) *yaml.Node {
	if doc == nil {
		return nil
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil
		}
		return doc.Content[0]
	}
	return doc
}

// Duplicate is a mapping key defined twice in one mapping.
type Duplicate struct {
	Key       string
	Line      int // the repeated definition
	FirstLine int // the first definition
}

// DuplicateKeys finds repeated keys in every mapping under n, in document
// order.
func DuplicateKeys(n *yaml.Node) []Duplicate {
	var out []Duplicate
	var walk func(*yaml.Node, int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 10000 {
			return
		}
		if n.Kind == yaml.MappingNode {
			seen := map[string]int{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind == yaml.ScalarNode && k.Tag != "!!merge" {
					if first, ok := seen[k.Value]; ok {
						out = append(out, Duplicate{Key: k.Value, Line: k.Line, FirstLine: first})
					} else {
						seen[k.Value] = k.Line
					}
				}
			}
		}
		if n.Kind == yaml.AliasNode {
			return // aliases point at nodes walked where they are defined
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return out
}

// Pair is one key/value of a mapping.
type Pair struct {
	Key, Value *yaml.Node
}

// Pairs returns the entries of a mapping node (nil for anything else).
func Pairs(m *yaml.Node) []Pair {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]Pair, 0, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		out = append(out, Pair{m.Content[i], m.Content[i+1]})
	}
	return out
}

// Get returns the value of key in mapping m, or nil. With duplicate keys
// the last one wins, as in yaml.v3 decoding.
func Get(m *yaml.Node, key string) *yaml.Node {
	if i := lastKey(m, key); i >= 0 {
		return m.Content[i+1]
	}
	return nil
}

// KeyNode returns the key node of key in mapping m, or nil.
func KeyNode(m *yaml.Node, key string) *yaml.Node {
	if i := lastKey(m, key); i >= 0 {
		return m.Content[i]
	}
	return nil
}

// lastKey returns the index in m.Content of the last key named key, or -1.
// Lookups run for every setting of every row of a large file, so they
// scan Content directly instead of allocating Pairs.
func lastKey(m *yaml.Node, key string) int {
	if m == nil || m.Kind != yaml.MappingNode {
		return -1
	}
	for i := len(m.Content)&^1 - 2; i >= 0; i -= 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// Scalar returns the value of a scalar node ("" otherwise).
func Scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// Strings returns the scalar items of a sequence node, or the single
// scalar itself.
func Strings(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for _, c := range n.Content {
		if c.Kind == yaml.ScalarNode {
			out = append(out, c.Value)
		}
	}
	return out
}

// EndLine returns the last line n spans (block scalars count their lines).
func EndLine(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	end := n.Line
	if n.Kind == yaml.ScalarNode && (n.Style&(yaml.LiteralStyle|yaml.FoldedStyle)) != 0 {
		end = n.Line + strings.Count(strings.TrimRight(n.Value, "\n"), "\n") + 1
	}
	for _, c := range n.Content {
		if e := EndLine(c); e > end {
			end = e
		}
	}
	return end
}

// DecimalInt reads a YAML 1.1 decimal integer, underscores allowed
// between digits ("3_095_781"). Anything else, a unit suffix included
// ("2TiB"), is no integer.
func DecimalInt(s string) (int, bool) {
	t := strings.ReplaceAll(s, "_", "")
	if t == "" || strings.HasPrefix(s, "_") {
		return 0, false
	}
	i, err := strconv.Atoi(t)
	if err != nil {
		return 0, false
	}
	return i, true
}
