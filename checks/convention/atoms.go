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

// rawAt indexes a script's atoms by (line, path) so that the valued and
// the bare spelling of one fact can be paired.
type rawAt struct {
	byPos map[string]map[string]bool // "line\x00path" → keys
}

func posKey(line int, p recipe.Path) string { return strconv.Itoa(line) + "\x00" + p.String() }

func indexRaw(atoms []recipe.Atom) rawAt {
	r := rawAt{byPos: map[string]map[string]bool{}}
	for _, a := range atoms {
		k := posKey(a.Line, a.Path)
		if r.byPos[k] == nil {
			r.byPos[k] = map[string]bool{}
		}
		r.byPos[k][a.Key] = true
	}
	return r
}

// valuedAt returns the value of the valued spelling of prefix+name at the
// atom's position ("" and false when the fact has no static value there).
func (r rawAt) valuedAt(a recipe.Atom, prefix, name string) (string, bool) {
	want := prefix + name + "="
	for k := range r.byPos[posKey(a.Line, a.Path)] {
		if strings.HasPrefix(k, want) {
			return k[len(want):], true
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
func buildVocab(all []*recipe.Facts) *vocab {
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
	for _, f := range all {
		atoms := f.Atoms()
		raw := indexRaw(atoms)
		for _, a := range atoms {
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
				} else if _, ok := raw.valuedAt(a, "env:", rest); !ok {
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
				if _, ok := raw.valuedAt(a, "json:", rest); !ok {
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

// constructs tags the atoms of a script with the construct they belong
// to, keyed like posKey plus the atom kind.
func constructs(f *recipe.Facts) (map[string]string, map[string]string) {
	m := map[string]string{}
	via := map[string]string{}
	put := func(kind string, line int, p recipe.Path, c string) {
		k := kind + "\x00" + posKey(line, p)
		if _, ok := m[k]; !ok {
			m[k] = c
		}
	}
	for i, c := range f.Servers {
		for _, fl := range c.Flags {
			put("flag", fl.Line, fl.Path, "s"+strconv.Itoa(i))
		}
	}
	for i, c := range f.Clients {
		for _, fl := range c.Flags {
			put("client-flag", fl.Line, fl.Path, "c"+strconv.Itoa(i))
		}
	}
	for i, j := range f.JSON {
		for _, e := range j.Entries {
			put("json", e.Line, j.Path, "j"+strconv.Itoa(i))
			if j.Flag != "" {
				via["json\x00"+posKey(e.Line, j.Path)] = "flag:" + recipe.NormFlag(j.Flag)
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
	out := fileAtoms{}
	if f == nil {
		return out
	}
	atoms := f.Atoms()
	raw := indexRaw(atoms)
	cons, via := constructs(f)
	seen := map[string]bool{}
	add := func(key string, a recipe.Atom, construct string) {
		k := key + "\x00" + posKey(a.Line, a.Path)
		if seen[k] {
			return
		}
		seen[k] = true
		o := occ{line: a.Line, end: a.EndLine, path: a.Path, construct: construct}
		if strings.HasPrefix(key, "json") {
			o.via = via["json\x00"+posKey(a.Line, a.Path)]
		}
		out[key] = append(out[key], o)
	}
	for _, a := range atoms {
		kind, rest := split(a.Key)
		switch kind {
		case "set":
			add(a.Key, a, "set")
		case "unset":
			add(a.Key, a, "")
		case "env":
			name, val, valued := strings.Cut(rest, "=")
			c, isConst := v.envConst[name]
			switch {
			case valued && isConst:
				add("env:"+name+"="+val, a, "")
			case valued:
				// The bare spelling at the same position carries it.
			case isConst:
				if _, ok := raw.valuedAt(a, "env:", name); !ok {
					// A dynamic value may well be the constant: give the
					// benefit of the doubt rather than report it missing.
					add("env:"+name+"="+c, a, "")
				}
			default:
				add(a.Key, a, "")
			}
		case "flag", "client-flag":
			if strings.Contains(rest, "=") {
				continue
			}
			add(a.Key, a, cons[kind+"\x00"+posKey(a.Line, a.Path)])
		case "json-key":
			con := cons["json\x00"+posKey(a.Line, a.Path)]
			if c, isConst := v.jsonConst[rest]; isConst {
				if _, ok := raw.valuedAt(a, "json:", rest); !ok {
					add("json:"+rest+"="+c, a, con)
				}
				continue
			}
			add(a.Key, a, con)
		case "json":
			k, val, _ := strings.Cut(rest, "=")
			con := cons["json\x00"+posKey(a.Line, a.Path)]
			if _, isConst := v.jsonConst[k]; isConst || v.jsonVals[k][val] {
				add(a.Key, a, con)
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

// derived reports whether y holds by construction wherever x does: the
// same fact spelled differently, or a JSON key's parent object.
func derived(x, y string) bool {
	if subject(x) == subject(y) {
		return true
	}
	xk, xr := split(x)
	yk, yr := split(y)
	if (xk == "json" || xk == "json-key") && yk == "json-key" {
		xKey, _, _ := strings.Cut(xr, "=")
		return strings.HasPrefix(xKey, yr+".") || strings.HasPrefix(xKey, yr+"[")
	}
	return false
}
