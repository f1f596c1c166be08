package sheval

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// Simple commands: assignments, builtins the evaluator models, runs of
// scripts and recipes, function calls and sourced files.

func (w *walker) assign(a *syntax.Assign, st *state, exported bool) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	old, had := st.vars.get(name)
	exp := exported || had && old.Exported
	at := w.loc(a)
	switch {
	case a.Array != nil:
		var list, deps []string
		known := true
		for _, el := range a.Array.Elems {
			if el.Value == nil {
				continue
			}
			for _, f := range w.valueFields([]*syntax.Word{el.Value}, st) {
				s := f.s
				if !f.known {
					known, s = false, hole
				}
				list = append(list, s)
				deps = append(deps, f.deps...)
			}
		}
		// Unknown elements leave holes: the known ones (`-f "$CONFIG_FILE"`
		// next to `--tags "$(date)"`) can still be read.
		lost := false
		if a.Append && had && old.Set {
			switch {
			case old.Known && old.IsList:
			case old.partial:
				known = false
			case old.Known && !old.IsList && old.Str == "":
			default:
				known, lost = false, true
			}
			list = append(append([]string{}, old.List...), list...)
			deps = append(deps, old.deps...)
		}
		partial := !known && !lost && len(list) <= 256
		v := Value{List: list, IsList: true, Set: true, Known: known, Exported: exp, At: at, deps: compactDeps(deps), partial: partial}
		if !known && !v.partial {
			v.List = nil
		}
		st.vars.set(name, v)
	case a.Index != nil:
		st.vars.set(name, Value{Set: true, IsList: true, Exported: exp, At: at})
	default:
		s, ok, deps := w.valueWord(a.Value, st)
		if a.Append && had {
			ok = ok && old.Known
			s = old.Str + s
			deps = append(deps, old.deps...)
		}
		v := Value{Str: s, Set: true, Known: ok, Exported: exp, At: at, deps: compactDeps(deps)}
		if !ok {
			v.Str = ""
		}
		st.vars.set(name, v)
	}
}

// plainParam returns NAME for a word that is exactly $NAME or "$NAME".
func plainParam(wd *syntax.Word) string {
	if wd == nil || len(wd.Parts) != 1 {
		return ""
	}
	part := wd.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok {
		if len(dq.Parts) != 1 {
			return ""
		}
		part = dq.Parts[0]
	}
	pe, ok := part.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Exp != nil || pe.Repl != nil || pe.Slice != nil || pe.Index != nil || pe.Length || pe.Excl || pe.Short && !syntax.ValidName(pe.Param.Value) {
		return ""
	}
	if !syntax.ValidName(pe.Param.Value) {
		return ""
	}
	return pe.Param.Value
}

// compactDeps sorts and dedupes dependency keys.
func compactDeps(d []string) []string {
	if len(d) < 2 {
		return d
	}
	slices.Sort(d)
	return slices.Compact(d)
}

func (w *walker) decl(c *syntax.DeclClause, st *state) []outcome {
	variant := ""
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	exported := variant == "export"
	for _, a := range c.Args {
		if a.Name == nil && a.Value != nil {
			lit := a.Value.Lit()
			if strings.HasPrefix(lit, "-") && strings.ContainsAny(lit, "fF") {
				return []outcome{{st, triTrue}}
			}
			if strings.HasPrefix(lit, "-") && strings.Contains(lit, "x") {
				exported = true
			}
		}
	}
	for _, a := range c.Args {
		if a.Name == nil {
			continue
		}
		if a.Naked {
			v, ok := st.vars.get(a.Name.Value)
			if exported && !v.Exported {
				w.status(st, a.Name.Value)
				v.Exported = true
				v.input = false
			}
			if !ok && (variant == "local" || variant == "declare" || variant == "typeset") {
				v = Value{Exported: exported, At: w.loc(a)}
			}
			st.vars.set(a.Name.Value, v)
			continue
		}
		w.assign(a, st, exported)
	}
	return []outcome{{st, triTrue}}
}

// call walks a simple command.
func (w *walker) call(c *syntax.CallExpr, st *state) []outcome {
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			w.assign(a, st, false)
		}
		return []outcome{{st, triTrue}}
	}
	name := c.Args[0].Lit()
	if name == "[" || name == "test" {
		return []outcome{{st, w.bracketTest(c, st)}}
	}
	if name != "" && !w.followed(name) {
		// A program the evaluator does not model (echo, sed, vllm, ...):
		// its arguments matter for what they require and run, and for
		// which inputs reach a program at all (see Result.Effects).
		if w.ev.Calls != nil && w.ev.Calls(name) {
			w.record(c, w.fields(c.Args, st), st)
		} else {
			for _, a := range c.Args[1:] {
				w.checkReads(a, st)
				w.subRuns(a, st)
			}
		}
		if !logging(name) {
			w.effect(c.Args[1:], st)
		}
		return []outcome{{st, triUnknown}}
	}
	var fs []field
	if _, isFunc := w.funcs[name]; isFunc {
		fs = w.valueFields(c.Args, st)
	} else {
		fs = w.fields(c.Args, st)
	}
	// X=v cmd: v is in cmd's environment only.
	var env Env
	if len(c.Assigns) > 0 {
		tmp := &state{vars: st.vars.clone(), cwd: st.cwd, nounset: st.nounset}
		for _, a := range c.Assigns {
			w.assign(a, tmp, true)
		}
		env = tmp.vars.env()
	} else if needsEnv(name) {
		env = st.vars.env()
	}
	if len(fs) == 0 {
		return []outcome{{st, triTrue}}
	}
	if name == "" && (!fs[0].known || !w.followed(fs[0].s) && !logging(fs[0].s)) {
		// "${CMD[@]}": a program spliced from an array (or one the
		// evaluator cannot name); its arguments' inputs reach it.
		for _, f := range fs {
			for _, d := range f.deps {
				w.effects[d] = true
			}
		}
		if fs[0].known && w.ev.Calls != nil && w.ev.Calls(fs[0].s) {
			w.record(c, fs, st)
		}
	}
	if !fs[0].known {
		return []outcome{{st, triUnknown}}
	}
	argv := fs
	at := w.loc(c)
	switch argv[0].s {
	case "true", ":":
		return []outcome{{st, triTrue}}
	case "false":
		return []outcome{{st, triFalse}}
	case "exit":
		code := "?"
		if len(argv) > 1 {
			code = argv[1].s
			if !argv[1].known {
				code = "?"
			}
		}
		st.done = true
		if code != "0" && code != "?" {
			st.exit = &Exit{At: at, Code: code}
		}
		return []outcome{{st, triFalse}}
	case "return":
		st.done, st.returned = true, true
		return []outcome{{st, triUnknown}}
	case "set":
		w.setOpts(argv, st)
		return []outcome{{st, triTrue}}
	case "unset":
		for _, a := range argv[1:] {
			if a.known && syntax.ValidName(a.s) {
				st.vars.set(a.s, Value{At: at})
			}
		}
		return []outcome{{st, triTrue}}
	case "cd":
		if len(argv) < 2 || !argv[1].known {
			st.cwd = "?"
			if len(argv) == 2 {
				if name := plainParam(argv[1].src); name != "" {
					// cd "$SRT_REPO_DIR" of a directory whose path the
					// bot cannot know (a clone on a shared file system):
					// a directory outside the tree, named by the
					// variable, so that what the launcher copies into it
					// and then runs from it can still be followed.
					st.cwd = "ext:${" + name + "}"
				}
			}
			return []outcome{{st, triUnknown}}
		}
		r := w.resolve(argv[1].s, st)
		st.cwd = r
		if r != "?" && !strings.HasPrefix(r, "ext:") {
			// A directory of the tree, or one the job makes at run time
			// (a clone): that one is outside the tree.
			if s, err := w.stat(r); err != nil || !s.Dir || slices.Contains(st.made, r) {
				st.cwd = "ext:" + r
			}
		}
		return []outcome{{st, triUnknown}}
	case "mkdir", "touch":
		for _, a := range argv[1:] {
			if a.known && !strings.HasPrefix(a.s, "-") {
				st.made = append(st.made, w.resolve(a.s, st))
			}
		}
		return []outcome{{st, triUnknown}}
	case "cp", "rsync":
		w.copyCmd(argv, st)
		return []outcome{{st, triUnknown}}
	case "check_env_vars":
		for _, a := range argv[1:] {
			if !a.known || !syntax.ValidName(a.s) {
				continue
			}
			w.status(st, a.s)
			w.checked(a.s, c, "check_env_vars")
			x, ok := env[a.s]
			unset := !ok && (w.ev.Unknown == nil || !w.ev.Unknown(a.s)) || ok && !x.Set
			empty := ok && x.Set && x.Known && !x.IsList && x.Str == ""
			if unset || empty {
				w.require(st, a.s, c, "check_env_vars")
			}
		}
		return []outcome{{st, triUnknown}}
	case "source", ".":
		return w.source(argv, st, at)
	case "exec":
		if len(argv) == 1 {
			return []outcome{{st, triTrue}} // exec with redirections only
		}
		outs := w.command(argv[1:], c, st, env, at)
		for i := range outs {
			outs[i].st.done = true
		}
		return outs
	case "eval":
		return []outcome{{st, triUnknown}}
	}
	return w.command(argv, c, st, env, at)
}

func (w *walker) setOpts(argv []field, st *state) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !a.known || len(a.s) < 2 || a.s[0] != '-' && a.s[0] != '+' {
			continue
		}
		on := a.s[0] == '-'
		for _, ch := range a.s[1:] {
			switch ch {
			case 'u':
				st.nounset = on
			case 'o':
				if i+1 < len(argv) && argv[i+1].s == "nounset" {
					st.nounset = on
				}
			}
		}
	}
}

// copyCmd records cp SRC DST of a tree directory or file into another
// place, so that a recipe path under DST maps back to the tree.
func (w *walker) copyCmd(argv []field, st *state) {
	var operands []field
	targetDir := false
	for _, a := range argv[1:] {
		if !a.known {
			operands = append(operands, a)
			continue
		}
		if strings.HasPrefix(a.s, "-") {
			if strings.Contains(a.s, "T") || a.s == "--no-target-directory" {
				targetDir = true
			}
			continue
		}
		operands = append(operands, a)
	}
	if len(operands) != 2 || !operands[0].known || !operands[1].known {
		return
	}
	src := w.resolve(operands[0].s, st)
	tp, ok := st.treePath(src)
	if !ok {
		return
	}
	dst := w.resolve(operands[1].s, st)
	if dst == "?" {
		return
	}
	if !targetDir {
		for _, m := range st.made {
			if m == dst {
				dst = dst + "/" + path.Base(tp)
				break
			}
		}
	}
	st.copies = append(st.copies, [2]string{dst, tp})
	st.made = append(st.made, dst)
}

// source walks a sourced file of the tree in the current state.
func (w *walker) source(argv []field, st *state, at Loc) []outcome {
	if len(argv) < 2 || !argv[1].known {
		return []outcome{{st, triUnknown}}
	}
	r := w.resolve(argv[1].s, st)
	tp, ok := st.treePath(r)
	if !ok || w.depth >= w.ev.maxDepth() {
		return []outcome{{st, triUnknown}}
	}
	f, err := w.ev.Files.Parse(tp)
	w.noteSource(tp)
	if err != nil {
		return []outcome{{st, triUnknown}}
	}
	return w.nested(tp, func() []outcome {
		old, _ := st.vars.get("BASH_SOURCE")
		st.vars.set("BASH_SOURCE", Value{List: []string{Workspace + "/" + tp}, IsList: true, Set: true, Known: true})
		outs := w.block(f.Stmts, st)
		for _, o := range outs {
			o.st.vars.set("BASH_SOURCE", old)
			// return ends the sourced file, not the caller.
			if o.st.returned {
				o.st.done, o.st.returned = false, false
			}
		}
		return outs
	})
}

// nested walks in another file, one level deeper.
func (w *walker) nested(file string, fn func() []outcome) []outcome {
	oldFile := w.file
	w.file = file
	w.depth++
	defer func() { w.file = oldFile; w.depth-- }()
	return fn()
}

// command handles a program run: a function of the script, a shell
// running a script, a wrapper (srun, docker, timeout, ...) around one,
// srtctl with a recipe, or anything else (status unknown).
func (w *walker) command(argv []field, c *syntax.CallExpr, st *state, env Env, at Loc) []outcome {
	prog := path.Base(argv[0].s)
	if fn, ok := w.funcs[argv[0].s]; ok {
		return w.callFunc(fn, argv, st)
	}
	switch prog {
	case "bash", "sh":
		w.shellRun(argv, c, st, env, at, nil)
		return []outcome{{st, triUnknown}}
	case "srtctl":
		for i := 1; i+1 < len(argv); i++ {
			if argv[i].s == "-f" || argv[i].s == "--file" {
				w.addRun(st, RunRecipe, argv[i+1], nil, env, true, at)
			}
		}
		return []outcome{{st, triUnknown}}
	}
	if isWrapper(prog) {
		w.wrapped(prog, argv, c, st, env, at)
	}
	return []outcome{{st, triUnknown}}
}

// isWrapper reports whether a program runs another command given in its
// arguments.
func isWrapper(prog string) bool {
	switch prog {
	case "srun", "sbatch", "salloc", "timeout", "env", "nohup", "stdbuf", "time", "taskset", "numactl",
		"docker", "podman", "enroot", "singularity", "apptainer", "sudo", "flock", "xargs", "nice", "setsid":
		return true
	}
	return false
}

// wrapped finds the script a wrapper runs: `bash X` / `bash -c "..."`
// among its arguments, or a benchmark script path given directly (docker
// run IMAGE benchmarks/x.sh with a bash entrypoint).
func (w *walker) wrapped(prog string, argv []field, c *syntax.CallExpr, st *state, env Env, at Loc) {
	ctx := w.containerOf(prog, argv, env, st)
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !a.known {
			continue
		}
		if isShellProgram(a.s) {
			w.shellRun(argv[i:], c, st, ctx.env, at, ctx)
			return
		}
		if strings.HasSuffix(a.s, ".sh") && !strings.HasPrefix(a.s, "-") && !strings.Contains(a.s, "=") {
			if p, wh := w.locate(a.s, st, ctx); wh == inTree || wh == inCopy {
				w.addRunPath(st, RunScript, a, p, ctx.env, ctx.all, at, wh == inCopy)
				return
			}
		}
	}
}

// isShellProgram reports whether a word names bash or sh as a program.
func isShellProgram(s string) bool {
	if strings.HasPrefix(s, "-") || strings.Contains(s, "=") {
		return false
	}
	b := path.Base(s)
	return b == "bash" || b == "sh"
}

// container is what a wrapper does to the run's view: the env it passes
// and the mounts it maps the workspace to.
type container struct {
	env Env
	// all is set when the env is every exported variable (not a list).
	all    bool
	mounts [][2]string // container dir, host dir
	wd     string
	// inside is set when the command runs in a container (a mount or a
	// working directory is given); opaque when one of them is unknown, so
	// no path inside can be told.
	inside, opaque bool
}

// containerOf reads the env and mounts of docker/srun-style arguments.
func (w *walker) containerOf(prog string, argv []field, env Env, st *state) *container {
	ct := &container{env: env, all: true}
	switch prog {
	case "docker", "podman":
		passed := Env{}
		all := false
		for i := 1; i < len(argv); i++ {
			a := argv[i].s
			val := ""
			switch {
			case a == "-e" || a == "--env":
				if i+1 < len(argv) {
					i++
					val = argv[i].s
					if !argv[i].known {
						all = true
					}
				}
			case strings.HasPrefix(a, "--env="):
				val = strings.TrimPrefix(a, "--env=")
			case a == "--env-file" || strings.HasPrefix(a, "--env-file="):
				all = true
			case a == "-v" || a == "--volume":
				if i+1 < len(argv) {
					i++
					ct.addMount(argv[i].s, argv[i].known)
				}
			case strings.HasPrefix(a, "--volume="):
				ct.addMount(strings.TrimPrefix(a, "--volume="), argv[i].known)
			case a == "-w" || a == "--workdir":
				if i+1 < len(argv) {
					i++
					ct.setWorkdir(argv[i].s, argv[i].known)
				}
			case strings.HasPrefix(a, "--workdir="):
				ct.setWorkdir(strings.TrimPrefix(a, "--workdir="), argv[i].known)
			}
			if val == "" {
				continue
			}
			if k, v, ok := strings.Cut(val, "="); ok {
				passed[k] = Str(v)
			} else {
				w.status(st, val)
				if x, ok := env[val]; ok {
					x.Exported = true
					passed[val] = x
				}
			}
		}
		if all {
			ct.env = unknownEnv(env)
		} else {
			ct.env, ct.all = passed, false
		}
	case "srun", "salloc", "sbatch", "enroot", "singularity", "apptainer":
		for _, f := range argv[1:] {
			a := f.s
			switch {
			case strings.HasPrefix(a, "--container-mounts="):
				for _, m := range w.listParts(f, "--container-mounts=", st) {
					ct.addMount(m.s, m.known)
				}
			case strings.HasPrefix(a, "--container-workdir="):
				ct.setWorkdir(strings.TrimPrefix(a, "--container-workdir="), f.known)
			case strings.HasPrefix(a, "--container-image="):
				ct.inside = true
			case strings.HasPrefix(a, "--export="):
				spec := strings.TrimPrefix(a, "--export=")
				if !f.known {
					ct.env = unknownEnv(env)
					continue
				}
				parts := strings.Split(spec, ",")
				var out Env
				switch parts[0] {
				case "ALL":
					out = exportedOnly(env)
				case "NONE", "NIL":
					out, ct.all = Env{}, false
				default:
					out, ct.all = Env{}, false
					for _, name := range parts {
						if strings.Contains(name, "=") {
							continue
						}
						w.status(st, name)
						if x, ok := env[name]; ok {
							out[name] = x
						}
					}
				}
				for _, p := range parts[1:] {
					if k, v, ok := strings.Cut(p, "="); ok {
						out[k] = Str(v)
					}
				}
				ct.env = out
			}
		}
	}
	return ct
}

// listParts splits a comma-separated option value into its elements.
// A value that depends on something unknown is split in its source and
// each element expanded on its own, so that `$MODEL_PATH:$MODEL_PATH`
// does not hide `$GITHUB_WORKSPACE:/workspace` next to it.
func (w *walker) listParts(f field, prefix string, st *state) []field {
	if f.known {
		var out []field
		for _, p := range strings.Split(strings.TrimPrefix(f.s, prefix), ",") {
			out = append(out, field{s: p, known: true})
		}
		return out
	}
	src := strings.TrimPrefix(f.s, prefix)
	if src == f.s || len(src) > 4096 {
		return []field{f}
	}
	var out []field
	for _, part := range splitTopLevel(src, ',') {
		fl, err := script.ParseLine(": " + part)
		if err != nil || len(fl.Stmts) != 1 {
			out = append(out, field{s: part})
			continue
		}
		call, ok := fl.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) != 2 {
			out = append(out, field{s: part})
			continue
		}
		fs := w.valueFields(call.Args[1:], st)
		if len(fs) != 1 {
			out = append(out, field{s: part})
			continue
		}
		out = append(out, fs[0])
	}
	return out
}

// splitTopLevel splits s at sep outside quotes, ${...}, $(...) and
// backquotes.
func splitTopLevel(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && quote != '\'':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '{' || c == '(':
			depth++
		case c == '}' || c == ')':
			if depth > 0 {
				depth--
			}
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func (ct *container) addMount(spec string, known bool) {
	ct.inside = true
	if !known {
		// A mount whose container side is unknown could shadow any
		// path; one whose host side alone is unknown maps only its own
		// directory, which the evaluator then cannot follow.
		// `$X:$X` mounts a host directory at its own path, which is not
		// where the workspace is mounted.
		host, ctr, ok := strings.Cut(spec, ":")
		if i := strings.IndexByte(ctr, ':'); i >= 0 {
			ctr = ctr[:i]
		}
		switch {
		case ok && host == ctr:
		case !ok || strings.ContainsAny(ctr, "$`"):
			ct.opaque = true
		default:
			ct.mounts = append(ct.mounts, [2]string{path.Clean(ctr), "?"})
		}
		return
	}
	host, ctr, ok := strings.Cut(spec, ":")
	if !ok {
		return
	}
	if i := strings.IndexByte(ctr, ':'); i >= 0 {
		ctr = ctr[:i] // :ro, :rw
	}
	ct.mounts = append(ct.mounts, [2]string{path.Clean(ctr), path.Clean(host)})
}

func (ct *container) setWorkdir(wd string, known bool) {
	ct.inside = true
	if !known {
		ct.opaque = true
	}
	ct.wd = wd
}

// unknownEnv is an env in which every variable may be anything.
func unknownEnv(env Env) Env {
	out := Env{}
	for k, v := range env {
		if v.Exported {
			out[k] = Value{Set: true, Exported: true, At: v.At}
		}
	}
	return out
}

// exported is exportedOnly(env), shared by the runs that get the same
// env: a run's Env is never written.
func (w *walker) exported(env Env) Env {
	if w.exportedIn == nil || !sameEnv(env, w.exportedIn) {
		w.exportedIn, w.exportedOut = env, exportedOnly(env)
	}
	return w.exportedOut
}

func exportedOnly(env Env) Env {
	out := Env{}
	for k, v := range env {
		if v.Exported {
			out[k] = v
		}
	}
	return out
}

// where says where a path a command names lies.
type where uint8

const (
	inTree where = iota + 1
	// inCopy is a path of a directory outside the tree that the script
	// filled from the tree (cp -rT tree/dir clone/dir): a file the tree
	// lacks may still be there, from the clone.
	inCopy
	outside
	unknownWhere
)

// locate resolves a path a command names: in the tree (with its tree
// path), outside it, or unknown. Inside a container the path is mapped
// back to the host through the mounts; a path no mount covers is the
// image's own.
func (w *walker) locate(p string, st *state, ct *container) (string, where) {
	host := p
	if ct != nil && ct.inside {
		if ct.opaque {
			return "", unknownWhere
		}
		if !strings.HasPrefix(p, "/") {
			if ct.wd == "" {
				return "", unknownWhere
			}
			p = path.Join(ct.wd, p)
		}
		host = ""
		for _, m := range ct.mounts {
			if p == m[0] || strings.HasPrefix(p, m[0]+"/") {
				if m[1] == "?" {
					return "", unknownWhere
				}
				host = path.Join(m[1], strings.TrimPrefix(p, m[0]))
				break
			}
		}
		if host == "" {
			return "", outside
		}
	}
	r := w.resolve(host, st)
	if r == "?" {
		return "", unknownWhere
	}
	if tp, ok := st.treePath(r); ok {
		if strings.HasPrefix(r, "ext:") {
			return tp, inCopy
		}
		return tp, inTree
	}
	return "", outside
}

// shellRun handles `bash [opts] script args` and `bash -c 'script'`.
func (w *walker) shellRun(argv []field, c *syntax.CallExpr, st *state, env Env, at Loc, ct *container) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a.known && a.s == "-c" {
			if i+1 < len(argv) {
				w.inline(argv[i+1], st, env, at)
			}
			return
		}
		if a.known && strings.HasPrefix(a.s, "-") && a.s != "-" {
			if a.s == "-o" || a.s == "+o" {
				i++
			}
			continue
		}
		all := ct == nil || ct.all
		w.addRun(st, RunScript, a, ct, env, all, at)
		return
	}
}

// inline walks the script of `bash -c "..."`: the string's source, so a
// `$X` in it reads the same variable either shell would.
func (w *walker) inline(a field, st *state, env Env, at Loc) {
	if a.src == nil || w.depth >= w.ev.maxDepth() {
		return
	}
	text := innerScript(a.src)
	if text == "" {
		return
	}
	f, err := script.ParseScript("", []byte(text), false)
	if err != nil {
		return
	}
	line := at.Line
	sub := st.clone()
	for k, v := range env {
		// The env is mostly the state's own variables: setting them again
		// would only copy the changes (and fold them into a new base).
		if old, ok := sub.vars.get(k); !ok || !sameValue(old, v) {
			sub.vars.set(k, v)
		}
	}
	w.sub++
	outs := w.nested(w.file, func() []outcome { return w.block(f.Stmts, sub) })
	w.sub--
	for _, o := range outs {
		for i := len(st.runs); i < len(o.st.runs); i++ {
			r := o.st.runs[i]
			r.At = Loc{File: at.File, Line: line + max(r.At.Line-1, 0)}
			st.runs = append(st.runs, r)
		}
	}
}

// innerScript returns the text of a quoted word as the inner shell sees
// it: single quotes verbatim, double quotes with their escapes removed and
// expansions kept as written.
func innerScript(wd *syntax.Word) string {
	var b strings.Builder
	for _, p := range wd.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDbl(l.Value))
					continue
				}
				printNode(&b, q)
			}
		case *syntax.Lit:
			b.WriteString(p.Value)
		default:
			return ""
		}
	}
	return b.String()
}

func unescapeDbl(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"$\\`", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// addRun records a run of the file named by a (possibly unknown) word,
// seen from inside ct when the command runs in a container.
func (w *walker) addRun(st *state, kind RunKind, a field, ct *container, env Env, all bool, at Loc) {
	run := Run{Kind: kind, Text: a.s, At: at, From: w.origins(a.src, st), Env: w.exported(env), PassAll: all, Certain: st.certain, Inputs: a.deps}
	if !a.known {
		st.runs = append(st.runs, run)
		return
	}
	switch tp, wh := w.locate(a.s, st, ct); wh {
	case inTree, inCopy:
		w.addRunPath(st, kind, a, tp, env, all, at, wh == inCopy)
		return
	case outside:
		run.Known, run.External = true, true
	}
	st.runs = append(st.runs, run)
}

func (w *walker) addRunPath(st *state, kind RunKind, a field, tp string, env Env, all bool, at Loc, copied bool) {
	if kind == RunRecipe {
		// srtctl takes "file.yaml:override_name" selectors.
		if i := strings.IndexByte(tp, ':'); i >= 0 {
			tp = tp[:i]
		}
	}
	st.runs = append(st.runs, Run{Kind: kind, Path: tp, Text: a.s, Known: true, At: at, From: w.origins(a.src, st),
		Env: w.exported(env), PassAll: all, Certain: st.certain, Inputs: a.deps, Copied: copied})
}

// origins are the assignments of the variables a word reads, as the
// evidence of where a run's path came from.
func (w *walker) origins(wd *syntax.Word, st *state) []Loc {
	if wd == nil {
		return nil
	}
	var out []Loc
	seen := map[string]bool{}
	syntax.Walk(wd, func(n syntax.Node) bool {
		pe, ok := n.(*syntax.ParamExp)
		if !ok || pe.Param == nil || seen[pe.Param.Value] {
			return true
		}
		seen[pe.Param.Value] = true
		if v, ok := st.vars.get(pe.Param.Value); ok && v.At.Line > 0 {
			out = append(out, v.At)
		}
		return true
	})
	return out
}

// callFunc walks a function of the script with its arguments as the
// positional parameters.
func (w *walker) callFunc(fn *syntax.FuncDecl, argv []field, st *state) []outcome {
	// The arguments are values of their own; they decide only what they
	// decide inside the function.
	if w.depth >= w.ev.maxDepth() || fn.Body == nil {
		return []outcome{{st, triUnknown}}
	}
	saved := map[string]Value{}
	had := map[string]bool{}
	set := func(k string, v Value) {
		if _, done := saved[k]; !done {
			saved[k], had[k] = st.vars.get(k)
		}
		st.vars.set(k, v)
	}
	var list []string
	known := true
	var deps []string
	for i, a := range argv[1:] {
		if i < 9 {
			if a.known {
				set(strconv.Itoa(i+1), Value{Str: a.s, Set: true, Known: true, deps: a.deps})
			} else {
				set(strconv.Itoa(i+1), Value{Set: true, deps: a.deps})
			}
		}
		known = known && a.known
		list = append(list, a.s)
		deps = append(deps, a.deps...)
	}
	for i := len(argv); i <= 9; i++ {
		set(strconv.Itoa(i), Value{})
	}
	deps = compactDeps(deps)
	if known {
		set("@", Value{List: list, IsList: true, Set: true, Known: true, deps: deps})
		set("#", Str(strconv.Itoa(len(list))))
	} else {
		set("@", Value{Set: true, IsList: true, deps: deps})
		set("#", Value{Set: true, deps: deps})
	}
	outs := w.nested(w.funcFile[argv[0].s], func() []outcome { return w.block([]*syntax.Stmt{fn.Body}, st) })
	for _, o := range outs {
		for k, v := range saved {
			if had[k] {
				o.st.vars.set(k, v)
			} else {
				o.st.vars.del(k)
			}
		}
		// return ends the function, not the path.
		if o.st.returned {
			o.st.done, o.st.returned = false, false
		}
	}
	return outs
}

// followed reports whether a command's arguments are worth expanding:
// a builtin the evaluator models, a function of the script, or a program
// that runs a script.
func (w *walker) followed(name string) bool {
	switch name {
	case "true", ":", "false", "exit", "return", "set", "unset", "cd", "mkdir", "touch", "cp", "rsync",
		"check_env_vars", "source", ".", "exec", "eval", "bash", "sh", "srtctl":
		return true
	}
	if _, ok := w.funcs[name]; ok {
		return true
	}
	return needsEnv(name)
}

// needsEnv reports whether a command hands its environment to something
// the evaluator follows, so that the env is worth building.
func needsEnv(name string) bool {
	switch name {
	case "bash", "sh", "exec", "srtctl", "check_env_vars":
		return true
	}
	return isWrapper(path.Base(name)) || strings.HasSuffix(name, "/bash") || strings.HasSuffix(name, "/sh")
}

// logging reports whether a program only prints its arguments.
func logging(name string) bool {
	switch path.Base(name) {
	case "echo", "printf", "logger", ":", "true", "sleep", "date":
		return true
	}
	return false
}

// effect records the inputs a command's arguments are built from: the
// variables it expands and what those were computed from.
func (w *walker) effect(words []*syntax.Word, st *state) {
	for _, wd := range words {
		syntax.Walk(wd, func(n syntax.Node) bool {
			pe, ok := n.(*syntax.ParamExp)
			if !ok || pe.Param == nil {
				return true
			}
			if v, ok := st.vars.get(pe.Param.Value); ok {
				for _, d := range v.deps {
					w.effects[d] = true
				}
			} else {
				w.effects[pe.Param.Value] = true
			}
			return true
		})
	}
}

// record keeps a call of a program Eval.Calls names, with its expanded
// arguments, on the path (at most maxCalls per path, maxCallArgs
// arguments each).
func (w *walker) record(c *syntax.CallExpr, fs []field, st *state) {
	if len(st.calls) >= maxCalls {
		w.incomplete = true
		return
	}
	args := make([]Arg, 0, min(len(fs), maxCallArgs))
	for _, f := range fs[:min(len(fs), maxCallArgs)] {
		a := Arg{Text: f.s, Known: f.known}
		if !f.known && f.src != nil {
			a.Text = w.wordText(f.src)
		}
		args = append(args, a)
	}
	st.calls = append(slices.Clip(st.calls), Call{At: w.loc(c), Args: args})
}
