package sheval

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Memo reuses a script's evaluation for envs that agree on every
// input that decided it (Result.Reads): a launcher is evaluated once per
// distinct deciding set, not once per row. The evaluations of one script
// content are kept in the change's parse cache (by the script's blob ID),
// so the next review of a tree whose launchers did not change evaluates
// nothing; an evaluation is reused only where the files it sourced and the
// tree lookups it made still hold.
type Memo struct {
	mu      sync.Mutex
	results []*Result
	// bySig indexes the results by the set of inputs that decided them
	// (usually a handful of sets per script), then by those inputs'
	// values, so a lookup costs one map access per set.
	sigs  []memoSig
	bySig map[string]map[string][]*Result
	// bytes is what the evaluations hold; charge tells the parse cache
	// (nil when there is none).
	bytes  int64
	charge func(int64)
}

// memoSig is one set of deciding inputs, sorted, and its name.
type memoSig struct {
	keys []string
	name string
}

func sigOf(reads map[string]string) memoSig {
	keys := make([]string, 0, len(reads))
	for k := range reads {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return memoSig{keys: keys, name: strings.Join(keys, "\x00")}
}

// valuesKey is env's canonical values of a set's inputs.
func valuesKey(keys []string, env Env) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(Canon(env, k))
		b.WriteByte(0)
	}
	return b.String()
}

func readsKey(keys []string, reads map[string]string) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(reads[k])
		b.WriteByte(0)
	}
	return b.String()
}

// maxMemoPerFile bounds the evaluations kept per script content.
const maxMemoPerFile = 512

func (m *Memo) Get(env Env, files Files) (*Result, bool) {
	r := m.find(env, files)
	switch {
	case r == nil:
		return nil, false
	case r.EnvSum != "" && r.EnvSum == EnvSum(env):
		return r, true // the very env it was evaluated with
	default:
		return rebind(r, env), true
	}
}

// Has reports whether get would find an evaluation for env.
func (m *Memo) Has(env Env, files Files) bool { return m.find(env, files) != nil }

// find is the first evaluation whose deciding inputs env agrees with and
// whose files still hold (nil when there is none).
func (m *Memo) find(env Env, files Files) *Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, sg := range m.sigs {
		for _, r := range m.bySig[sg.name][valuesKey(sg.keys, env)] {
			if Holds(r, files) {
				return r
			}
		}
	}
	return nil
}

func (m *Memo) Put(r *Result) {
	m.mu.Lock()
	if len(m.results) >= maxMemoPerFile {
		// Drop the oldest quarter: a long replay meets more distinct
		// rows than one tree has.
		keep := slices.Clone(m.results[maxMemoPerFile/4:])
		m.results, m.sigs, m.bySig, m.bytes = nil, nil, nil, 0
		for _, old := range keep {
			m.index(old)
		}
	}
	m.index(r)
	n, charge := m.bytes, m.charge
	m.mu.Unlock()
	if charge != nil {
		charge(n)
	}
}

func (m *Memo) index(r *Result) {
	m.results = append(m.results, r)
	sg := sigOf(r.Reads)
	if m.bySig == nil {
		m.bySig = map[string]map[string][]*Result{}
	}
	byVal, ok := m.bySig[sg.name]
	if !ok {
		byVal = map[string][]*Result{}
		m.bySig[sg.name] = byVal
		m.sigs = append(m.sigs, sg)
	}
	k := readsKey(sg.keys, r.Reads)
	byVal[k] = append(byVal[k], r)
	m.bytes += r.MemSize() + memoEntryBytes + int64(len(k))
}

// Holds reports whether the tree still answers as it did for r.
func Holds(r *Result, files Files) bool {
	for p, id := range r.Sources {
		if files.Blob(p) != id {
			return false
		}
	}
	for p, want := range r.Queries {
		if got, err := files.Stat(p); err != nil || got != want {
			return false
		}
	}
	return true
}

// rebind is a memoized result for another env: the same paths, with each
// run's env built from env where the run passed the starting env's
// variables through, and from the recorded evaluation where the launcher
// computed them from deciding inputs (the same for both envs). A variable
// the launcher computed from an input that did not decide anything may
// differ: its value is unknown.
func rebind(r *Result, env Env) *Result {
	out := *r
	out.Paths = make([]Path, len(r.Paths))
	for i, p := range r.Paths {
		q := p
		q.Runs = make([]Run, len(p.Runs))
		for j, run := range p.Runs {
			run.Env = rebindEnv(run, r.Reads, env)
			q.Runs[j] = run
		}
		out.Paths[i] = q
	}
	return &out
}

func rebindEnv(run Run, reads map[string]string, env Env) Env {
	out := make(Env, len(run.Env))
	for name, v := range run.Env {
		if v.Input() {
			if a, ok := env[name]; ok {
				out[name] = a.AsInput()
			}
			continue
		}
		if decided(v.Deps(), reads) {
			out[name] = v
		} else {
			out[name] = Value{Set: true, Exported: v.Exported, At: v.At}
		}
	}
	if run.PassAll {
		for name, a := range env {
			if _, ok := run.Env[name]; !ok && a.Exported {
				if _, checked := reads[name+":status"]; checked {
					continue // the recorded env lacked it on purpose
				}
				out[name] = a.AsInput()
			}
		}
	}
	return out
}

// decided reports whether every dependency is determined by the deciding
// inputs.
func decided(deps []string, reads map[string]string) bool {
	for _, d := range deps {
		if _, ok := reads[d]; ok {
			continue
		}
		name := d
		if i := strings.IndexAny(d, "%#:"); i >= 0 {
			name = d[:i]
		}
		if _, ok := reads[name]; !ok {
			return false
		}
	}
	return true
}

// EnvSum identifies an env's exported values (what a run can be handed).
func EnvSum(env Env) string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		v := env[k]
		fmt.Fprintf(h, "%s\x00%v\x00%v\x00%v\x00%v\x00%s\x00%s\x00", k, v.Set, v.Known, v.Exported, v.IsList, v.Str, strings.Join(v.List, "\x01"))
	}
	return string(h.Sum(nil))
}

// NewMemo returns an empty memo; charge, when set, is told what the memo
// holds each time it grows (the parse cache that keeps it).
func NewMemo(charge func(int64)) *Memo { return &Memo{charge: charge} }

// memoEntryBytes is an evaluation's place in the memo's indexes: the
// results slice, the per-set map and the values key.
const memoEntryBytes = 160

// MemSize is the memory of the memo's evaluations (checks.Sizer).
func (m *Memo) MemSize() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bytes
}

// Results are the memo's evaluations, oldest first.
func (m *Memo) Results() []*Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*Result(nil), m.results...)
}
