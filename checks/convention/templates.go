package convention

import (
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// tmpl is one of the fixed shapes a convention may take. Nothing else is
// mined: an implication between two facts that no template relates (a
// flag and an unrelated env var, two exports on neighbouring lines) is a
// coincidence of habits as often as it is a requirement, and reporting it
// teaches authors to ignore the bot.
type tmpl uint8

const (
	// tObject: a component named in a JSON object (kv_connector, method,
	// backend) ⇒ a key of the same object.
	tObject tmpl = iota + 1
	// tFlagJSON: a JSON-valued server option ⇒ a key of its JSON.
	tFlagJSON
	// tFlagPair: a server option ⇒ a name-related option (a shared
	// content token) of the same command.
	tFlagPair
	// tArmEnv: a component named in a case arm or if branch ⇒ an
	// environment variable exported or unset in the same branch.
	tArmEnv
)

func (t tmpl) String() string {
	switch t {
	case tObject:
		return "object-key"
	case tFlagJSON:
		return "option-key"
	case tFlagPair:
		return "option-option"
	case tArmEnv:
		return "branch-env"
	}
	return "template?"
}

// identityKeys are the JSON keys whose value names the component an
// object configures.
var identityKeys = map[string]bool{
	"kv_connector": true, "connector": true, "method": true, "backend": true,
	"algorithm": true, "decoding_type": true,
}

// profile is what the templates see of one recipe: its component objects,
// the JSON values of its server options and its server commands, each
// with the line it is written on.
type profile struct {
	path   string
	family string
	engine script.Engine
	facts  *script.Facts
	// changed marks a sibling's head version, read because the PR
	// changes it (cited as "changed in this PR").
	changed bool

	objs  []*objInst
	jsons []*jsonInst
	cmds  []*cmdInst
}

// objInst is a JSON object that names its component.
type objInst struct {
	// slot is the option the config is passed to and the identity key's
	// path in the config ("--kv-transfer-config kv_connector"): objects
	// of one slot are alternatives of one another.
	slot  string
	value string
	// keys are the object's members other than the identity (normalized
	// names) with their lines.
	keys map[string]int
	line int
	// open is set when members may be invisible (the command splices
	// arrays the extractor could not resolve, which may add dotted keys).
	open bool
	cfg  *script.JSONConfig
	// path is where the config is written; arm whether that is inside a
	// case arm or if branch.
	path script.Branch
	arm  bool
	// binds are the exports and unsets ("export NAME", "unset NAME")
	// written in an enclosing branch that covers the object, with their
	// lines: what the branch does to the environment for this component.
	binds map[string]int
}

// jsonInst is the JSON value one server option gets on one path.
type jsonInst struct {
	flag string
	// keys are its top-level keys (normalized), dotted options included.
	keys map[string]int
	line int
	open bool
	cfg  *script.JSONConfig
}

// cmdInst is a server command.
type cmdInst struct {
	// flags are its options by canonical name, with their first line.
	flags map[string]int
	line  int
	// open is set when options may be invisible: spliced arrays that
	// could not be resolved, or positional words built from expansions.
	open bool
}

func (o *objInst) has(y string) bool  { _, ok := o.keys[y]; return ok }
func (j *jsonInst) has(y string) bool { _, ok := j.keys[y]; return ok }
func (c *cmdInst) has(y string) bool  { _, ok := c.flags[y]; return ok }

// extract builds the profile of a recipe. Only the server commands of the
// recipe's own engine count, and only the JSON they are passed: a client
// option's JSON is the benchmark's business.
func extract(f *script.Facts, changed bool) *profile {
	p := &profile{path: f.Path, family: family(f.Path), engine: f.Engine, facts: f, changed: changed}
	seenObj := map[*script.JSONConfig]bool{}
	for _, c := range f.Servers {
		if c.Engine != f.Engine {
			continue
		}
		ci := &cmdInst{flags: map[string]int{}, line: c.Line, open: openCommand(c)}
		p.cmds = append(p.cmds, ci)
		// Dotted options (--attention-config.backend X) are keys of
		// their option's JSON.
		dotted := map[string]map[string]int{}
		for _, fl := range c.Flags {
			name := canonFlag(fl.Name)
			if _, ok := ci.flags[name]; !ok {
				ci.flags[name] = fl.Line
			}
			if df, key, ok := dottedKey(fl.Name); ok {
				if dotted[df] == nil {
					dotted[df] = map[string]int{}
				}
				if _, ok := dotted[df][key]; !ok {
					dotted[df][key] = fl.Line
				}
			}
		}
		jsonOf := map[string]bool{}
		for _, fl := range c.Flags {
			if fl.JSON == nil || !fl.JSON.Parsed {
				continue
			}
			name := canonFlag(fl.Name)
			if _, _, ok := dottedKey(fl.Name); ok {
				continue
			}
			jsonOf[name] = true
			ji := &jsonInst{flag: name, keys: topKeys(fl.JSON), line: fl.Line, open: ci.open, cfg: fl.JSON}
			for k, l := range dotted[name] {
				if _, ok := ji.keys[k]; !ok {
					ji.keys[k] = l
				}
			}
			p.jsons = append(p.jsons, ji)
			if seenObj[fl.JSON] {
				continue
			}
			seenObj[fl.JSON] = true
			p.objs = append(p.objs, objects(f, name, fl.JSON, dotted[name], ci.open)...)
		}
		for name, keys := range dotted {
			if jsonOf[name] {
				continue
			}
			line := 0
			for _, l := range keys {
				if line == 0 || l < line {
					line = l
				}
			}
			p.jsons = append(p.jsons, &jsonInst{flag: name, keys: keys, line: line, open: ci.open})
		}
	}
	return p
}

// openCommand reports whether a command may carry options the facts do
// not show.
func openCommand(c *script.Command) bool {
	if len(c.Opaque) > 0 {
		return true
	}
	for i, a := range c.Args {
		// The first positional word is the model; later ones built from
		// expansions may be whole option lists ($EXTRA_ARGS).
		if i > 0 && !a.Static && strings.Contains(a.Text, "$") {
			return true
		}
	}
	for _, fl := range c.Flags {
		if n := canonFlag(fl.Name); n == "--config" {
			return true // options read from a file
		}
	}
	return false
}

// topKeys returns the members of a config's top-level object.
func topKeys(j *script.JSONConfig) map[string]int {
	out := map[string]int{}
	for _, e := range members(j, "") {
		k := normKey(e.Key)
		if _, ok := out[k]; !ok {
			out[k] = e.Line
		}
	}
	return out
}

// members returns the entries directly inside the object at key path at
// ("" for the top level), with keys relative to it.
func members(j *script.JSONConfig, at string) []script.JSONEntry {
	if at != "" {
		var out []script.JSONEntry
		for _, e := range j.Children(at) {
			e.Key = strings.TrimPrefix(e.Key, at+".")
			out = append(out, e)
		}
		return out
	}
	containers := map[string]bool{}
	for _, e := range j.Entries {
		if e.Kind == script.JSONObject || e.Kind == script.JSONArray {
			containers[e.Key] = true
		}
	}
	var out []script.JSONEntry
	for _, e := range j.Entries {
		if parentOf(e.Key, containers) == "" && !strings.HasPrefix(e.Key, "[") {
			out = append(out, e)
		}
	}
	return out
}

// parentOf returns the key path of the innermost container holding key
// ("" for a top-level key). Keys may contain dots themselves
// ("lmcache.mp.host"), so a prefix counts only when it is a container.
func parentOf(key string, containers map[string]bool) string {
	for i := len(key) - 1; i > 0; i-- {
		if (key[i] == '.' || key[i] == '[') && containers[key[:i]] {
			return key[:i]
		}
	}
	return ""
}

// objects returns the component objects of a config passed to flag.
func objects(f *script.Facts, flag string, j *script.JSONConfig, dotted map[string]int, open bool) []*objInst {
	containers := map[string]bool{}
	for _, e := range j.Entries {
		if e.Kind == script.JSONObject {
			containers[e.Key] = true
		}
	}
	var out []*objInst
	for _, e := range j.Entries {
		if e.Kind != script.JSONString || e.Dynamic || e.Value == "" {
			continue
		}
		at := parentOf(e.Key, containers)
		leaf := e.Key
		if at != "" {
			leaf = strings.TrimPrefix(e.Key, at+".")
		}
		if !identityKeys[normKey(leaf)] || strings.Contains(leaf, "[") {
			continue
		}
		o := &objInst{slot: flag + " " + normKey(e.Key), value: e.Value, keys: map[string]int{}, line: e.Line,
			open: open, cfg: j, path: j.Branch, arm: inBranch(j.Branch)}
		for _, m := range members(j, at) {
			if k := normKey(m.Key); k != normKey(leaf) {
				if _, ok := o.keys[k]; !ok {
					o.keys[k] = m.Line
				}
			}
		}
		if at == "" {
			for k, l := range dotted {
				if _, ok := o.keys[k]; !ok {
					o.keys[k] = l
				}
			}
		}
		o.binds = branchBinds(f, j.Branch)
		out = append(out, o)
	}
	return out
}

// inBranch reports whether a path is inside a case arm or if branch.
func inBranch(p script.Branch) bool {
	return slices.ContainsFunc(p, func(c script.Cond) bool { return c.Kind == script.CondCase || c.Kind == script.CondIf })
}

// branchBinds returns the exports and unsets written inside a branch
// that covers code at p: they run whenever p does, and only because of a
// condition p is under. Top-level bindings are every recipe's habit, not
// the component's.
func branchBinds(f *script.Facts, p script.Branch) map[string]int {
	if !inBranch(p) {
		return nil
	}
	var out map[string]int
	for _, v := range f.Vars {
		var key string
		switch v.Kind {
		case script.Export:
			key = "export " + v.Name
		case script.Unset:
			key = "unset " + v.Name
		default:
			continue
		}
		if !inBranch(v.Branch) || !f.Covers(v.Branch, p) {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		if _, ok := out[key]; !ok {
			out[key] = v.Line
		}
	}
	return out
}

// envDecided reports whether the recipe decides variable name wherever
// code at p runs (an export, an X=v prefix or an unset covering p), or
// may do so out of sight (a sourced file other than benchmark_lib.sh).
// Either way its absence cannot be claimed.
func envDecided(f *script.Facts, name string, p script.Branch) (line int, decided bool) {
	for _, v := range f.Vars {
		if v.Name != name || (v.Kind != script.Export && v.Kind != script.EnvPrefix && v.Kind != script.Unset) {
			continue
		}
		if f.Covers(v.Branch, p) {
			return v.Line, true
		}
	}
	for _, s := range f.Sources {
		if !s.Lib && s.Branch.Compatible(p) {
			return 0, true
		}
	}
	return 0, false
}
