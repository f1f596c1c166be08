package masterconfig

import (
	"hash/maphash"
	"strconv"
	"strings"
	"sync/atomic"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks"
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
	// Raw holds every setting except scenarios as the sweep generator
	// reads them (see Plain), and Lines where each setting's key sits,
	// relative to Line: for readers that need settings the model does not
	// name (the pipeline model, the schema check).
	Raw   map[string]any
	Lines map[string]int
}

// LineOf returns the line of the key's setting name (0 when absent).
func (k *Key) LineOf(name string) int { return lineOf(k.Lines, k.Line, name) }

func lineOf(lines map[string]int, base int, name string) int {
	if off, ok := lines[name]; ok {
		return base + off
	}
	return 0
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
	// Raw holds the block's settings other than its rows (see Plain), and
	// Lines where each of them sits, relative to Line.
	Raw   map[string]any
	Lines map[string]int
}

// LineOf returns the line of the block's setting name (0 when absent).
func (s *Scenario) LineOf(name string) int { return lineOf(s.Lines, s.Line, name) }

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
	// Raw is the row as the sweep generator reads it (see Plain), and
	// Lines where each of its keys sits, relative to Line.
	Raw   map[string]any
	Lines map[string]int
}

// LineOf returns the line of the row's key name (0 when absent).
func (r *Row) LineOf(name string) int { return lineOf(r.Lines, r.Line, name) }

// Worker is a prefill or decode pool of a multinode row.
type Worker struct {
	NumWorker, TP, EP, DPAttn string
	// Settings are the additional-settings items (NAME=value) with their
	// lines relative to the row's Line.
	Settings []Setting
	// Lines gives where each of the pool's keys sits, relative to the
	// row's Line.
	Lines map[string]int
}

// Setting is one additional-settings item of a worker pool.
type Setting struct {
	Value string
	// Off is the item's line relative to the row's Line.
	Off int
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
func ParseMasterConfig(b []byte) (*File, error) { return parseFile(b, nil), nil }

// parseFile parses a master config one top-level key at a time, taking
// the keys whose text it has seen before from cache (nil: none), so that
// the head of a PR costs only the keys the PR changed once the base is
// parsed. The result is the same as parsing the whole file
// (TestChunkedParseMatchesWhole, FuzzChunkedParse): a file that does not
// split into plain top-level keys, or a key that does not parse on its own
// (a syntax error, an alias to another key's anchor), is parsed whole, so
// errors carry the whole-file parser's message and line.
func parseFile(b []byte, cache *checks.ParseCache) *File { return parseKeys(b, cache, true) }

// parseKeys is parseFile; with whole false it never parses the file in
// one piece when it can parse key by key (for tests of that path).
func parseKeys(b []byte, cache *checks.ParseCache, whole bool) *File {
	chunks, ok := yamlx.TopLevelChunks(b)
	if !ok || len(chunks) == 0 {
		return parseWhole(b)
	}
	// The comments before the first key belong to no chunk, but the
	// parser still reads them (bytes that are not UTF-8 fail the file).
	if pre := chunks[0].Offset; pre > 0 {
		if _, err := yamlx.Parse(b[:pre]); err != nil {
			return parseWhole(b)
		}
	}
	pcs := make([]*parsedChunk, len(chunks))
	ids := make([]string, len(chunks))
	missing := 0
	for i, c := range chunks {
		pcs[i], ids[i] = cachedChunk(c, cache)
		if pcs[i] == nil {
			missing += len(c.Text)
		}
	}
	if whole && missing > len(b)*9/10 {
		// Nearly every key is new (a first parse): one parse of the whole
		// file costs less than one per key, and gives the same nodes.
		f, split := splitWhole(b, chunks)
		if split == nil {
			return f
		}
		for i, pc := range split {
			if pcs[i] == nil {
				pcs[i] = pc
				putChunk(cache, ids[i], pc)
			}
		}
	}
	for i, c := range chunks {
		if pcs[i] == nil {
			if pcs[i] = parseChunk(b[c.Offset:c.Offset+len(c.Text)], c); pcs[i] == nil {
				return parseWhole(b)
			}
			putChunk(cache, ids[i], pcs[i])
		}
	}

	f := &File{index: make(map[string]*Key, len(chunks)), Keys: make([]*Key, 0, len(chunks))}
	first := make(map[string]int, len(chunks))
	var nested []yamlx.Duplicate
	for i, c := range chunks {
		k, dups := pcs[i].at(c.Line)
		// Duplicates in document order, as yamlx.DuplicateKeys gives them
		// for the whole file: the top level's, then each key's own.
		if line, dup := first[k.Name]; dup {
			f.Duplicates = append(f.Duplicates, yamlx.Duplicate{Key: k.Name, Line: k.Line, FirstLine: line})
		} else {
			first[k.Name] = k.Line
		}
		nested = append(nested, dups...)
		f.Keys = append(f.Keys, k)
		f.index[k.Name] = k
	}
	f.Duplicates = append(f.Duplicates, nested...)
	return f
}

// splitWhole parses the whole file and cuts the result into one parsed
// chunk per top-level key. When that cannot be done (the file does not
// parse, or uses aliases, whose keys' meaning depends on other keys), it
// returns the whole-file parse and no chunks.
func splitWhole(b []byte, chunks []yamlx.Chunk) (*File, []*parsedChunk) {
	doc, err := yamlx.Parse(b)
	if err != nil || hasAlias(doc) {
		return fileFromDoc(b, doc, err), nil
	}
	pairs := yamlx.Pairs(yamlx.Root(doc))
	if len(pairs) != len(chunks) {
		return fileFromDoc(b, doc, nil), nil
	}
	out := make([]*parsedChunk, len(chunks))
	for i, c := range chunks {
		p := pairs[i]
		if p.Key.Value != c.Key || p.Key.Line != c.Line {
			return fileFromDoc(b, doc, nil), nil
		}
		out[i] = newParsedChunk(c, p)
	}
	return nil, out
}

// hasAlias reports whether any node under n is an alias. (yaml.v3 caps
// nesting, so the recursion is bounded.)
func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

// parseWhole parses the file in one piece.
func parseWhole(b []byte) *File {
	doc, err := yamlx.Parse(b)
	return fileFromDoc(b, doc, err)
}

// fileFromDoc builds the model of file b from its parse.
func fileFromDoc(b []byte, doc *yaml.Node, err error) *File {
	f := &File{index: map[string]*Key{}}
	if err != nil {
		se, ok := err.(*yamlx.SyntaxError)
		if !ok {
			se = &yamlx.SyntaxError{Msg: err.Error()}
		}
		f.Err = se
		return f
	}
	root := yamlx.Root(doc)
	if root == nil {
		return f
	}
	if root.Kind != yaml.MappingNode {
		f.NotMapping, f.RootLine = true, root.Line
		return f
	}
	f.Duplicates = yamlx.DuplicateKeys(root)
	canon := yamlx.NewCanon(yamlx.BudgetFor(len(b)))
	for _, p := range yamlx.Pairs(root) {
		k := parseKey(p, canon)
		f.Keys = append(f.Keys, k)
		f.index[k.Name] = k
	}
	return f
}

// chunkKind caches parsed top-level keys by their text.
const chunkKind = "masterconfig/chunk/v3"

// parsedChunk is one top-level key parsed on its own. Its lines are those
// of the file it was first parsed from, where it started at line.
type parsedChunk struct {
	text string // verified on every cache hit: the cache ID is a hash
	line int
	key  *Key
	dups []yamlx.Duplicate // repeated keys inside the key's value
}

// at returns the chunk's key and duplicates as they are when the chunk
// starts at line: shared when it starts where it was parsed (parsed keys
// are never modified), a shifted copy otherwise.
func (pc *parsedChunk) at(line int) (*Key, []yamlx.Duplicate) {
	d := line - pc.line
	if d == 0 {
		return pc.key, pc.dups
	}
	var dups []yamlx.Duplicate
	for _, x := range pc.dups {
		dups = append(dups, yamlx.Duplicate{Key: x.Key, Line: x.Line + d, FirstLine: x.FirstLine + d})
	}
	return pc.key.shifted(d), dups
}

// chunkSeed keys the chunk cache; it is per process, as the cache is.
var chunkSeed = maphash.MakeSeed()

// cachedChunk returns chunk c's parse from cache (nil when absent) and
// the cache ID of its text.
func cachedChunk(c yamlx.Chunk, cache *checks.ParseCache) (*parsedChunk, string) {
	if cache == nil {
		return nil, ""
	}
	id := strconv.FormatUint(maphash.String(chunkSeed, c.Text), 16)
	if v, ok := cache.Get(chunkKind, id); ok {
		if pc, _ := v.(*parsedChunk); pc != nil && pc.text == c.Text {
			return pc, id
		}
	}
	return nil, id
}

func putChunk(cache *checks.ParseCache, id string, pc *parsedChunk) {
	if cache == nil {
		return
	}
	// Clone: the chunk's text is a slice of the whole file, which the
	// cache must not keep alive.
	pc.text = strings.Clone(pc.text)
	cache.Put(chunkKind, id, pc)
}

// parseChunk parses chunk c, whose bytes are text, or returns nil when c
// does not parse on its own as the one key it names.
func parseChunk(text []byte, c yamlx.Chunk) *parsedChunk {
	doc, err := yamlx.Parse(text)
	if err != nil {
		return nil
	}
	root := yamlx.Root(doc)
	pairs := yamlx.Pairs(root)
	if len(pairs) != 1 || pairs[0].Key.Value != c.Key || pairs[0].Key.Line != 1 {
		return nil
	}
	shiftNodes(root, c.Line-1)
	return newParsedChunk(c, pairs[0])
}

// newParsedChunk builds chunk c's model from its pair, whose lines are
// those of the file.
func newParsedChunk(c yamlx.Chunk, p yamlx.Pair) *parsedChunk {
	return &parsedChunk{
		text: c.Text,
		line: c.Line,
		key:  parseKey(p, yamlx.NewCanon(yamlx.BudgetFor(len(c.Text)))),
		dups: yamlx.DuplicateKeys(p.Value),
	}
}

// shiftNodes moves the nodes under n down by d lines. Aliases are not
// followed: their targets are moved where they are defined.
func shiftNodes(n *yaml.Node, d int) {
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n.Line += d
		stack = append(stack, n.Content...)
	}
}

// shifted returns a copy of k moved down by d lines.
func (k *Key) shifted(d int) *Key {
	c := *k
	c.Line += d
	c.EndLine += d
	for _, f := range []*Field{&c.Image, &c.Model, &c.ModelPrefix, &c.Runner, &c.Precision, &c.Framework} {
		if f.Line > 0 {
			f.Line += d
		}
	}
	if c.ScenariosLine > 0 {
		c.ScenariosLine += d
	}
	if k.Scenarios == nil {
		return &c
	}
	c.Scenarios = make([]*Scenario, len(k.Scenarios))
	for i, s := range k.Scenarios {
		sc := *s
		sc.Line += d
		sc.EndLine += d
		if s.Rows != nil {
			sc.Rows = make([]*Row, len(s.Rows))
		}
		for j, r := range s.Rows {
			rc := *r
			rc.Line += d
			rc.EndLine += d
			sc.Rows[j] = &rc
		}
		c.Scenarios[i] = &sc
	}
	return &c
}

// overBudget numbers the digests of values too large to compare (an alias
// bomb, an alias cycle): each is unequal to every other value, so what it
// belongs to counts as changed. The mark in the top bits lets tests tell
// them from real digests.
var overBudget atomic.Uint64

const overBudgetMark = 0xbd06 << 48

// digest returns n's yamlx.Hash under canon's budget.
func digest(canon *yamlx.Canon, n *yaml.Node) uint64 {
	h, ok := canon.Hash(n)
	if !ok {
		return overBudgetMark | overBudget.Add(1)&(1<<48-1)
	}
	return h
}

func parseKey(p yamlx.Pair, canon *yamlx.Canon) *Key {
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
		for i := 0; i+1 < len(m.Content); i += 2 {
			if q := m.Content[i+1]; m.Content[i].Value == name && q.Kind == yaml.ScalarNode {
				return Field{Value: strings.TrimSpace(q.Value), Line: q.Line}
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
			k.Scenarios = append(k.Scenarios, parseScenarios(q.Value, canon)...)
			continue
		}
		if q.Key.Value == "seq-len-configs" {
			// The layout before scenarios: a list of fixed-seq-len blocks.
			k.ScenariosLine = q.Key.Line
			wrapped := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: FixedSeqLen, Line: q.Key.Line}, q.Value}}
			k.Scenarios = append(k.Scenarios, parseScenarios(wrapped, canon)...)
			continue
		}
		header.Content = append(header.Content, q.Key, q.Value)
	}
	k.Header = digest(canon, header)
	k.Raw, k.Lines = plainMap(header, k.Line)
	return k
}

func parseScenarios(n *yaml.Node, canon *yamlx.Canon) []*Scenario {
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
			s.Settings = digest(canon, settings)
			s.Raw, s.Lines = plainMap(settings, b.Line)
			s.ISL, _ = yamlx.Int(yamlx.Get(b, "isl"))
			s.OSL, _ = yamlx.Int(yamlx.Get(b, "osl"))
			if ss := yamlx.Get(b, "search-space"); ss != nil && ss.Kind == yaml.SequenceNode {
				for _, r := range ss.Content {
					if r.Kind == yaml.MappingNode {
						s.Rows = append(s.Rows, parseRow(r, canon))
					}
				}
			}
			out = append(out, s)
		}
	}
	return out
}

func parseRow(m *yaml.Node, canon *yamlx.Canon) *Row {
	r := &Row{Line: m.Line, EndLine: yamlx.EndLine(m), Hash: digest(canon, m)}
	r.Raw, r.Lines = plainMap(m, m.Line)
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
	r.Prefill = parseWorker(yamlx.Get(m, "prefill"), m.Line)
	r.Decode = parseWorker(yamlx.Get(m, "decode"), m.Line)
	return r
}

func parseWorker(n *yaml.Node, rowLine int) *Worker {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	w := &Worker{
		NumWorker: scalar(yamlx.Get(n, "num-worker")),
		TP:        scalar(yamlx.Get(n, "tp")),
		EP:        scalar(yamlx.Get(n, "ep")),
		DPAttn:    scalar(yamlx.Get(n, "dp-attn")),
	}
	_, w.Lines = plainMap(n, rowLine)
	if l := yamlx.Get(n, "additional-settings"); l != nil && l.Kind == yaml.SequenceNode {
		for _, it := range l.Content {
			if it.Kind == yaml.ScalarNode {
				w.Settings = append(w.Settings, Setting{Value: it.Value, Off: it.Line - rowLine})
			}
		}
	}
	return w
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
