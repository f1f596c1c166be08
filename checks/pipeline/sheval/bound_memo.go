package sheval

import (
	"slices"
	"strconv"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Expanding a reading's words for one job after another repeats most of
// the work: jobs of one runner group share most of their env, and a word
// whose variables hold the same values expands alike. Two memos keep what
// an expansion computed:
//
//   - a word's values by the values of the variables it names (word is a
//     function of those alone), shared by the readings given one WordMemo;
//   - a variable's values by the env's values of every variable they may
//     be made from (closureOf), shared by every expander of the reading,
//     for the variables values never stops short on (safe): no cycle
//     below them (X=${X:-v} aside: values reads it from X's other values),
//     and no chain through them, from a word of the reading down, as long
//     as values follows (maxBoundDepth). What values finds for such a
//     variable is the same whichever word asked first, at whatever depth,
//     and so is what it finds later for those it was made from, whether
//     or not the expander holds them yet. An expander that did stop short
//     somewhere (cut) no longer uses the memo.
//
// Either answers exactly what expanding again would.

// Bounds of the memos: a model's readings share one memo of words, and
// each of its twenty-odd readings has its own of variables (whose keys
// hold the values of a closure's variables).
const (
	maxWordMemo = 4 << 20
	maxVarMemo  = 1 << 20
)

// wordKey names a word's expansion with its variables' values.
type wordKey struct {
	w    *syntax.Word
	vals string
}

// appendList appends a list of values, each length-prefixed.
func appendList(b []byte, list []string) []byte {
	b = strconv.AppendInt(b, int64(len(list)), 10)
	b = append(b, ';')
	for _, s := range list {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	return b
}

// WordMemo keeps the expansions of words by their variables' values, for
// the readings that share it: a word's expansion depends on nothing else,
// so readings of scripts that share their syntax trees (a launch step
// read alone, then with its launcher, then with what that sources) share
// it. It holds at most maxWordMemo bytes (it is emptied past them).
type WordMemo struct {
	mu    sync.Mutex
	vals  map[wordKey][]string
	bytes int
}

// NewWordMemo returns an empty memo of words.
func NewWordMemo() *WordMemo { return &WordMemo{} }

// get returns the kept expansion of a word with its variables' values.
func (m *WordMemo) get(k wordKey) ([]string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vals[k]
	return v, ok
}

// put keeps a word's expansion with its variables' values.
func (m *WordMemo) put(k wordKey, out []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.vals == nil || m.bytes > maxWordMemo {
		m.vals, m.bytes = map[wordKey][]string{}, 0
	}
	m.vals[k] = out
	m.bytes += len(k.vals) + listBytes(out) + 64
}

// varMemo returns the kept values of a variable by key.
func (b *Bound) varMemo(key string) ([]string, bool) {
	b.vmu.Lock()
	defer b.vmu.Unlock()
	v, ok := b.varVals[key]
	return v, ok
}

// putVar keeps a variable's values by key.
func (b *Bound) putVar(key string, out []string) {
	b.vmu.Lock()
	defer b.vmu.Unlock()
	b.resetMemosIfFull()
	b.varVals[key] = out
	b.valBytes += len(key) + listBytes(out) + 48
}

func listBytes(list []string) int {
	n := 24
	for _, s := range list {
		n += len(s) + 16
	}
	return n
}

// resetMemosIfFull empties the memo of variables and their closures past
// maxVarMemo bytes (and makes them on first use). The caller holds vmu.
func (b *Bound) resetMemosIfFull() {
	if b.varVals == nil || b.valBytes > maxVarMemo {
		b.varVals, b.closures, b.valBytes = map[string][]string{}, map[string][]string{}, 0
	}
}

// varKey is the key of a variable's values asked at depth: its name and
// the env's values of its closure; "" when the memo may not answer (see
// heights).
func (x *boundExp) varKey(name string, depth int) string {
	if x.skeleton || x.scoped || x.cut || x.b.plain {
		return ""
	}
	deps, ok := x.b.closureOf(name, depth)
	if !ok {
		return ""
	}
	return name + "\x00" + boundKey(deps, x.env)
}

// closureOf is the variables values(name) may read the env of, sorted;
// false when the memo may not answer for name asked at depth: when the
// variable or one it is made from is unsafe (see graph).
func (b *Bound) closureOf(name string, depth int) ([]string, bool) {
	b.graphOnce.Do(b.graph)
	if !b.safe(name) || depth+b.heights[name] >= maxBoundDepth {
		return nil, false
	}
	b.vmu.Lock()
	deps, ok := b.closures[name]
	b.vmu.Unlock()
	if ok {
		return deps, deps != nil
	}
	// The nodes reached (a safe node's chains are short: the search is
	// shallow), every one safe, and not too many.
	seen := map[string]bool{}
	all := true
	var visit func(n string)
	visit = func(n string) {
		if seen[n] {
			return
		}
		seen[n] = true
		all = all && b.safe(n)
		for _, m := range b.edges[n] {
			visit(m)
		}
	}
	visit(name)
	if all && len(seen) <= maxClosure {
		deps = []string{}
		for n := range seen {
			if !isPositionalNode(n) {
				deps = append(deps, n)
			}
		}
		slices.Sort(deps)
	}
	b.vmu.Lock()
	b.resetMemosIfFull()
	b.closures[name] = deps
	b.valBytes += len(name) + 16*len(deps) + 48
	b.vmu.Unlock()
	return deps, deps != nil
}

// maxClosure bounds the variables a memo's key holds (real ones hold a
// few dozen); a variable made from more is not kept.
const maxClosure = 256

// safe reports whether values never stops short asking for n, wherever an
// expansion asks: no cycle below it, and no chain through it, from a word
// of the reading down, as long as values follows.
func (b *Bound) safe(n string) bool {
	h, ok := b.heights[n]
	if !ok {
		h = 0 // made from nothing
	}
	d, asked := b.depths[n]
	return h >= 0 && (!asked || d+h < maxBoundDepth)
}

// positionalNode names the positional parameters of a function (or of the
// top of a script, ""), as one node of the graph.
func positionalNode(fn string) string { return "\x00" + fn }

func isPositionalNode(n string) bool { return n != "" && n[0] == 0 }

// maxGraphDepth bounds the search of the graph; a node deeper on the path
// it is found by counts as on a cycle (a chain that long reaches past
// maxBoundDepth anyway).
const maxGraphDepth = 64

// graph reads which variables each variable's values are made from (its
// assignments' and appends' words, and through a function's positional
// parameters the arguments of its calls), and the height of each: the
// longest chain from it, or -1 for one on or reaching a cycle. values
// follows such chains one variable deeper at a time; one asked at a depth
// whose height keeps it within maxBoundDepth, of no cycle, never stops
// short.
func (b *Bound) graph() {
	b.edges = map[string][]string{}
	add := func(from string, w *syntax.Word, self bool) {
		for _, n := range b.syntaxOf(w).names {
			to := n
			if isPositional(n) {
				to = positionalNode(b.fnOf[w])
			} else if n == from && self {
				continue // X=${X:-v}: read from X's other values
			}
			if !slices.Contains(b.edges[from], to) {
				b.edges[from] = append(b.edges[from], to)
			}
		}
	}
	for name, ws := range b.assigns {
		for _, w := range ws {
			add(name, w, true)
		}
	}
	for name, ws := range b.appends {
		for _, w := range ws {
			add(name, w, false)
		}
	}
	for fn, calls := range b.calls {
		for _, args := range calls {
			for _, a := range args {
				add(positionalNode(fn), a, false)
			}
		}
	}
	const onPath = -2
	b.heights = map[string]int{}
	var visit func(n string, depth int) int
	visit = func(n string, depth int) int {
		if h, ok := b.heights[n]; ok {
			if h == onPath {
				return -1 // a cycle
			}
			return h
		}
		if depth >= maxGraphDepth {
			return -1
		}
		b.heights[n] = onPath
		h := 0
		for _, m := range b.edges[n] {
			d := visit(m, depth+1)
			if d < 0 {
				h = -1
				break
			}
			h = max(h, d+1)
		}
		b.heights[n] = h
		return h
	}
	for n := range b.edges {
		visit(n, 0)
	}
	b.depths = askDepths(b.edges, b.rootNodes())
}

// rootNodes are the nodes the reading's words name: what an expansion
// asks for first, at depth 0.
func (b *Bound) rootNodes() []string {
	var out []string
	for _, g := range b.groups {
		for _, bw := range g.words {
			for _, n := range b.syntaxOf(bw.w).names {
				if isPositional(n) {
					n = positionalNode(b.fnOf[bw.w])
				}
				out = append(out, n)
			}
		}
	}
	return out
}

// askDepths bounds, for each node reached from roots, the depth an
// expansion may ask for it at: the longest path to it that visits no node
// twice (values never follows one twice: it stops short there). Paths are
// bounded on the graph's strongly connected components, in topological
// order: a path may go through every node of a component before it
// leaves.
func askDepths(edges map[string][]string, roots []string) map[string]int {
	comp, order := components(edges)
	size := map[int]int{}
	for _, c := range comp {
		size[c]++
	}
	// enter[c]: the deepest a path enters component c at.
	enter := map[int]int{}
	for _, r := range roots {
		c, ok := comp[r]
		if !ok {
			c = -1 // a node of no edge: made from nothing
		}
		if _, seen := enter[c]; !seen {
			enter[c] = 0
		}
	}
	byComp := map[int][]string{}
	for n, c := range comp {
		byComp[c] = append(byComp[c], n)
	}
	for _, c := range order {
		e, reached := enter[c]
		if !reached {
			continue
		}
		leave := e + size[c] - 1
		for _, n := range byComp[c] {
			for _, m := range edges[n] {
				if mc := comp[m]; mc != c {
					if cur, ok := enter[mc]; !ok || leave+1 > cur {
						enter[mc] = leave + 1
					}
				}
			}
		}
	}
	out := map[string]int{}
	for n, c := range comp {
		if e, ok := enter[c]; ok {
			out[n] = e + size[c] - 1
		}
	}
	for _, r := range roots {
		if _, ok := comp[r]; !ok {
			out[r] = 0
		}
	}
	return out
}

// components are the strongly connected components of the graph (by
// node) and their topological order, found without recursion (Kosaraju's
// two passes).
func components(edges map[string][]string) (map[string]int, []int) {
	nodes := map[string]bool{}
	rev := map[string][]string{}
	for n, ms := range edges {
		nodes[n] = true
		for _, m := range ms {
			nodes[m] = true
			rev[m] = append(rev[m], n)
		}
	}
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	slices.Sort(names)
	// First pass: the nodes by the order their search finished.
	type frame struct {
		n string
		i int
	}
	done := map[string]bool{}
	var finished []string
	for _, start := range names {
		if done[start] {
			continue
		}
		done[start] = true
		stack := []frame{{start, 0}}
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.i < len(edges[top.n]) {
				m := edges[top.n][top.i]
				top.i++
				if !done[m] {
					done[m] = true
					stack = append(stack, frame{m, 0})
				}
				continue
			}
			finished = append(finished, top.n)
			stack = stack[:len(stack)-1]
		}
	}
	// Second pass, on the reversed graph, latest finished first: each
	// search is a component, found in topological order.
	comp := map[string]int{}
	var order []int
	for i := len(finished) - 1; i >= 0; i-- {
		start := finished[i]
		if _, ok := comp[start]; ok {
			continue
		}
		c := len(order)
		order = append(order, c)
		comp[start] = c
		stack := []string{start}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, m := range rev[n] {
				if _, ok := comp[m]; !ok {
					comp[m] = c
					stack = append(stack, m)
				}
			}
		}
	}
	return comp, order
}
