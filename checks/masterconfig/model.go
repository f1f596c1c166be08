package masterconfig

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
)

// File is one parsed master config. A file that does not parse, has
// duplicate keys or is not a mapping carries the problem instead of (or
// besides) its keys; the rules that judge content skip such a file.
type File struct {
	// Err is the parser's error; Keys is empty when it is set.
	Err *yamlx.SyntaxError
	// Duplicates are mapping keys defined twice, anywhere in the file.
	Duplicates []yamlx.Duplicate
	// NotMapping is set when the document's top level is not a mapping;
	// RootLine is where that top level starts.
	NotMapping bool
	RootLine   int
	// Keys are the config keys in file order.
	Keys  []*Key
	index map[string]*Key
}

// Broken reports whether the file cannot be judged beyond its YAML errors.
func (f *File) Broken() bool {
	return f == nil || f.Err != nil || len(f.Duplicates) > 0 || f.NotMapping
}

// Key returns the config key named name (the last definition wins, as in
// the sweep generator's YAML loader), or nil.
func (f *File) Key(name string) *Key {
	if f == nil {
		return nil
	}
	return f.index[name]
}

// KeyAt returns the config key whose span holds line, or nil.
func (f *File) KeyAt(line int) *Key {
	if f == nil {
		return nil
	}
	for _, k := range f.Keys {
		if line >= k.Line && line <= k.EndLine {
			return k
		}
	}
	return nil
}

// Field is a scalar setting and the line it sits on (0 when absent).
type Field struct {
	Value string
	Line  int
}

// Key is one config key: a recipe and its sweep.
type Key struct {
	Name          string
	Line, EndLine int
	// Malformed is set when the key's value is not a mapping.
	Malformed bool

	Image, Model, ModelPrefix, Runner, Precision, Framework Field
	Multinode, Disagg                                       bool
	// ScenariosLine is the line of `scenarios:` (0 when absent).
	ScenariosLine int
	Scenarios     []*Scenario
	// Header digests every setting except scenarios (yamlx.Hash), to tell
	// a reformatted header from a changed one.
	Header uint64
}

// Scenario kinds.
const (
	FixedSeqLen   = "fixed-seq-len"
	AgenticCoding = "agentic-coding"
)

// Scenario is one block of a scenario list: a fixed-seq-len block (isl,
// osl, search-space) or an agentic-coding block (search-space plus
// settings such as dram-utilization).
type Scenario struct {
	Kind          string
	ISL, OSL      int
	Line, EndLine int
	Rows          []*Row
	// Settings digests the block's settings other than its rows (isl,
	// osl, dram-utilization, ...; yamlx.Hash), so a block that only lost
	// rows is not a changed block.
	Settings uint64
}

// ID identifies the scenario a block measures: rows of blocks with equal
// IDs are comparable between base and head.
func (s *Scenario) ID() string {
	if s.Kind == FixedSeqLen {
		return s.Kind + ":" + itoa(s.ISL) + "/" + itoa(s.OSL)
	}
	return s.Kind
}

// Row is one search-space row.
type Row struct {
	Line, EndLine int
	TP, EP        string
	DPAttn        string
	SpecDecoding  string
	KVOffloading  string
	KVBackend     string
	Router        string
	// Conc is the expanded concurrency list: conc-list as written, or
	// conc-start doubled up to conc-end. ConcProblem says why a range gave
	// no points (start ≤ 0, end < start, a non-integer).
	Conc        []int
	ConcProblem string
	// Prefill and Decode are the worker pools of a multinode row.
	Prefill, Decode *Worker
	// Hash digests the row's meaning (yamlx.Hash): equal for a moved or
	// reformatted row.
	Hash uint64
}

// Worker is a prefill or decode pool of a multinode row.
type Worker struct {
	NumWorker, TP, EP, DPAttn string
}

// maxConcPoints caps a conc-start/conc-end expansion. Doubling reaches any
// int64 in 63 steps, so this only matters for ranges no sweep would use.
const maxConcPoints = 64

// ExpandConc expands a conc-start/conc-end range the way the sweep
// generator does: start, then doubling, capped at end, end included.
func ExpandConc(start, end int) ([]int, string) {
	switch {
	case start <= 0:
		return nil, "conc-start must be positive"
	case end < start:
		return nil, "conc-end is below conc-start"
	}
	var out []int
	for c := start; c < end && len(out) < maxConcPoints-1; c *= 2 {
		out = append(out, c)
		if c > end/2 {
			break // the next doubling passes end (and could overflow)
		}
	}
	return append(out, end), ""
}

// ParseMasterConfig parses a master config. It never fails: YAML problems
// are recorded in the returned file (the error result exists to fit
// checks.Parsed and is always nil).
func ParseMasterConfig(b []byte) (*File, error) {
	f := &File{index: map[string]*Key{}}
	doc, err := yamlx.Parse(b)
	if err != nil {
		se, ok := err.(*yamlx.SyntaxError)
		if !ok {
			se = &yamlx.SyntaxError{Msg: err.Error()}
		}
		f.Err = se
		return f, nil
	}
	root := yamlx.Root(doc)
	if root == nil {
		return f, nil
	}
	if root.Kind != yaml.MappingNode {
		f.NotMapping, f.RootLine = true, root.Line
		return f, nil
	}
	f.Duplicates = yamlx.DuplicateKeys(root)
	for _, p := range yamlx.Pairs(root) {
		k := parseKey(p)
		f.Keys = append(f.Keys, k)
		f.index[k.Name] = k
	}
	return f, nil
}

func parseKey(p yamlx.Pair) *Key {
	k := &Key{Name: p.Key.Value, Line: p.Key.Line, EndLine: yamlx.EndLine(p.Value)}
	if k.EndLine < k.Line {
		k.EndLine = k.Line
	}
	m := p.Value
	if m.Kind != yaml.MappingNode {
		k.Malformed = true
		return k
	}
	field := func(name string) Field {
		for _, q := range yamlx.Pairs(m) {
			if q.Key.Value == name && q.Value.Kind == yaml.ScalarNode {
				return Field{Value: strings.TrimSpace(q.Value.Value), Line: q.Value.Line}
			}
		}
		return Field{}
	}
	k.Image, k.Model, k.ModelPrefix = field("image"), field("model"), field("model-prefix")
	k.Runner, k.Precision, k.Framework = field("runner"), field("precision"), field("framework")
	k.Multinode = isTrue(yamlx.Get(m, "multinode"))
	k.Disagg = isTrue(yamlx.Get(m, "disagg"))

	header := &yaml.Node{Kind: yaml.MappingNode}
	for _, q := range yamlx.Pairs(m) {
		if q.Key.Value == "scenarios" {
			k.ScenariosLine = q.Key.Line
			k.Scenarios = append(k.Scenarios, parseScenarios(q.Value)...)
			continue
		}
		header.Content = append(header.Content, q.Key, q.Value)
	}
	k.Header = yamlx.Hash(header)
	return k
}

func parseScenarios(n *yaml.Node) []*Scenario {
	var out []*Scenario
	for _, p := range yamlx.Pairs(n) {
		kind := p.Key.Value
		blocks := []*yaml.Node{p.Value}
		if p.Value.Kind == yaml.SequenceNode {
			blocks = p.Value.Content
		}
		for _, b := range blocks {
			if b.Kind != yaml.MappingNode {
				continue
			}
			s := &Scenario{Kind: kind, Line: b.Line, EndLine: yamlx.EndLine(b)}
			settings := &yaml.Node{Kind: yaml.MappingNode}
			for _, q := range yamlx.Pairs(b) {
				if q.Key.Value != "search-space" {
					settings.Content = append(settings.Content, q.Key, q.Value)
				}
			}
			s.Settings = yamlx.Hash(settings)
			s.ISL, _ = yamlx.Int(yamlx.Get(b, "isl"))
			s.OSL, _ = yamlx.Int(yamlx.Get(b, "osl"))
			if ss := yamlx.Get(b, "search-space"); ss != nil && ss.Kind == yaml.SequenceNode {
				for _, r := range ss.Content {
					if r.Kind == yaml.MappingNode {
						s.Rows = append(s.Rows, parseRow(r))
					}
				}
			}
			out = append(out, s)
		}
	}
	return out
}

func parseRow(m *yaml.Node) *Row {
	r := &Row{Line: m.Line, EndLine: yamlx.EndLine(m), Hash: yamlx.Hash(m)}
	r.TP = scalar(yamlx.Get(m, "tp"))
	r.EP = scalar(yamlx.Get(m, "ep"))
	r.DPAttn = scalar(yamlx.Get(m, "dp-attn"))
	r.SpecDecoding = scalar(yamlx.Get(m, "spec-decoding"))
	r.KVOffloading = scalar(yamlx.Get(m, "kv-offloading"))
	r.KVBackend = nameOf(yamlx.Get(m, "kv-offload-backend"))
	r.Router = nameOf(yamlx.Get(m, "router"))
	if l := yamlx.Get(m, "conc-list"); l != nil {
		seen := map[int]bool{}
		items := l.Content
		if l.Kind == yaml.ScalarNode {
			items = []*yaml.Node{l}
		}
		for _, c := range items {
			v, ok := yamlx.Int(c)
			if !ok {
				r.ConcProblem = "conc-list holds a value that is not an integer"
				continue
			}
			if !seen[v] {
				seen[v] = true
				r.Conc = append(r.Conc, v)
			}
		}
	} else if sn, en := yamlx.Get(m, "conc-start"), yamlx.Get(m, "conc-end"); sn != nil || en != nil {
		start, ok1 := yamlx.Int(sn)
		end, ok2 := yamlx.Int(en)
		switch {
		case sn == nil || en == nil:
			r.ConcProblem = "conc-start and conc-end must be given together"
		case !ok1 || !ok2:
			r.ConcProblem = "conc-start and conc-end must be integers"
		default:
			r.Conc, r.ConcProblem = ExpandConc(start, end)
		}
	}
	r.Prefill = parseWorker(yamlx.Get(m, "prefill"))
	r.Decode = parseWorker(yamlx.Get(m, "decode"))
	return r
}

func parseWorker(n *yaml.Node) *Worker {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	return &Worker{
		NumWorker: scalar(yamlx.Get(n, "num-worker")),
		TP:        scalar(yamlx.Get(n, "tp")),
		EP:        scalar(yamlx.Get(n, "ep")),
		DPAttn:    scalar(yamlx.Get(n, "dp-attn")),
	}
}

// nameOf reads settings written either as `{ name: x, ... }` or as `x`.
func nameOf(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	if n.Kind == yaml.MappingNode {
		return scalar(yamlx.Get(n, "name"))
	}
	return scalar(n)
}

func scalar(n *yaml.Node) string { return strings.TrimSpace(yamlx.Scalar(n)) }

func isTrue(n *yaml.Node) bool {
	switch strings.ToLower(scalar(n)) {
	case "true", "yes", "on":
		return true
	}
	return false
}

// ExpName is the name the sweep generator gives a single-node
// agentic-coding point: {model-prefix}_tp{tp}_conc{conc}_{kv}, plus
// _spec-{spec} when speculative decoding is on, where {kv} is kvnone or
// kv{kv-offloading}-{backend name}. ep and dp-attn are not part of it.
func ExpName(prefix string, r *Row, conc int) string {
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString("_tp")
	b.WriteString(r.TP)
	b.WriteString("_conc")
	b.WriteString(itoa(conc))
	b.WriteByte('_')
	if kv := r.KVOffloading; kv == "" || strings.EqualFold(kv, "none") {
		b.WriteString("kvnone")
	} else {
		b.WriteString("kv" + kv + "-" + r.KVBackend)
	}
	if s := r.SpecDecoding; s != "" && !strings.EqualFold(s, "none") {
		b.WriteString("_spec-" + s)
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }
