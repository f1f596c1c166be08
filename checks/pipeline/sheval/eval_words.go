package sheval

import (
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// errUnknown aborts an expansion that needs something the bot cannot know.
var errUnknown = errors.New("unknown value")

// view is the expand.Environ of one expansion: the state's variables,
// noting whether anything unknown was read.
type view struct {
	w       *walker
	st      *state
	unknown bool
	// covered are the inputs this expansion reads only through forms
	// (${EXP_NAME%%_*}) already recorded as dependencies.
	covered map[string]bool
}

func (v *view) Get(name string) expand.Variable {
	switch name {
	case "IFS":
		if x, ok := v.st.vars.get(name); ok && x.Known {
			return expand.Variable{Set: true, Kind: expand.String, Str: x.Str}
		}
		return expand.Variable{}
	case "PWD":
		// expand reads PWD for every word; only a tree directory is known.
		if c := v.st.cwd; c != "?" && !strings.HasPrefix(c, "ext:") {
			return expand.Variable{Set: true, Kind: expand.String, Str: strings.TrimSuffix(Workspace+"/"+c, "/")}
		}
		return expand.Variable{}
	case "?", "$", "!", "RANDOM", "SECONDS", "LINENO", "PPID", "BASHPID", "OLDPWD", "HOSTNAME", "EPOCHSECONDS", "EPOCHREALTIME":
		v.unknown = true
		return expand.Variable{}
	}
	x, ok := v.st.vars.get(name)
	if !v.covered[name] {
		if ok && len(x.deps) > 0 {
			v.w.use(x.deps...)
		} else if !ok {
			v.w.use(name)
		}
	}
	if !ok {
		if v.w.ev.Unknown != nil && v.w.ev.Unknown(name) {
			v.unknown = true
		}
		return expand.Variable{}
	}
	if !x.Set {
		return expand.Variable{Kind: expand.String}
	}
	if !x.Known {
		v.unknown = true
		return expand.Variable{}
	}
	if x.IsList {
		return expand.Variable{Set: true, Exported: x.Exported, Kind: expand.Indexed, List: x.List}
	}
	return expand.Variable{Set: true, Exported: x.Exported, Kind: expand.String, Str: x.Str}
}

func (v *view) Each(fn func(name string, vr expand.Variable) bool) {
	stop := false
	v.st.vars.each(func(k string, _ Value) {
		if !stop && !fn(k, v.Get(k)) {
			stop = true
		}
	})
}

func (w *walker) config(st *state) (*expand.Config, *view) {
	// Expansions nest (a command substitution expands its own words), so
	// configs come from a free list rather than being one per walker.
	if n := len(w.cfgs); n > 0 {
		c := w.cfgs[n-1]
		w.cfgs = w.cfgs[:n-1]
		*c.v = view{w: w, st: st}
		return c.cfg, c.v
	}
	v := &view{w: w, st: st}
	cfg := &expand.Config{Env: v}
	cfg.CmdSubst = func(out io.Writer, cs *syntax.CmdSubst) error {
		s, ok := w.pureSubst(cs, v.st)
		if !ok {
			v.unknown = true
			return errUnknown
		}
		_, err := io.WriteString(out, s)
		return err
	}
	cfg.ProcSubst = func(*syntax.ProcSubst) (string, error) {
		v.unknown = true
		return "", errUnknown
	}
	return cfg, v
}

// release returns an expansion's config to the free list.
func (w *walker) release(cfg *expand.Config, v *view) {
	v.st, v.covered = nil, nil
	w.cfgs = append(w.cfgs, expansion{cfg, v})
}

// expansion is a config and the view it reads through.
type expansion struct {
	cfg *expand.Config
	v   *view
}

// word expands a word to one string in a context that decides the path
// (a test, a case word, a redirection); ok is false when it depends on
// something unknown.
func (w *walker) word(wd *syntax.Word, st *state) (string, bool) {
	s, ok, deps := w.valueWord(wd, st)
	w.relevant(deps)
	return s, ok
}

// valueWord expands a word as an assignment does, returning what it was
// computed from.
func (w *walker) valueWord(wd *syntax.Word, st *state) (string, bool, []string) {
	if wd == nil {
		return "", true, nil
	}
	w.checkReads(wd, st)
	w.subRuns(wd, st)
	var s string
	var err error
	unknown := false
	deps := w.collect(func() {
		cfg, v := w.config(st)
		defer w.release(cfg, v)
		v.covered = w.forms(wd, st)
		s, err = expand.Literal(cfg, wd)
		unknown = v.unknown
	})
	if err != nil || unknown {
		return "", false, deps
	}
	return s, true, deps
}

// field is one argument of a command after expansion.
type field struct {
	s     string
	known bool
	src   *syntax.Word
	deps  []string
}

// fields expands command arguments with field splitting; a word that
// depends on something unknown gives one unknown field.
func (w *walker) fields(words []*syntax.Word, st *state) []field {
	out := w.valueFields(words, st)
	for _, f := range out {
		w.relevant(f.deps)
	}
	return out
}

// valueFields expands arguments, each field keeping what it was computed
// from (function arguments become values of their own).
func (w *walker) valueFields(words []*syntax.Word, st *state) []field {
	var out []field
	for _, wd := range words {
		w.checkReads(wd, st)
		w.subRuns(wd, st)
		if name := splicedArray(wd); name != "" {
			if x, ok := st.vars.get(name); ok && x.partial {
				w.use(x.deps...)
				for _, el := range x.List {
					if el == hole {
						out = append(out, field{s: "${" + name + "[@]}", src: wd, deps: x.deps})
					} else {
						out = append(out, field{s: el, known: true, src: wd, deps: x.deps})
					}
				}
				continue
			}
		}
		var fs []string
		var err error
		unknown := false
		deps := w.collect(func() {
			cfg, v := w.config(st)
			defer w.release(cfg, v)
			v.covered = w.forms(wd, st)
			fs, err = expand.Fields(cfg, wd)
			unknown = v.unknown
		})
		if err != nil || unknown {
			out = append(out, field{s: w.wordText(wd), src: wd, deps: deps})
			continue
		}
		for _, f := range fs {
			out = append(out, field{s: f, known: true, src: wd, deps: deps})
		}
	}
	return out
}

// splicedArray returns NAME for a word that is exactly "${NAME[@]}".
func splicedArray(wd *syntax.Word) string {
	if len(wd.Parts) != 1 {
		return ""
	}
	dq, ok := wd.Parts[0].(*syntax.DblQuoted)
	if !ok || len(dq.Parts) != 1 {
		return ""
	}
	pe, ok := dq.Parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Exp != nil || pe.Repl != nil || pe.Slice != nil || pe.Length || pe.Excl || pe.Index == nil {
		return ""
	}
	if l, ok := pe.Index.(*syntax.Word); !ok || l.Lit() != "@" {
		return ""
	}
	return pe.Param.Value
}

// checkReads records what a word requires: `${X:?}` of an unset or empty
// variable, and under `set -u` a bare $X of an unset one.
func (w *walker) checkReads(wd *syntax.Word, st *state) {
	// (A command substitution's own statements are subRuns'.)
	for _, n := range w.ev.nodesOf(wd).reads {
		{
			if n.Param == nil || !syntax.ValidName(n.Param.Value) || n.Excl || n.Length || n.Names != 0 {
				continue
			}
			name := n.Param.Value
			x, ok := st.vars.get(name)
			unset := !ok && (w.ev.Unknown == nil || !w.ev.Unknown(name)) || ok && !x.Set
			empty := unset || ok && x.Set && x.Known && !x.IsList && x.Str == ""
			if n.Exp != nil && (n.Exp.Op == syntax.ErrorUnsetOrNull || n.Exp.Op == syntax.ErrorUnset) || n.Exp == nil && st.nounset {
				w.status(st, name)
			}
			if n.Exp != nil && n.Exp.Op == syntax.ErrorUnsetOrNull {
				w.checked(name, n, "${"+name+":?}")
			} else if n.Exp != nil && n.Exp.Op == syntax.ErrorUnset {
				w.checked(name, n, "${"+name+"?}")
			}
			switch {
			case n.Exp != nil && n.Exp.Op == syntax.ErrorUnsetOrNull && empty:
				w.require(st, name, n, "${"+name+":?}")
			case n.Exp != nil && n.Exp.Op == syntax.ErrorUnset && unset:
				w.require(st, name, n, "${"+name+"?}")
			case n.Exp == nil && n.Index == nil && st.nounset && unset && !isShellVar(name):
				w.require(st, name, n, "$"+name+" under set -u")
			}
		}
	}
}

// checked records a check of name, satisfied or not.
func (w *walker) checked(name string, n syntax.Node, how string) {
	if _, ok := w.checks[name]; !ok && len(w.checks) < 256 {
		w.checks[name] = Req{Var: name, At: w.loc(n), How: how}
	}
}

func (w *walker) require(st *state, name string, n syntax.Node, how string) {
	for _, r := range st.reqs {
		if r.Var == name {
			return
		}
	}
	st.reqs = append(st.reqs, Req{Var: name, At: w.loc(n), How: how, Certain: st.certain})
}

// subRuns records the runs inside command substitutions of a word
// (JOB_ID=$(bash "benchmarks/x.sh")): they run in a subshell, so only the
// runs and requirements count.
func (w *walker) subRuns(wd *syntax.Word, st *state) {
	for _, cs := range w.ev.nodesOf(wd).substs {
		if w.pureOK(cs) {
			continue
		}
		sub := st.clone()
		w.sub++
		for _, o := range w.block(cs.Stmts, sub) {
			m := mergeRuns(st, o.st)
			st.runs, st.reqs = m.runs, m.reqs
		}
		w.sub--
	}
}

// pureOK reports whether a command substitution is one pureSubst
// evaluates (so it runs nothing worth walking).
func (w *walker) pureOK(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	switch c := cs.Stmts[0].Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return false
		}
		switch c.Args[0].Lit() {
		case "dirname", "basename", "echo", "printf", "true", "false":
			return true
		}
	case *syntax.BinaryCmd:
		return true
	}
	return false
}

// pureSubst evaluates the command substitutions that are pure functions
// of their words: dirname, basename, echo, printf, and
// `[[ test ]] && printf a || printf b`. Anything else is unknown.
func (w *walker) pureSubst(cs *syntax.CmdSubst, st *state) (string, bool) {
	if len(cs.Stmts) != 1 || cs.Stmts[0].Negated || cs.Stmts[0].Background || len(cs.Stmts[0].Redirs) > 0 {
		return "", false
	}
	return w.pureOut(cs.Stmts[0], st)
}

func (w *walker) pureOut(s *syntax.Stmt, st *state) (string, bool) {
	out, _, ok := w.pureRun(s, st)
	return out, ok
}

// pureRun is the output and status of a statement of a pure substitution.
func (w *walker) pureRun(s *syntax.Stmt, st *state) (string, tri, bool) {
	out, t, ok := w.pureCmd(s, st)
	if !ok || t == triUnknown {
		return "", triUnknown, false
	}
	if s.Negated {
		t = t.not()
	}
	return out, t, true
}

func (w *walker) pureCmd(s *syntax.Stmt, st *state) (string, tri, bool) {
	if s.Background || len(s.Redirs) > 0 {
		return "", triUnknown, false
	}
	switch c := s.Cmd.(type) {
	case *syntax.TestClause:
		return "", w.testExpr(c.X, st), true
	case *syntax.BinaryCmd:
		if c.Op != syntax.AndStmt && c.Op != syntax.OrStmt {
			return "", triUnknown, false
		}
		ox, sx, ok := w.pureRun(c.X, st)
		if !ok {
			return "", triUnknown, false
		}
		if c.Op == syntax.AndStmt && sx == triTrue || c.Op == syntax.OrStmt && sx == triFalse {
			oy, sy, ok := w.pureRun(c.Y, st)
			return ox + oy, sy, ok
		}
		return ox, sx, true
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return "", triUnknown, false
		}
		if isTestCall(s) {
			return "", w.bracketTest(c, st), true
		}
		fs := w.fields(c.Args, st)
		args := make([]string, len(fs))
		for i, f := range fs {
			if !f.known {
				return "", triUnknown, false
			}
			args[i] = f.s
		}
		if len(args) == 0 {
			// Every word expanded to nothing ($EMPTY): bash runs no
			// command, which is not a pure output worth guessing.
			return "", triUnknown, false
		}
		switch args[0] {
		case "dirname":
			if len(args) == 2 {
				return path.Dir(args[1]) + "\n", triTrue, true
			}
		case "basename":
			if len(args) == 2 || len(args) == 3 {
				b := path.Base(args[1])
				if len(args) == 3 {
					b = strings.TrimSuffix(b, args[2])
				}
				return b + "\n", triTrue, true
			}
		case "echo":
			rest := args[1:]
			nl := "\n"
			if len(rest) > 0 && rest[0] == "-n" {
				rest, nl = rest[1:], ""
			}
			return strings.Join(rest, " ") + nl, triTrue, true
		case "printf":
			if len(args) < 2 {
				return "", triUnknown, false
			}
			out, _, err := expand.Format(&expand.Config{}, args[1], args[2:]) // nil would share, and write, one package-wide config
			if err != nil {
				return "", triUnknown, false
			}
			return out, triTrue, true
		case "true":
			return "", triTrue, true
		case "false":
			return "", triFalse, true
		}
	}
	return "", triUnknown, false
}

func isTestCall(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return false
	}
	n := c.Args[0].Lit()
	return n == "[" || n == "test"
}

// patternMatch matches a value against a case or [[ == ]] pattern word.
func (w *walker) patternMatch(p *syntax.Word, v string, st *state) tri {
	var pat string
	var err error
	unknown := false
	w.relevant(w.collect(func() {
		cfg, vw := w.config(st)
		defer w.release(cfg, vw)
		pat, err = expand.Pattern(cfg, p)
		unknown = vw.unknown
	}))
	if err != nil || unknown {
		return triUnknown
	}
	rx := compiledPattern(pat)
	if rx == nil {
		return triUnknown
	}
	return triOf(rx.MatchString(v))
}

// patterns caches compiled shell patterns; launchers test the same few
// patterns for every row. It is cleared when it grows past its bound.
var patterns = struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}{m: map[string]*regexp.Regexp{}}

const maxPatterns = 4096

// compiledPattern compiles a shell pattern (nil when it is not one).
func compiledPattern(pat string) *regexp.Regexp {
	patterns.Lock()
	rx, ok := patterns.m[pat]
	patterns.Unlock()
	if ok {
		return rx
	}
	re, err := pattern.Regexp(pat, pattern.EntireString|pattern.ExtendedOperators)
	if err == nil {
		rx, err = regexp.Compile(re)
	}
	if err != nil {
		rx = nil
	}
	patterns.Lock()
	if len(patterns.m) >= maxPatterns {
		patterns.m = map[string]*regexp.Regexp{}
	}
	patterns.m[pat] = rx
	patterns.Unlock()
	return rx
}

// testExpr evaluates a [[ ]] expression.
func (w *walker) testExpr(e syntax.TestExpr, st *state) tri {
	switch e := e.(type) {
	case *syntax.Word:
		v, ok := w.word(e, st)
		if !ok {
			return triUnknown
		}
		return triOf(v != "")
	case *syntax.ParenTest:
		return w.testExpr(e.X, st)
	case *syntax.UnaryTest:
		if e.Op == syntax.TsNot {
			return w.testExpr(e.X, st).not()
		}
		wd, ok := e.X.(*syntax.Word)
		if !ok {
			return triUnknown
		}
		if e.Op == syntax.TsVarSet {
			name := wd.Lit()
			w.status(st, name)
			x, ok := st.vars.get(name)
			if !ok {
				if w.ev.Unknown != nil && w.ev.Unknown(name) {
					return triUnknown
				}
				return triFalse
			}
			if x.Set && !x.Known {
				return triTrue
			}
			return triOf(x.Set)
		}
		v, known := w.word(wd, st)
		if !known {
			return triUnknown
		}
		return w.unary(e.Op, v, st)
	case *syntax.BinaryTest:
		switch e.Op {
		case syntax.AndTest:
			x := w.testExpr(e.X, st)
			if x == triFalse {
				return triFalse
			}
			y := w.testExpr(e.Y, st)
			if x == triTrue {
				return y
			}
			if y == triFalse {
				return triFalse
			}
			return triUnknown
		case syntax.OrTest:
			x := w.testExpr(e.X, st)
			if x == triTrue {
				return triTrue
			}
			y := w.testExpr(e.Y, st)
			if x == triFalse {
				return y
			}
			if y == triTrue {
				return triTrue
			}
			return triUnknown
		}
		lw, lok := e.X.(*syntax.Word)
		rw, rok := e.Y.(*syntax.Word)
		if !lok || !rok {
			return triUnknown
		}
		l, known := w.word(lw, st)
		if !known {
			return triUnknown
		}
		switch e.Op {
		case syntax.TsMatch, syntax.TsMatchShort:
			return w.patternMatch(rw, l, st)
		case syntax.TsNoMatch:
			return w.patternMatch(rw, l, st).not()
		case syntax.TsReMatch:
			r, ok := w.word(rw, st)
			if !ok {
				return triUnknown
			}
			rx, err := regexp.Compile(r)
			if err != nil {
				return triUnknown
			}
			return triOf(rx.MatchString(l))
		}
		r, ok := w.word(rw, st)
		if !ok {
			return triUnknown
		}
		return binaryOp(e.Op.String(), l, r)
	}
	return triUnknown
}

func (w *walker) unary(op syntax.UnTestOperator, v string, st *state) tri {
	switch op {
	case syntax.TsEmpStr:
		return triOf(v == "")
	case syntax.TsNempStr:
		return triOf(v != "")
	case syntax.TsRegFile, syntax.TsExists, syntax.TsDirect, syntax.TsNoEmpty, syntax.TsRead:
		return w.fileTest(op, v, st)
	}
	return triUnknown
}

// binaryOp evaluates string and integer comparisons.
func binaryOp(op, l, r string) tri {
	switch op {
	case "=", "==":
		return triOf(l == r)
	case "!=":
		return triOf(l != r)
	case "<":
		return triOf(l < r)
	case ">":
		return triOf(l > r)
	}
	a, err1 := strconv.ParseInt(strings.TrimSpace(l), 10, 64)
	b, err2 := strconv.ParseInt(strings.TrimSpace(r), 10, 64)
	if err1 != nil || err2 != nil {
		return triUnknown
	}
	switch op {
	case "-eq":
		return triOf(a == b)
	case "-ne":
		return triOf(a != b)
	case "-lt":
		return triOf(a < b)
	case "-le":
		return triOf(a <= b)
	case "-gt":
		return triOf(a > b)
	case "-ge":
		return triOf(a >= b)
	}
	return triUnknown
}

// bracketTest evaluates `[ ... ]` and `test ...`.
func (w *walker) bracketTest(c *syntax.CallExpr, st *state) tri {
	fs := w.fields(c.Args, st)
	args := make([]string, 0, len(fs))
	for _, f := range fs {
		if !f.known {
			return triUnknown
		}
		args = append(args, f.s)
	}
	if len(args) > 0 && args[0] == "[" {
		if args[len(args)-1] != "]" {
			return triUnknown
		}
		args = args[1 : len(args)-1]
	} else if len(args) > 0 {
		args = args[1:]
	}
	return w.classicTest(args, st)
}

var unaryOps = map[string]syntax.UnTestOperator{
	"-z": syntax.TsEmpStr, "-n": syntax.TsNempStr, "-f": syntax.TsRegFile, "-e": syntax.TsExists,
	"-d": syntax.TsDirect, "-s": syntax.TsNoEmpty, "-r": syntax.TsRead,
}

func (w *walker) classicTest(args []string, st *state) tri {
	switch len(args) {
	case 0:
		return triFalse
	case 1:
		return triOf(args[0] != "")
	case 2:
		if args[0] == "!" {
			return w.classicTest(args[1:], st).not()
		}
		if op, ok := unaryOps[args[0]]; ok {
			return w.unary(op, args[1], st)
		}
		return triUnknown
	case 3:
		if args[0] == "!" {
			return w.classicTest(args[1:], st).not()
		}
		if args[1] == "-a" || args[1] == "-o" {
			return triUnknown
		}
		return binaryOp(args[1], args[0], args[2])
	case 4:
		if args[0] == "!" {
			return w.classicTest(args[1:], st).not()
		}
	}
	return triUnknown
}

// arithAssign records (( X = ... )): the target's value, when the
// expression's variables are known.
func (w *walker) arithAssign(e syntax.ArithmExpr, st *state, at Loc) {
	if e == nil {
		return
	}
	target := ""
	switch x := e.(type) {
	case *syntax.BinaryArithm:
		if wd, ok := x.X.(*syntax.Word); ok {
			target = wd.Lit()
		}
		if !syntax.ValidName(target) {
			return
		}
		switch x.Op {
		case syntax.Assgn:
			var n int
			var err error
			unknown := false
			deps := w.collect(func() {
				cfg, v := w.config(st)
				defer w.release(cfg, v)
				n, err = expand.Arithm(cfg, x.Y)
				unknown = v.unknown
			})
			if err == nil && !unknown {
				old, _ := st.vars.get(target)
				val := withAt(Str(strconv.Itoa(n)), at, old.Exported)
				val.deps = deps
				st.vars.set(target, val)
				return
			}
		}
	case *syntax.UnaryArithm:
		if wd, ok := x.X.(*syntax.Word); ok {
			target = wd.Lit()
		}
	}
	if syntax.ValidName(target) {
		old, _ := st.vars.get(target)
		st.vars.set(target, Value{Set: true, At: at, Exported: old.Exported})
	}
}

func withAt(v Value, at Loc, exported bool) Value {
	v.At = at
	v.Exported = exported
	return v
}

// isShellVar reports whether bash sets the variable itself.
func isShellVar(name string) bool {
	switch name {
	case "HOME", "PATH", "PWD", "OLDPWD", "SHELL", "USER", "HOSTNAME", "RANDOM", "SECONDS", "LINENO",
		"BASH_SOURCE", "BASH_VERSION", "BASHPID", "FUNCNAME", "IFS", "PPID", "UID", "EUID", "PIPESTATUS",
		"OSTYPE", "HOSTTYPE", "SHLVL", "REPLY", "OPTARG", "OPTIND", "BASH_REMATCH", "EPOCHSECONDS",
		"EPOCHREALTIME", "GROUPS", "MACHTYPE", "BASH", "TERM":
		return true
	}
	return false
}

// DescribeValue renders a value for people.
func DescribeValue(v Value) string {
	switch {
	case !v.Set:
		return "(unset)"
	case !v.Known:
		return "(set, unknown)"
	case v.IsList:
		return fmt.Sprintf("(%s)", strings.Join(v.List, " "))
	}
	return v.Str
}
