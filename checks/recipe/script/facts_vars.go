package script

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Variables: bindings, reads, arithmetic and set options.

func (x *extractor) paramRead(pe *syntax.ParamExp, p Branch) {
	if pe.Param == nil || !syntax.ValidName(pe.Param.Value) || pe.Names != 0 {
		return
	}
	r := Read{Name: pe.Param.Value, Line: posLine(pe.Pos()), Branch: p}
	switch {
	case pe.Exp != nil:
		r.Op = pe.Exp.Op.String()
		switch pe.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
			syntax.ErrorUnset, syntax.ErrorUnsetOrNull, syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			r.Defaulted = true
		}
	case pe.Length:
		r.Op = "#len"
	case pe.Excl:
		r.Op = "!"
	case pe.Index != nil:
		r.Op = "[i]"
		if w, ok := pe.Index.(*syntax.Word); ok {
			if l := w.Lit(); l == "@" || l == "*" {
				r.Op = "[" + l + "]"
			}
		}
	case pe.Slice != nil:
		r.Op = ":"
	case pe.Repl != nil:
		r.Op = "/"
	}
	x.f.Reads = append(x.f.Reads, r)
}

// arith records a $(( )) expression.
func (x *extractor) arith(e syntax.ArithmExpr, p Branch, target string, line int) {
	if e == nil {
		return
	}
	a := Arith{Target: target, Expr: strings.TrimSpace(x.src(e)), Line: line, Branch: p}
	x.arithWalk(e, &a, p)
	x.f.Arith = append(x.f.Arith, a)
}

// arithCmd records (( ... )) and let: an assignment binds its target.
func (x *extractor) arithCmd(e syntax.ArithmExpr, p Branch, line int) {
	target := ""
	if b, ok := e.(*syntax.BinaryArithm); ok && isArithAssign(b.Op) {
		target = arithIdent(b.X)
	}
	if u, ok := e.(*syntax.UnaryArithm); ok && (u.Op == syntax.Inc || u.Op == syntax.Dec) {
		target = arithIdent(u.X)
	}
	if target != "" {
		x.f.Vars = append(x.f.Vars, Var{Name: target, Kind: Bind, Value: strings.TrimSpace(x.src(e)), HasValue: true, Line: line, EndLine: line, Branch: p})
	}
	x.arith(e, p, target, line)
}

// IsArithAssign reports whether an arithmetic operator assigns (=, +=,
// ...).
func IsArithAssign(op syntax.BinAritOperator) bool { return isArithAssign(op) }

func isArithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn, syntax.PowAssgn:
		return true
	}
	return false
}

func arithIdent(e syntax.ArithmExpr) string {
	w, ok := e.(*syntax.Word)
	if !ok {
		return ""
	}
	if l := w.Lit(); syntax.ValidName(l) {
		return l
	}
	return ""
}

func (x *extractor) arithWalk(e syntax.ArithmExpr, a *Arith, p Branch) {
	switch e := e.(type) {
	case *syntax.BinaryArithm:
		x.arithWalk(e.X, a, p)
		a.Ops = append(a.Ops, e.Op.String())
		x.arithWalk(e.Y, a, p)
		if e.Op == syntax.Quo || e.Op == syntax.QuoAssgn {
			a.divisors = addArithVars(a.divisors, e.Y)
		}
	case *syntax.UnaryArithm:
		if e.Post {
			x.arithWalk(e.X, a, p)
			a.Ops = append(a.Ops, e.Op.String())
		} else {
			a.Ops = append(a.Ops, e.Op.String())
			x.arithWalk(e.X, a, p)
		}
	case *syntax.ParenArithm:
		x.arithWalk(e.X, a, p)
	case *syntax.Word:
		if l := e.Lit(); syntax.ValidName(l) {
			if !slices.Contains(a.Vars, l) {
				a.Vars = append(a.Vars, l)
			}
			x.f.Reads = append(x.f.Reads, Read{Name: l, Line: posLine(e.Pos()), Branch: p, Op: "arith"})
			return
		}
		a.Vars = addArithVars(a.Vars, e)
		x.words(e, p, "")
	}
}

// addArithVars appends to out the variables e mentions that out lacks.
func addArithVars(out []string, e syntax.ArithmExpr) []string {
	add := func(out []string, v string) []string {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
		return out
	}
	switch e := e.(type) {
	case *syntax.BinaryArithm:
		out = addArithVars(out, e.X)
		out = addArithVars(out, e.Y)
	case *syntax.UnaryArithm:
		out = addArithVars(out, e.X)
	case *syntax.ParenArithm:
		out = addArithVars(out, e.X)
	case *syntax.Word:
		if l := e.Lit(); syntax.ValidName(l) {
			return add(out, l)
		}
		syntax.Walk(e, func(n syntax.Node) bool {
			if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && syntax.ValidName(pe.Param.Value) {
				out = add(out, pe.Param.Value)
			}
			return true
		})
	}
	return out
}

func (x *extractor) testReads(e syntax.TestExpr, p Branch) {
	syntax.Walk(e, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet {
				if w, ok := n.X.(*syntax.Word); ok && syntax.ValidName(w.Lit()) {
					x.f.Reads = append(x.f.Reads, Read{Name: w.Lit(), Line: posLine(w.Pos()), Branch: p, Op: "-v", Defaulted: true})
					return false
				}
			}
		case *syntax.Word:
			x.words(n, p, "")
			return false
		}
		return true
	})
}

// decl handles export, declare, local, readonly and typeset.
func (x *extractor) decl(c *syntax.DeclClause, p Branch) {
	if c.Variant == nil {
		x.commentsIn(c)
		return
	}
	variant := c.Variant.Value
	exported := variant == "export"
	query := false
	for i, a := range c.Args {
		if a.Name != nil {
			continue
		}
		if a.Value == nil {
			continue
		}
		lit := a.Value.Lit()
		if strings.HasPrefix(lit, "-") || strings.HasPrefix(lit, "+") {
			flags := lit[1:]
			switch {
			case strings.ContainsAny(flags, "fF"):
				// Functions, not variables. The arguments not walked may
				// still hold comments.
				for j, b := range c.Args {
					if j > i || b.Name != nil {
						x.commentsIn(b)
					}
				}
				return
			case strings.Contains(flags, "p"):
				query = true
			}
			if strings.Contains(flags, "x") {
				exported = lit[0] == '-'
			}
			if variant == "export" && strings.Contains(flags, "n") {
				exported = false
			}
			if variant != "export" && lit[0] == '-' && strings.Contains(flags, "n") {
				x.f.Evals = append(x.f.Evals, posLine(c.Pos())) // a nameref
			}
			continue
		}
		x.words(a.Value, p, "")
	}
	kind := Assign
	if exported {
		kind = Export
	}
	for _, a := range c.Args {
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		line := posLine(a.Pos())
		switch {
		case query:
			x.f.Reads = append(x.f.Reads, Read{Name: name, Line: line, Branch: p, Op: "declare -p", Defaulted: true})
			if a.Value != nil || a.Array != nil || a.Index != nil {
				x.commentsIn(a)
			}
		case a.Naked:
			x.f.Vars = append(x.f.Vars, Var{Name: name, Kind: kind, Line: line, EndLine: line, Branch: p})
			if a.Value != nil || a.Array != nil || a.Index != nil {
				x.commentsIn(a)
			}
		default:
			x.assign(a, p, kind, "")
		}
	}
}

// assign records X=v, A=(...), and their export/declare/env-prefix forms.
func (x *extractor) assign(a *syntax.Assign, p Branch, kind VarKind, cmd string) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	v := Var{Name: name, Kind: kind, Append: a.Append, HasValue: true, Static: true,
		Line: posLine(a.Pos()), EndLine: x.endLine(a), Branch: p, Command: cmd}
	rec := fromSlab(&x.assignSlab)
	*rec = assignRec{name: name, append: a.Append, line: v.Line, endLine: v.EndLine, off: int(a.Pos().Offset()), path: p, src: x.src(a)}
	switch {
	case a.Array != nil:
		v.Array, rec.array = true, true
		v.Value = x.src(a.Array)
		x.commentList(a.Array.Last)
		for _, el := range a.Array.Elems {
			x.commentList(el.Comments)
			if el.Index != nil {
				x.words(el.Index, p, "")
			}
			if el.Value == nil {
				continue
			}
			rec.words = append(rec.words, el.Value)
			x.words(el.Value, p, name)
			t := x.wordText(el.Value)
			if !t.static() {
				v.Static = false
			}
			x.scanText(t.String(), posLine(el.Value.Pos()), p)
		}
	case a.Value != nil:
		t := x.wordText(a.Value)
		v.Value, v.Static = t.String(), t.static()
		rec.t = t
		rec.one[0] = a.Value
		rec.words = rec.one[:]
		x.words(a.Value, p, name)
		x.scanText(v.Value, v.Line, p)
		if kind != EnvPrefix && looksLikeJSON(t) {
			rec.json = parseJSONText(t, p)
			rec.json.Var = name
			x.f.JSON = append(x.f.JSON, rec.json)
		}
		if x.isEnginePath(t) {
			x.enginePathVars[name] = true
		}
	}
	if a.Index != nil {
		// A[i]=v sets one element; for command building it adds a word.
		x.words(a.Index, p, "")
		v.Array, rec.array, rec.append = true, true, true
	}
	if ContainsFold(name, "hf_overrides") {
		x.override(OverrideMention, v.Line, p, firstLine(rec.src))
	}
	x.f.Vars = append(x.f.Vars, v)
	if kind != EnvPrefix {
		x.assigns[name] = append(x.assigns[name], rec)
	}
}

func (x *extractor) unset(args []string, words []*syntax.Word, p Branch) {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if strings.Contains(a, "f") {
				return
			}
			continue
		}
		if syntax.ValidName(a) {
			line := posLine(words[i].Pos())
			x.f.Vars = append(x.f.Vars, Var{Name: a, Kind: Unset, Line: line, EndLine: line, Branch: p})
		}
	}
}

// read handles `read [-r] [-d delim] NAME... <<EOF`: the names are bound,
// and a single name takes the heredoc's text (a common way to hold JSON).
func (x *extractor) read(s *syntax.Stmt, args []string, words []*syntax.Word, p Branch) {
	var names []int
	for i := 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if strings.ContainsAny(a[len(a)-1:], "dptnNuia") {
				i++ // option with a value; for -a the value is the array name
				if a[len(a)-1] == 'a' && i < len(args) && syntax.ValidName(args[i]) {
					names = append(names, i)
				}
			}
			continue
		}
		if syntax.ValidName(a) {
			names = append(names, i)
		}
	}
	r := stmtHeredoc(s)
	for _, i := range names {
		line := posLine(words[i].Pos())
		v := Var{Name: args[i], Kind: Bind, HasValue: true, Line: line, EndLine: line, Branch: p}
		if r != nil && len(names) == 1 {
			t := x.heredocText(r)
			v.Value, v.Static, v.EndLine = t.String(), t.static(), x.endLine(r)
			rec := &assignRec{name: args[i], line: line, endLine: v.EndLine, off: int(words[i].Pos().Offset()), path: p, t: t, src: x.src(s)}
			if looksLikeJSON(t) {
				rec.json = parseJSONText(t, p)
				rec.json.Var = args[i]
				x.f.JSON = append(x.f.JSON, rec.json)
			}
			x.assigns[args[i]] = append(x.assigns[args[i]], rec)
		}
		x.f.Vars = append(x.f.Vars, v)
	}
}

var setLetters = map[rune]string{
	'e': "errexit", 'u': "nounset", 'x': "xtrace", 'v': "verbose", 'f': "noglob",
	'C': "noclobber", 'a': "allexport", 'h': "hashall", 'n': "noexec", 'b': "notify",
	'm': "monitor", 'B': "braceexpand", 'H': "histexpand", 'E': "errtrace",
	'T': "functrace", 'P': "physical", 'k': "keyword", 't': "onecmd",
}

func (x *extractor) setCmd(args []string, p Branch, rec *callRec) {
	sc := SetCmd{Line: rec.line, Branch: p, Text: firstLine(x.src(rec.call))}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		on := a[0] == '-'
		for _, ch := range a[1:] {
			if ch == 'o' {
				if i+1 < len(args) {
					i++
					sc.Options = append(sc.Options, SetOption{Name: args[i], On: on})
				}
				continue
			}
			name, ok := setLetters[ch]
			if !ok {
				name = "-" + string(ch)
			}
			sc.Options = append(sc.Options, SetOption{Name: name, On: on})
		}
	}
	x.f.Sets = append(x.f.Sets, sc)
}
