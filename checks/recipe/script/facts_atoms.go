package script

import (
	"cmp"
	"slices"
	"strings"
)

// Atom is one fact flattened into a comparable key, for convention mining:
// "every sibling that has atom A also has atom B". Line and Path say
// where the fact is, so a finding can cite it and a miner can ask whether
// B is on A's path.
//
// Keys:
//
//	set:<option>              an option the script leaves on (set:nounset)
//	env:<NAME>                an export or X=v command prefix
//	env:<NAME>=<value>        the same, with a static value
//	unset:<NAME>              unset NAME
//	server:<program>          a server launch (server:vllm serve)
//	flag:<--name>             a server option (names normalized, see NormFlag)
//	flag:<--name>=<value>     the same, with a static value
//	client:<program>          a benchmark client invocation
//	client-flag:<--name>      a client option
//	json-key:<key.path>       a key of a JSON config (objects included)
//	json:<key.path>=<value>   a static JSON leaf
//	check-env:<NAME>          a variable check_env_vars validates
//	source:<file>             a sourced file's base name
//	patch:<kind>              an engine-patching shape (see PatchKind)
//	override:<kind>           an architecture override (see OverrideKind)
type Atom struct {
	Key     string
	Line    int
	EndLine int
	Branch  Branch
}

// Atoms flattens the facts. An atom occurring several times (one flag
// per case arm) is listed once per line and path, in source order within
// each kind. The atoms are computed once per Facts (facts are shared
// across reviews, and convention mining asks more than once); each call
// returns a copy the caller may modify.
func (f *Facts) Atoms() []Atom {
	f.atomsOnce.Do(func() { f.atoms = f.computeAtoms() })
	return slices.Clone(f.atoms)
}

// BranchStrings renders branches, once per distinct branch slice: the facts of
// one branch share their Path, and rendering is what comparing paths by
// their text costs. The zero value is not usable; make one with
// BranchStrings{}.
type BranchStrings map[pathID]string

type pathID struct {
	first *Cond
	n     int
}

// Of renders p (as p.String()).
func (ps BranchStrings) Of(p Branch) string {
	if len(p) == 0 {
		return p.String()
	}
	id := pathID{&p[0], len(p)}
	s, ok := ps[id]
	if !ok {
		s = p.String()
		ps[id] = s
	}
	return s
}

func (f *Facts) computeAtoms() []Atom {
	// At most two atoms per fact.
	n := 4 + 2*len(f.Vars) + len(f.Sources) + len(f.Patches) + len(f.Overrides)
	for _, cmds := range [][]*Command{f.Servers, f.Clients} {
		for _, c := range cmds {
			n += 1 + 2*len(c.Flags)
		}
	}
	for _, j := range f.JSON {
		n += 2 * len(j.Entries)
	}
	for _, c := range f.EnvChecks {
		n += len(c.Vars)
	}
	out := make([]Atom, 0, n)
	add := func(key string, line, end int, p Branch) {
		if end < line {
			end = line
		}
		out = append(out, Atom{Key: key, Line: line, EndLine: end, Branch: p})
	}
	for _, opt := range []string{"errexit", "nounset", "pipefail", "xtrace"} {
		if on, line, ok := f.Option(opt); ok && on {
			add("set:"+opt, line, line, nil)
		}
	}
	for _, v := range f.Vars {
		switch v.Kind {
		case Export, EnvPrefix:
			add("env:"+v.Name, v.Line, v.EndLine, v.Branch)
			if val, ok := f.exportedValue(v); ok {
				add("env:"+v.Name+"="+val, v.Line, v.EndLine, v.Branch)
			}
		case Unset:
			add("unset:"+v.Name, v.Line, v.EndLine, v.Branch)
		}
	}
	cmdAtoms := func(cmds []*Command, kind, flagKind string) {
		for _, c := range cmds {
			add(kind+":"+c.Program, c.Line, c.EndLine, c.Branch)
			for _, fl := range c.Flags {
				name := NormFlag(fl.Name)
				add(flagKind+":"+name, fl.Line, fl.ValueLine, fl.Branch)
				if kind == "server" && fl.HasValue && fl.Static && fl.JSON == nil {
					add(flagKind+":"+name+"="+fl.Value, fl.Line, fl.ValueLine, fl.Branch)
				}
			}
		}
	}
	cmdAtoms(f.Servers, "server", "flag")
	cmdAtoms(f.Clients, "client", "client-flag")
	for _, j := range f.JSON {
		for _, e := range j.Entries {
			add("json-key:"+e.Key, e.Line, e.Line, j.Branch)
			switch e.Kind {
			case JSONObject, JSONArray:
			default:
				if !e.Dynamic {
					add("json:"+e.Key+"="+e.Value, e.Line, e.Line, j.Branch)
				}
			}
		}
	}
	for _, c := range f.EnvChecks {
		for _, v := range c.Vars {
			add("check-env:"+v, c.Line, c.Line, c.Branch)
		}
	}
	for _, s := range f.Sources {
		t := s.Target
		if i := strings.LastIndexByte(t, '/'); i >= 0 {
			t = t[i+1:]
		}
		add("source:"+t, s.Line, s.Line, s.Branch)
	}
	for _, p := range f.Patches {
		add("patch:"+string(p.Kind), p.Line, p.EndLine, p.Branch)
	}
	for _, o := range f.Overrides {
		add("override:"+string(o.Kind), o.Line, o.Line, o.Branch)
	}
	if len(out) == 0 {
		return nil
	}
	return dedupeAtoms(out)
}

// dedupeAtoms drops the atoms that repeat an earlier one's key, line and
// path (paths compared as rendered), keeping the first. Repeats are rare
// and must share a line, so sorting by line finds them without a set of
// every atom.
func dedupeAtoms(out []Atom) []Atom {
	var paths BranchStrings
	pathOf := func(p Branch) string {
		if paths == nil {
			paths = BranchStrings{}
		}
		return paths.Of(p)
	}
	idx := make([]int32, len(out))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(i, j int32) int {
		a, b := &out[i], &out[j]
		if a.Line != b.Line {
			return cmp.Compare(a.Line, b.Line)
		}
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		if c := strings.Compare(pathOf(a.Branch), pathOf(b.Branch)); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	var drop []bool
	for k := 1; k < len(idx); k++ {
		a, b := &out[idx[k-1]], &out[idx[k]]
		if a.Line == b.Line && a.Key == b.Key && pathOf(a.Branch) == pathOf(b.Branch) {
			if drop == nil {
				drop = make([]bool, len(out))
			}
			drop[idx[k]] = true
		}
	}
	if drop == nil {
		return out
	}
	kept := out[:0]
	for i, a := range out {
		if !drop[i] {
			kept = append(kept, a)
		}
	}
	return kept
}

// ExportedValue returns the static value an export puts in the
// environment: its own, or for a bare `export X` that of the last static
// assignment of X before it that can reach it.
func (f *Facts) ExportedValue(v Var) (string, bool) { return f.exportedValue(v) }

func (f *Facts) exportedValue(v Var) (string, bool) {
	if v.HasValue {
		return v.Value, v.Static && !v.Array
	}
	for i := len(f.Vars) - 1; i >= 0; i-- {
		a := f.Vars[i]
		if a.Name != v.Name || a.Line >= v.Line || a.Branch.Excludes(v.Branch) {
			continue
		}
		if a.Kind == Unset {
			return "", false
		}
		if a.HasValue && (a.Kind == Assign || a.Kind == Export) {
			return a.Value, a.Static && !a.Array
		}
	}
	return "", false
}
