package sheval

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// What an evaluation depends on. Every variable of the starting env that
// decides a test, a case, a run's words or a requirement is recorded (with
// the value it had), so that the evaluation of another row whose env
// agrees on those inputs is the same evaluation: the pipeline model
// evaluates a launcher once per distinct set of deciding inputs, not once
// per row. A value computed from inputs (BENCH_BASE from EXP_NAME and
// PRECISION) carries them as deps and makes them deciding only if it is
// used where it decides something.
//
// Inputs are recorded as keys (depKey):
//
//	NAME           the variable's value
//	NAME%%pattern  what the form ${NAME%%pattern} gives (also %, #, ##):
//	               launchers read ${EXP_NAME%%_*}, not the whole exp-name
//	NAME:status    whether it is unset, empty or non-empty

// collect runs fn with a fresh dependency collector (or the enclosing
// one, for an expansion inside another) and returns what fn read.
func (w *walker) collect(fn func()) []string {
	if w.coll != nil {
		before := len(*w.coll)
		fn()
		return slices.Clone((*w.coll)[before:])
	}
	var c []string
	w.coll = &c
	fn()
	w.coll = nil
	slices.Sort(c)
	return slices.Compact(c)
}

// use records inputs as read by the expansion under way.
func (w *walker) use(deps ...string) {
	if w.coll != nil {
		*w.coll = append(*w.coll, deps...)
	}
}

// relevant marks inputs as deciding the evaluation, unless an enclosing
// expansion is collecting them (then they decide only what it decides).
func (w *walker) relevant(deps []string) {
	if w.coll != nil {
		*w.coll = append(*w.coll, deps...)
		return
	}
	for _, d := range deps {
		w.reads[d] = true
	}
}

// status marks an input's set/empty status as deciding.
func (w *walker) status(st *state, name string) {
	if v, ok := st.vars.get(name); ok && !v.input {
		w.relevant(v.deps)
		return
	}
	w.relevant([]string{name + ":status"})
}

// forms records the pattern-removal forms of inputs in a word
// (${EXP_NAME%%_*}) as inputs of their own, and returns the inputs the
// word reads only that way.
func (w *walker) forms(wd *syntax.Word, st *state) map[string]bool {
	var covered map[string]bool
	var buf [8]string
	plain := buf[:0] // names read otherwise (few)
	// The word's expansions outside command and arithmetic substitutions,
	// as a walk meets them; one read as a form is not looked into.
	fs := w.ev.nodesOf(wd).forms
	for i := 0; i < len(fs); {
		n := fs[i].pe
		if n.Param == nil || !syntax.ValidName(n.Param.Value) {
			i++
			continue
		}
		name := n.Param.Value
		v, ok := st.vars.get(name)
		if key, isForm := formKey(n); isForm && ok && v.input {
			if covered == nil {
				covered = map[string]bool{}
			}
			covered[name] = true
			w.use(key)
			i = fs[i].end
			continue
		}
		plain = append(plain, name)
		i++
	}
	for _, n := range plain {
		delete(covered, n)
	}
	return covered
}

// formKey is the key of a ${NAME<op>literal} pattern removal.
func formKey(pe *syntax.ParamExp) (string, bool) {
	if pe.Exp == nil || pe.Excl || pe.Length || pe.Index != nil || pe.Slice != nil || pe.Repl != nil {
		return "", false
	}
	switch pe.Exp.Op {
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
	default:
		return "", false
	}
	if pe.Exp.Word == nil {
		return pe.Param.Value + pe.Exp.Op.String(), true
	}
	lit := pe.Exp.Word.Lit()
	if lit == "" && len(pe.Exp.Word.Parts) > 0 {
		return "", false
	}
	return pe.Param.Value + pe.Exp.Op.String() + lit, true
}

// Canon is the comparable form of an input key's value in env.
func Canon(env Env, key string) string {
	if name, ok := strings.CutSuffix(key, ":status"); ok {
		v, present := env[name]
		switch {
		case !present || !v.Set:
			return "u"
		case !v.Known:
			return "?"
		case !v.IsList && v.Str == "" || v.IsList && len(v.List) == 0:
			return "e"
		}
		return "n"
	}
	name := key
	op := ""
	if i := strings.IndexAny(key, "%#"); i >= 0 {
		name, op = key[:i], key[i:]
	}
	v, present := env[name]
	switch {
	case !present || !v.Set:
		return "u"
	case !v.Known:
		return "?"
	case v.IsList:
		return "l" + strings.Join(v.List, "\x00")
	}
	if op == "" {
		return "s" + v.Str
	}
	p, err := script.ParseLine("${X" + op + "}")
	if err != nil || len(p.Stmts) != 1 {
		return "?"
	}
	call, ok := p.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 {
		return "?"
	}
	out, err := expand.Literal(&expand.Config{Env: expand.ListEnviron("X=" + v.Str)}, call.Args[0])
	if err != nil {
		return "?"
	}
	return "s" + out
}
