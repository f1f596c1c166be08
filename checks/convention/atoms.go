package convention

import (
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/recipe"
)

// occ is one occurrence of an atom in a script.
type occ struct {
	line, end int
	path      recipe.Path
	// pathStr is path.String(), rendered once: mining compares paths by
	// their text many times.
	pathStr string
	// construct names the syntactic thing the atom belongs to ("s0" for
	// the first server command, "j2" for the third JSON config, "set"
	// for the strict-mode line); "" for atoms that stand alone (exports,
	// unsets). Two atoms of one construct are written together, which is
	// evidence that they belong together.
	construct string
	// via is, for a JSON atom, the flag atom the JSON is passed to
	// ("flag:--kv-transfer-config"): that flag holds by construction.
	via string
}

// fileAtoms maps a normalized atom key to its occurrences in one script.
type fileAtoms map[string][]occ

// vocab decides how a sibling group's atoms are spelled for mining.
//
// Values are the hard part: most of them name a model, a path or a tuned
// number and differ per file, so an implication on them would be noise.
// A value is kept only where it is a small constant the group shares: an
// env var or JSON key that every sibling sets to the same literal
// (VLLM_USE_SIMPLE_KV_OFFLOAD=1, "lazy_offload": true), or a categorical
// JSON value (a connector name) that several siblings use. Flags are
// compared by name only.
type vocab struct {
	// envConst and jsonConst hold the one value the group ever gives the
	// variable or key; such atoms are spelled with the value and the bare
	// name is dropped (they would be the same fact twice).
	envConst  map[string]string
	jsonConst map[string]string
	// jsonVals are the categorical values kept for keys with several.
	jsonVals map[string]map[string]bool
}

const maxConstLen = 64

// smallConst reports whether a value can be part of a convention: short,
// one word, not a path or a model name.
func smallConst(v string) bool {
	return v != "" && len(v) <= maxConstLen && !strings.ContainsAny(v, "/ \t\n\"'$`")
}

func isNumber(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil
}

// pos is where a fact sits: its line and its path (compared as
// rendered, so that equal conditions written apart are one place).
type pos struct {
	line int
	path string
}

// rawAtoms are a script's atoms indexed by position, so that the valued
// and the bare spelling of one fact can be paired. One is built per
// script and shared by the vocabulary and the atom normalization.
type rawAtoms struct {
	f     *recipe.Facts
	atoms []recipe.Atom
	// at is the position of each atom. The atoms at one position are a
	// chain in atom order: first[pos] is the first, next[i] the one after
	// atom i (-1 ends it).
	at    []pos
	first map[pos]int32
	next  []int32
	paths recipe.PathStrings
}

func indexRaw(f *recipe.Facts) *rawAtoms {
	r := &rawAtoms{f: f, paths: recipe.PathStrings{}}
	if f == nil {
		return r
	}
	r.atoms = f.Atoms()
	r.at = make([]pos, len(r.atoms))
	r.next = make([]int32, len(r.atoms))
	r.first = make(map[pos]int32, len(r.atoms))
	for i, a := range r.atoms {
		r.at[i] = pos{a.Line, r.paths.Of(a.Path)}
	}
	for i := len(r.atoms) - 1; i >= 0; i-- {
		if j, ok := r.first[r.at[i]]; ok {
			r.next[i] = j
		} else {
			r.next[i] = -1
		}
		r.first[r.at[i]] = int32(i)
	}
	return r
}

// valuedAt returns the value of the valued spelling of prefix+name at
// atom i's position ("" and false when the fact has no static value
// there).
func (r *rawAtoms) valuedAt(i int, prefix, name string) (string, bool) {
	n := len(prefix) + len(name)
	for j := r.first[r.at[i]]; j >= 0; j = r.next[j] {
		k := r.atoms[j].Key
		if len(k) > n && k[n] == '=' && k[:len(prefix)] == prefix && k[len(prefix):n] == name {
			return k[n+1:], true
		}
	}
	return "", false
}

// split returns the kind ("env", "json", "flag", ...) and the rest of an
// atom key.
func split(key string) (kind, rest string) {
	kind, rest, _ = strings.Cut(key, ":")
	return kind, rest
}

// buildVocab looks at every script of a group.
func buildVocab(all []*rawAtoms) *vocab {
	type seen struct {
		vals    map[string]map[string]bool // value → files
		dynamic bool
	}
	env := map[string]*seen{}
	js := map[string]*seen{}
	get := func(m map[string]*seen, k string) *seen {
		s := m[k]
		if s == nil {
			s = &seen{vals: map[string]map[string]bool{}}
			m[k] = s
		}
		return s
	}
	for _, raw := range all {
		f := raw.f
		for i, a := range raw.atoms {
			kind, rest := split(a.Key)
			switch kind {
			case "env":
				if strings.Contains(rest, "=") {
					name, v, _ := strings.Cut(rest, "=")
					s := get(env, name)
					if s.vals[v] == nil {
						s.vals[v] = map[string]bool{}
					}
					s.vals[v][f.Path] = true
				} else if _, ok := raw.valuedAt(i, "env:", rest); !ok {
					get(env, rest).dynamic = true
				}
			case "json":
				k, v, _ := strings.Cut(rest, "=")
				s := get(js, k)
				if s.vals[v] == nil {
					s.vals[v] = map[string]bool{}
				}
				s.vals[v][f.Path] = true
			case "json-key":
				if _, ok := raw.valuedAt(i, "json:", rest); !ok {
					get(js, rest).dynamic = true
				}
			}
		}
	}
	v := &vocab{envConst: map[string]string{}, jsonConst: map[string]string{}, jsonVals: map[string]map[string]bool{}}
	constOf := func(s *seen) (string, bool) {
		if s.dynamic || len(s.vals) != 1 {
			return "", false
		}
		for val := range s.vals {
			return val, smallConst(val)
		}
		return "", false
	}
	for name, s := range env {
		if c, ok := constOf(s); ok {
			v.envConst[name] = c
		}
	}
	for k, s := range js {
		if c, ok := constOf(s); ok {
			v.jsonConst[k] = c
			continue
		}
		for val, files := range s.vals {
			if len(files) >= 2 && smallConst(val) && !isNumber(val) {
				if v.jsonVals[k] == nil {
					v.jsonVals[k] = map[string]bool{}
				}
				v.jsonVals[k][val] = true
			}
		}
	}
	return v
}

// kindPos is an atom kind at a position.
type kindPos struct {
	kind string
	pos  pos
}

// constructs tags the atoms of a script with the construct they belong
// to, by kind and position, and the JSON atoms with the flag their config
// is passed to.
func constructs(f *recipe.Facts, paths recipe.PathStrings) (map[kindPos]string, map[pos]string) {
	m := map[kindPos]string{}
	via := map[pos]string{}
	put := func(kind string, line int, p recipe.Path, c string) {
		k := kindPos{kind, pos{line, paths.Of(p)}}
		if _, ok := m[k]; !ok {
			m[k] = c
		}
	}
	for i, c := range f.Servers {
		name := "s" + strconv.Itoa(i)
		for _, fl := range c.Flags {
			put("flag", fl.Line, fl.Path, name)
		}
	}
	for i, c := range f.Clients {
		name := "c" + strconv.Itoa(i)
		for _, fl := range c.Flags {
			put("client-flag", fl.Line, fl.Path, name)
		}
	}
	for i, j := range f.JSON {
		name := "j" + strconv.Itoa(i)
		flag := ""
		if j.Flag != "" {
			flag = "flag:" + recipe.NormFlag(j.Flag)
		}
		for _, e := range j.Entries {
			put("json", e.Line, j.Path, name)
			if flag != "" {
				via[pos{e.Line, paths.Of(j.Path)}] = flag
			}
		}
	}
	return m, via
}

// atomsOf normalizes a script's atoms with the group's vocabulary. Facts
// that are not conventions of their own are left out: the server and
// client programs (the engine defines the group), sourced files and
// check_env_vars (structural, identical everywhere), patches and
// overrides (SH011/SH012 judge those).
func atomsOf(f *recipe.Facts, v *vocab) fileAtoms {
	return atomsOfRaw(indexRaw(f), v)
}

// atomsOfRaw is atomsOf for a script already indexed.
func atomsOfRaw(raw *rawAtoms, v *vocab) fileAtoms {
	out := fileAtoms{}
	f := raw.f
	if f == nil {
		return out
	}
	cons, via := constructs(f, raw.paths)
	add := func(key string, i int, construct string) {
		a, at := raw.atoms[i], raw.at[i]
		// One occurrence per key and position.
		for _, o := range out[key] {
			if o.line == at.line && o.pathStr == at.path {
				return
			}
		}
		o := occ{line: a.Line, end: a.EndLine, path: a.Path, pathStr: at.path, construct: construct}
		if strings.HasPrefix(key, "json") {
			o.via = via[at]
		}
		out[key] = append(out[key], o)
	}
	for i, a := range raw.atoms {
		kind, rest := split(a.Key)
		switch kind {
		case "set":
			add(a.Key, i, "set")
		case "unset":
			add(a.Key, i, "")
		case "env":
			name, val, valued := strings.Cut(rest, "=")
			c, isConst := v.envConst[name]
			switch {
			case valued && isConst:
				add("env:"+name+"="+val, i, "")
			case valued:
				// The bare spelling at the same position carries it.
			case isConst:
				if _, ok := raw.valuedAt(i, "env:", name); !ok {
					// A dynamic value may well be the constant: give the
					// benefit of the doubt rather than report it missing.
					add("env:"+name+"="+c, i, "")
				}
			default:
				add(a.Key, i, "")
			}
		case "flag", "client-flag":
			if strings.Contains(rest, "=") {
				continue
			}
			add(a.Key, i, cons[kindPos{kind, raw.at[i]}])
		case "json-key":
			con := cons[kindPos{"json", raw.at[i]}]
			if c, isConst := v.jsonConst[rest]; isConst {
				if _, ok := raw.valuedAt(i, "json:", rest); !ok {
					add("json:"+rest+"="+c, i, con)
				}
				continue
			}
			add(a.Key, i, con)
		case "json":
			k, val, _ := strings.Cut(rest, "=")
			con := cons[kindPos{"json", raw.at[i]}]
			if _, isConst := v.jsonConst[k]; isConst || v.jsonVals[k][val] {
				add(a.Key, i, con)
			}
		}
	}
	return out
}

// subject is what an atom is about, without its value: env:NAME,
// json:KEY, flag:--name. Two atoms with one subject judge the same fact.
func subject(key string) string {
	kind, rest := split(key)
	switch kind {
	case "env":
		name, _, _ := strings.Cut(rest, "=")
		return "env:" + name
	case "json", "json-key":
		k, _, _ := strings.Cut(rest, "=")
		return "json:" + k
	case "flag", "client-flag":
		name, _, _ := strings.Cut(rest, "=")
		return kind + ":" + name
	}
	return key
}

// parentKey reports whether y is a JSON object holding x's key.
func parentKey(x, y string) bool {
	xk, xr := split(x)
	yk, yr := split(y)
	if (xk == "json" || xk == "json-key") && yk == "json-key" {
		xKey, _, _ := strings.Cut(xr, "=")
		return strings.HasPrefix(xKey, yr+".") || strings.HasPrefix(xKey, yr+"[")
	}
	return false
}
