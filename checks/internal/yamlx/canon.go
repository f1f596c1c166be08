package yamlx

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// The canonical form of a node is the typed data a program loading the
// YAML gets: two nodes have the same form exactly when they hold the same
// data. Scalars are resolved to their tag's value (`8`, `0x8` and `+8`
// agree; `8`, `"8"` and `8.0` do not), aliases are followed, merge keys
// (`<<`) are expanded with explicit keys overriding merged ones, the last
// of duplicate keys wins (as in yaml.v3 decoding), and mapping order,
// style, quoting (of strings) and comments are ignored.
//
// The form has two renderings from one walk: a string (Canonical, exact)
// and a 64-bit digest (Hash, allocation-free, for fingerprinting every row
// of a large file). Equal forms give equal digests; unequal forms collide
// with negligible probability.
//
// Alias expansion can make a small document describe a huge value
// ("billion laughs"), so every walk spends a work budget: one unit per
// node visited, aliases counted each time they are followed. A walk that
// runs out reports ok == false; the safe reading for "did this change?" is
// "yes".

// DefaultBudget bounds the package-level functions, which get a fresh
// budget per call. Callers walking many nodes of one input share a Canon
// sized with BudgetFor, so the total work stays proportional to the input.
const DefaultBudget = 1 << 20

// maxDepth bounds recursion (deep nesting, alias cycles).
const maxDepth = 1000

// BudgetFor returns a budget for walking nodes parsed from size bytes of
// YAML. A node takes at least two bytes to write, so sixteen visits per
// byte leave room for ordinary use of aliases while an alias bomb still
// stops after work linear in its size.
func BudgetFor(size int) int {
	if size > (math.MaxInt-4096)/16 {
		return math.MaxInt
	}
	return 4096 + 16*size
}

// Canon computes canonical forms under one shared work budget. Once the
// budget is spent every further call reports ok == false. A Canon is not
// safe for concurrent use.
type Canon struct {
	budget int
	over   bool
	hw     walker[uint64]
	sw     walker[string]
}

// NewCanon returns a Canon that may visit budget nodes in total.
func NewCanon(budget int) *Canon {
	c := &Canon{budget: budget}
	c.hw = walker[uint64]{c: c, f: hashForm{}}
	c.sw = walker[string]{c: c, f: stringForm{}}
	return c
}

// Hash returns the digest of n's canonical form.
func (c *Canon) Hash(n *yaml.Node) (h uint64, ok bool) {
	h = c.hw.walk(n)
	return h, !c.over
}

// Canonical returns n's canonical form as a string.
func (c *Canon) Canonical(n *yaml.Node) (s string, ok bool) {
	s = c.sw.walk(n)
	return s, !c.over
}

// Equal reports whether a and b hold the same data. Nodes too large to
// compare within the budget are reported as different, the safe answer
// for a rule asking "did this change?".
func (c *Canon) Equal(a, b *yaml.Node) bool {
	ha, _ := c.Hash(a)
	hb, ok := c.Hash(b)
	if !ok || ha != hb {
		return false
	}
	// Equal digests almost surely mean equal forms; the strings make it
	// certain.
	sa, _ := c.Canonical(a)
	sb, ok := c.Canonical(b)
	return ok && sa == sb
}

// Hash is Canon.Hash with a fresh DefaultBudget.
func Hash(n *yaml.Node) (uint64, bool) { return NewCanon(DefaultBudget).Hash(n) }

// Canonical is Canon.Canonical with a fresh DefaultBudget.
func Canonical(n *yaml.Node) (string, bool) { return NewCanon(DefaultBudget).Canonical(n) }

// Equal is Canon.Equal with a fresh DefaultBudget.
func Equal(a, b *yaml.Node) bool { return NewCanon(DefaultBudget).Equal(a, b) }

// form builds one rendering of the canonical form. mapping gets each key
// once, in no meaningful order, and must not depend on the order.
type form[T comparable] interface {
	null() T
	scalar(kind, text string) T
	seq(items []T) T
	mapping(pairs []T) T // key, value, key, value, ...
	overflow() T
}

// walker renders nodes with a form. Collections stack their parts in
// vals (and a mapping its keys in keys) and pop them when done, so a walk
// allocates nothing once the stacks have grown.
type walker[T comparable] struct {
	c    *Canon
	f    form[T]
	vals []T
	keys []keyed[T]
}

// keyed is a mapping entry whose value is not rendered yet: a later
// duplicate or explicit key may replace it.
type keyed[T comparable] struct {
	key T
	val *yaml.Node
}

func (w *walker[T]) walk(n *yaml.Node) T {
	w.vals, w.keys = w.vals[:0], w.keys[:0]
	return w.node(n, 0)
}

func (w *walker[T]) step(depth int) bool {
	if w.c.over {
		return false
	}
	w.c.budget--
	if w.c.budget < 0 || depth > maxDepth {
		w.c.over = true
		return false
	}
	return true
}

func (w *walker[T]) node(n *yaml.Node, depth int) T {
	if !w.step(depth) {
		return w.f.overflow()
	}
	n = deref(n)
	if n == nil {
		return w.f.null()
	}
	switch n.Kind {
	case yaml.ScalarNode:
		kind, text := scalarForm(n)
		if kind == "~" {
			return w.f.null()
		}
		return w.f.scalar(kind, text)
	case yaml.SequenceNode:
		mark := len(w.vals)
		for _, c := range n.Content {
			v := w.node(c, depth+1)
			w.vals = append(w.vals, v)
		}
		v := w.f.seq(w.vals[mark:])
		w.vals = w.vals[:mark]
		return v
	case yaml.MappingNode:
		kmark := len(w.keys)
		w.collect(n, kmark, depth, nil)
		vmark := len(w.vals)
		for i := kmark; i < len(w.keys); i++ {
			k := w.keys[i]
			v := w.node(k.val, depth+1) // may grow w.keys: index, do not range
			w.vals = append(w.vals, k.key, v)
		}
		v := w.f.mapping(w.vals[vmark:])
		w.vals = w.vals[:vmark]
		w.keys = w.keys[:kmark]
		return v
	}
	return w.f.scalar("?", "")
}

// collect pushes a mapping's entries onto w.keys (the mapping's own
// entries start at mark), merged mappings first so that explicit keys
// override them, as the YAML merge-key spec says; of equal keys the last
// one wins. path holds the mappings being merged into, against cycles.
func (w *walker[T]) collect(m *yaml.Node, mark, depth int, path []*yaml.Node) {
	for _, p := range path {
		if p == m {
			return
		}
	}
	inPath := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		if !isMerge(m.Content[i]) {
			continue
		}
		v := deref(m.Content[i+1])
		if v == nil {
			continue
		}
		if !inPath {
			path, inPath = append(path, m), true
		}
		if v.Kind == yaml.SequenceNode {
			// Earlier mappings in a merge list take precedence: collect
			// them last.
			for j := len(v.Content) - 1; j >= 0; j-- {
				if s := deref(v.Content[j]); s != nil && s.Kind == yaml.MappingNode && w.step(depth+1) {
					w.collect(s, mark, depth+1, path)
				}
			}
		} else if v.Kind == yaml.MappingNode && w.step(depth+1) {
			w.collect(v, mark, depth+1, path)
		}
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if isMerge(k) {
			continue
		}
		key := w.node(k, depth+1)
		w.put(key, m.Content[i+1], mark)
	}
}

// put records key → val among the entries from mark on, replacing an equal
// key (a duplicate, or a merged key overridden). Mappings are small, so a
// linear scan beats a map.
func (w *walker[T]) put(key T, val *yaml.Node, mark int) {
	for i := mark; i < len(w.keys); i++ {
		if w.keys[i].key == key {
			w.keys[i].val = val
			return
		}
	}
	w.keys = append(w.keys, keyed[T]{key, val})
}

// isMerge reports a merge key the way yaml.v3's decoder does: a plain or
// !!merge-tagged `<<` (a quoted "<<" is an ordinary string key).
func isMerge(k *yaml.Node) bool {
	if k == nil || k.Kind != yaml.ScalarNode || k.Value != "<<" {
		return false
	}
	return k.ShortTag() == "!!merge"
}

// deref follows aliases and unwraps documents.
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
	if n != nil && (n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode) {
		return nil // a chain of 100 aliases: treat as absent rather than loop
	}
	return n
}

// scalarForm resolves a scalar to its kind ("s" string, "i" int, "f"
// float, "b" bool, "t" timestamp, "~" null, or the tag of anything else)
// and canonical text. The common spellings are read directly; the rest go
// through yaml.v3's decoder, which defines what a tagged value means.
func scalarForm(n *yaml.Node) (kind, text string) {
	switch tag := n.ShortTag(); tag {
	case "!!str":
		return "s", n.Value
	case "!!null":
		return "~", ""
	case "!!bool":
		switch n.Value {
		case "true", "True", "TRUE":
			return "b", "true"
		case "false", "False", "FALSE":
			return "b", "false"
		}
		var v bool
		if n.Decode(&v) == nil {
			return "b", strconv.FormatBool(v)
		}
	case "!!int":
		if isPlainDecimal(n.Value) {
			return "i", n.Value
		}
		var v int64
		if n.Decode(&v) == nil {
			return "i", strconv.FormatInt(v, 10)
		}
		var u uint64
		if n.Decode(&u) == nil {
			return "i", strconv.FormatUint(u, 10)
		}
	case "!!float":
		if isPlainFloat(n.Value) {
			if v, err := strconv.ParseFloat(n.Value, 64); err == nil {
				return "f", strconv.FormatFloat(v, 'g', -1, 64)
			}
		}
		var v float64
		if n.Decode(&v) == nil {
			if math.IsNaN(v) {
				return "f", "NaN"
			}
			return "f", strconv.FormatFloat(v, 'g', -1, 64)
		}
	case "!!timestamp":
		var v time.Time
		if n.Decode(&v) == nil {
			return "t", v.UTC().Format(time.RFC3339Nano)
		}
	default:
		return tag, n.Value
	}
	// A value its tag cannot hold (`!!int x`): keep the tag and the text.
	return n.ShortTag(), n.Value
}

// isPlainDecimal: an optional '-' and 1 to 18 digits without a leading
// zero (and not -0), already the canonical spelling of its int64 value.
func isPlainDecimal(s string) bool {
	if strings.HasPrefix(s, "-") {
		s = s[1:]
		if s == "0" {
			return false
		}
	}
	if s == "" || len(s) > 18 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isPlainFloat: an optional '-', digits, '.', digits; strconv reads these
// exactly as YAML does.
func isPlainFloat(s string) bool {
	s = strings.TrimPrefix(s, "-")
	dot := strings.IndexByte(s, '.')
	if dot <= 0 || dot == len(s)-1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i != dot && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// stringForm renders the form as text: kind-prefixed quoted scalars,
// [a,b] sequences and {k:v,...} mappings sorted by key.
type stringForm struct{}

func (stringForm) null() string     { return "~" }
func (stringForm) overflow() string { return "…" }

func (stringForm) scalar(kind, text string) string {
	return kind + strconv.Quote(text)
}

func (stringForm) seq(items []string) string {
	return "[" + strings.Join(items, ",") + "]"
}

func (stringForm) mapping(pairs []string) string {
	idx := make([]int, len(pairs)/2)
	for i := range idx {
		idx[i] = 2 * i
	}
	sort.Slice(idx, func(a, b int) bool { return pairs[idx[a]] < pairs[idx[b]] })
	var b strings.Builder
	b.WriteByte('{')
	for i, j := range idx {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(pairs[j])
		b.WriteByte(':')
		b.WriteString(pairs[j+1])
	}
	b.WriteByte('}')
	return b.String()
}

// hashForm digests the form: FNV-1a over scalars, an order-dependent chain
// for sequences and an order-free sum for mappings, each finished with
// splitmix64's mixer so that structure and content do not cancel out.
type hashForm struct{}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
	nullHash  = 0x9e3779b97f4a7c15
)

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func (hashForm) null() uint64     { return nullHash }
func (hashForm) overflow() uint64 { return mix(nullHash + 1) }

func (hashForm) scalar(kind, text string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(kind); i++ {
		h = (h ^ uint64(kind[i])) * fnvPrime
	}
	h = (h ^ 0xff) * fnvPrime // no byte of UTF-8 text: separates kind and text
	for i := 0; i < len(text); i++ {
		h = (h ^ uint64(text[i])) * fnvPrime
	}
	return mix(h)
}

func (hashForm) seq(items []uint64) uint64 {
	h := uint64(fnvOffset ^ 'q')
	for _, c := range items {
		h = mix(h ^ c)
	}
	return mix(h + uint64(len(items)))
}

func (hashForm) mapping(pairs []uint64) uint64 {
	var sum uint64
	for i := 0; i+1 < len(pairs); i += 2 {
		sum += mix(pairs[i]*fnvPrime ^ mix(pairs[i+1]))
	}
	return mix(sum ^ 'm' ^ uint64(len(pairs))<<8)
}

// Int reads an integer setting: a scalar holding a decimal integer, quoted
// or not (`64`, '64', 1_024). It reads values, it does not compare them:
// whether `'64'` and `64` are the same data is Canonical's question (they
// are not).
func Int(n *yaml.Node) (v int, ok bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, false
	}
	s := strings.ReplaceAll(strings.TrimSpace(n.Value), "_", "")
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return int(i), true
}
