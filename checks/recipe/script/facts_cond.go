package script

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Conditions: what an if, case, && or || branch requires of the
// variables it tests (see Cond).

func (x *extractor) ifClause(c *syntax.IfClause, p Branch) {
	// Each elif is reached only when the tests above it failed: its base
	// is the previous one's, extended by the negation of that test. (The
	// then-branch and the next base both extend a base, so one of them
	// copies it: a chain of k elifs holds k²/2 conditions, which
	// maxCondSlots bounds; real chains are a few elifs long.)
	base := p
	for cl := c; cl != nil; cl = cl.Else {
		x.commentList(cl.CondLast)
		x.commentList(cl.ThenLast)
		x.commentList(cl.Last)
		if len(cl.Cond) == 0 { // else
			x.stmts(cl.Then, base)
			return
		}
		x.stmts(cl.Cond, base)
		cond := x.testCond(cl.Cond)
		x.stmts(cl.Then, x.with(base, cond))
		if cl.Else != nil {
			neg := cond
			neg.Negated, neg.elseOf = !neg.Negated, true
			base = x.with(base, neg)
		}
	}
}

func (x *extractor) caseClause(c *syntax.CaseClause, p Branch) {
	x.words(c.Word, p, "")
	x.commentList(c.Last)
	v := varRef(c.Word)
	txt := x.src(c.Word)
	// except is the patterns of the arms above, each once: an arm is
	// reached only when none of them matched. Every arm's Except is a
	// prefix of it (shared, not copied: a case of n arms would otherwise
	// hold n²/2 patterns). fall is what the arm above falls through with.
	var except, fall []string
	inExcept := map[string]bool{}
	clause := x.newID()
	for _, item := range c.Items {
		if item.Op != syntax.Break {
			clause = 0
		}
	}
	for _, item := range c.Items {
		x.commentList(item.Comments)
		x.commentList(item.Last)
		var pats []string
		for _, w := range item.Patterns {
			pats = append(pats, x.wordText(w).String())
			if mayHoldComments(w) {
				x.commentsIn(w)
			}
		}
		eff := pats
		if len(fall) > 0 {
			eff = append(slices.Clone(pats), fall...)
		}
		exc := armExcept(except, inExcept, eff)
		line := posLine(c.Pos())
		if len(item.Patterns) > 0 {
			line = posLine(item.Pos())
		}
		cond := Cond{Kind: CondCase, Var: v, Patterns: eff, Except: exc, Text: txt, Line: line, id: x.newID(), clause: clause}
		x.stmts(item.Stmts, x.with(p, cond))
		fall = nil
		switch item.Op {
		case syntax.Fallthrough:
			// A chain of ;& arms gathers every pattern above it; past
			// maxFallPatterns the arm is taken as reachable with any value.
			if fall = eff; len(fall) > maxFallPatterns {
				fall = []string{"*"}
			}
			except = addExcept(except, inExcept, pats)
		case syntax.Resume, syntax.ResumeKorn:
			// Later arms are still tested after this one matches.
		default:
			except = addExcept(except, inExcept, pats)
		}
	}
}

// maxFallPatterns bounds the patterns an arm inherits through ;& from the
// arms above it.
const maxFallPatterns = 64

// maxExceptFilter bounds the earlier patterns armExcept filters by copying.
const maxExceptFilter = 1024

// addExcept appends the patterns except does not hold yet.
func addExcept(except []string, in map[string]bool, pats []string) []string {
	for _, p := range pats {
		if !in[p] {
			in[p] = true
			except = append(except, p)
		}
	}
	return except
}

// armExcept is the Except of an arm with patterns eff: the earlier
// patterns, less the arm's own (an arm a fallthrough reaches runs for the
// patterns above it too). Usually none of eff is in except and the arm
// shares except's prefix; a copy is made only to drop one, and only for
// the first maxExceptFilter patterns (beyond, the arm keeps them: a case
// that long is no recipe's).
func armExcept(except []string, in map[string]bool, eff []string) []string {
	if len(except) == 0 {
		return nil
	}
	overlap := false
	for _, e := range eff {
		if in[e] {
			overlap = true
			break
		}
	}
	if !overlap || len(except) > maxExceptFilter {
		return except[:len(except):len(except)]
	}
	var exc []string
	for _, e := range except {
		if !slices.Contains(eff, e) {
			exc = append(exc, e)
		}
	}
	return exc
}

// soleParamExp returns the parameter expansion a word consists of, bare
// or double-quoted ($X, "${X:-d}", "${A[@]}"), or nil.
func soleParamExp(w *syntax.Word) *syntax.ParamExp {
	if w == nil || len(w.Parts) != 1 {
		return nil
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok {
		if len(dq.Parts) != 1 {
			return nil
		}
		part = dq.Parts[0]
	}
	pe, ok := part.(*syntax.ParamExp)
	if !ok || pe.Param == nil {
		return nil
	}
	return pe
}

// varRef returns X for a word that is just a reference to X: $X, "$X",
// ${X}, "${X:-default}".
func varRef(w *syntax.Word) string {
	pe := soleParamExp(w)
	if pe == nil || !syntax.ValidName(pe.Param.Value) {
		return ""
	}
	if pe.Excl || pe.Length || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Names != 0 {
		return ""
	}
	if pe.Exp != nil {
		switch pe.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		default:
			return ""
		}
	}
	return pe.Param.Value
}

// testCond describes the condition of an if, while or &&/|| chain.
func (x *extractor) testCond(stmts []*syntax.Stmt) Cond {
	c := Cond{Kind: CondIf, id: x.newID()}
	if len(stmts) == 0 {
		return c
	}
	c.Line = posLine(stmts[0].Pos())
	c.Text = strings.TrimRight(strings.TrimSpace(x.stmtsSrc(stmts)), "; \t")
	if len(stmts) != 1 {
		return c
	}
	st := stmts[0]
	switch cmd := st.Cmd.(type) {
	case *syntax.TestClause:
		x.testExprCond(cmd.X, &c)
	case *syntax.CallExpr:
		x.bracketCond(cmd, &c)
	case *syntax.ArithmCmd:
		arithCond(cmd.X, &c)
	case *syntax.DeclClause:
		// `declare -p X >/dev/null 2>&1 && ...` is the old guard for "X is set".
		if name := declareP(cmd); name != "" {
			c.Var, c.Op = name, "-v"
		}
	}
	if st.Negated {
		c.Negated = !c.Negated
	}
	return c
}

func (x *extractor) testExprCond(e syntax.TestExpr, c *Cond) {
	switch e := e.(type) {
	case *syntax.ParenTest:
		x.testExprCond(e.X, c)
	case *syntax.UnaryTest:
		switch e.Op {
		case syntax.TsNot:
			x.testExprCond(e.X, c)
			c.Negated = !c.Negated
		case syntax.TsEmpStr, syntax.TsNempStr:
			if w, ok := e.X.(*syntax.Word); ok {
				if v := varRef(w); v != "" {
					c.Var, c.Op = v, e.Op.String()
				}
			}
		case syntax.TsVarSet:
			if w, ok := e.X.(*syntax.Word); ok && syntax.ValidName(w.Lit()) {
				c.Var, c.Op = w.Lit(), "-v"
			}
		}
	case *syntax.BinaryTest:
		l, lok := e.X.(*syntax.Word)
		r, rok := e.Y.(*syntax.Word)
		if !lok || !rok {
			return
		}
		x.compareCond(l, r, e.Op.String(), c)
	case *syntax.Word:
		if v := varRef(e); v != "" {
			c.Var, c.Op = v, "-n"
		}
	}
}

// bracketCond handles [ ... ] and test ....
func (x *extractor) bracketCond(call *syntax.CallExpr, c *Cond) {
	if len(call.Args) == 0 {
		return
	}
	args := call.Args
	switch args[0].Lit() {
	case "[":
		if len(args) < 2 || args[len(args)-1].Lit() != "]" {
			return
		}
		args = args[1 : len(args)-1]
	case "test":
		args = args[1:]
	default:
		return
	}
	neg := false
	if len(args) > 0 && args[0].Lit() == "!" {
		neg = true
		args = args[1:]
	}
	switch len(args) {
	case 1:
		if v := varRef(args[0]); v != "" {
			c.Var, c.Op = v, "-n"
		}
	case 2:
		switch op := args[0].Lit(); op {
		case "-n", "-z":
			if v := varRef(args[1]); v != "" {
				c.Var, c.Op = v, op
			}
		case "-v":
			if syntax.ValidName(args[1].Lit()) {
				c.Var, c.Op = args[1].Lit(), "-v"
			}
		}
	case 3:
		x.compareCond(args[0], args[2], args[1].Lit(), c)
	}
	if neg {
		c.Negated = !c.Negated
	}
}

// compareCond records a comparison as the variable's: `[ 1 -lt "$X" ]` is
// X -gt 1, so a reader of Op never has to know which side it was written
// on (Text keeps the source).
func (x *extractor) compareCond(l, r *syntax.Word, op string, c *Cond) {
	v, other := varRef(l), r
	if v == "" {
		v, other = varRef(r), l
		if m, ok := mirroredOp[op]; ok {
			op = m
		}
	}
	if v == "" {
		return
	}
	t := x.wordText(other)
	if !t.static() {
		return
	}
	val := t.String()
	switch op {
	case "=", "==":
		c.Var, c.Op, c.Value = v, "=", val
	case "!=":
		c.Var, c.Op, c.Value, c.Negated = v, "=", val, !c.Negated
	case "-eq", "-ne":
		if isSignedInteger(val) {
			c.Var, c.Op, c.Value = v, "=", val
			if op == "-ne" {
				c.Negated = !c.Negated
			}
		} else {
			c.Var, c.Op, c.Value = v, op, val
		}
	default:
		c.Var, c.Op, c.Value = v, op, val
	}
}

// mirroredOp is an ordering comparison with its operands swapped.
var mirroredOp = map[string]string{
	"-gt": "-lt", "-lt": "-gt", "-ge": "-le", "-le": "-ge",
	">": "<", "<": ">",
}

func arithCond(e syntax.ArithmExpr, c *Cond) {
	b, ok := e.(*syntax.BinaryArithm)
	if !ok {
		if v := arithIdent(e); v != "" {
			c.Var, c.Op, c.Value, c.Negated = v, "=", "0", true
		}
		return
	}
	v, other := arithIdent(b.X), b.Y
	if v == "" {
		return
	}
	w, ok := other.(*syntax.Word)
	if !ok || !isSignedInteger(w.Lit()) {
		return
	}
	switch b.Op {
	case syntax.Eql:
		c.Var, c.Op, c.Value = v, "=", w.Lit()
	case syntax.Neq:
		c.Var, c.Op, c.Value, c.Negated = v, "=", w.Lit(), true
	case syntax.Gtr, syntax.Lss, syntax.Geq, syntax.Leq:
		c.Var, c.Op, c.Value = v, b.Op.String(), w.Lit()
	}
}

// isSignedInteger reports whether s is a whole number, maybe negative, as
// a test compares it (`[ "$X" -gt -1 ]`).
func isSignedInteger(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			if i == 0 && s[i] == '-' && len(s) > 1 {
				continue
			}
			return false
		}
	}
	return true
}

// declareP returns X for `declare -p X` (or typeset -p X).
func declareP(d *syntax.DeclClause) string {
	if d.Variant == nil || (d.Variant.Value != "declare" && d.Variant.Value != "typeset") {
		return ""
	}
	opt, name := false, ""
	for _, a := range d.Args {
		switch {
		case a.Name == nil && a.Value != nil && strings.HasPrefix(a.Value.Lit(), "-"):
			opt = opt || strings.Contains(a.Value.Lit(), "p")
		case a.Name != nil && a.Naked && name == "":
			name = a.Name.Value
		default:
			return ""
		}
	}
	if !opt {
		return ""
	}
	return name
}
