package recipe

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// SH007 reports a per-engine cap that ignores DP attention.
var SH007 = &checks.Rule{
	ID:       "SH007",
	Severity: checks.Warning,
	Title:    "Per-engine cap not divided by the DP world size",
	Doc: "Under DP attention (`DP_ATTENTION=true`, `--data-parallel-size \"$TP\"`) each DP rank is an " +
		"independent engine that sees about CONC/TP of the sessions, and `--max-num-seqs` and " +
		"`--max-cudagraph-capture-size` are per-engine settings. This rule reports a value such as " +
		"`MAX_NUM_SEQS=$((2 * CONC))` that applies on the DP-attention path without dividing by the DP world " +
		"size, when a sibling recipe divides the same value (`$((2 * CONC / TP))`) under DP attention. Compute " +
		"the divided value in the DP-attention branch.",
	Run: runSH007,
}

// dpVar is the matrix variable that turns DP attention on.
const dpVar = "DP_ATTENTION"

// dpFlags are server options that only DP attention uses.
var dpFlags = []string{"--data-parallel-size", "--dp-size", "--enable-dp-attention"}

// dpAdmits reports whether the path can run with DP attention on.
func dpAdmits(p script.Branch) bool {
	for _, c := range p {
		if c.Var != dpVar {
			continue
		}
		if holds, ok := c.Holds("true"); ok && !holds {
			return false
		}
	}
	return true
}

// dpCond returns the condition on p that requires DP attention on.
func dpCond(p script.Branch) (script.Cond, bool) {
	for _, c := range p {
		if c.Var != dpVar {
			continue
		}
		if t, ok := c.Holds("true"); ok && t && !holdsFor(c, "false") && !holdsFor(c, "") {
			return c, true
		}
	}
	return script.Cond{}, false
}

// runsDP reports whether the script supports DP attention: it tests the
// DP_ATTENTION variable or passes a DP-attention server option.
func runsDP(f *script.Facts) bool {
	if len(f.ReadsOf(dpVar)) > 0 {
		return true
	}
	for _, c := range f.Servers {
		for _, fl := range c.Flags {
			if slices.Contains(dpFlags, script.NormFlag(fl.Name)) && !singleRank(fl) {
				return true
			}
		}
	}
	return false
}

// singleRank reports whether a DP-size option is the literal 1: one
// engine, the plain tensor-parallel layout (`--data-parallel-size 1`
// spelled out), not DP attention.
func singleRank(fl script.Flag) bool {
	n := script.NormFlag(fl.Name)
	return (n == "--data-parallel-size" || n == "--dp-size") && fl.Static && strings.Trim(fl.Value, `"'`) == "1"
}

// dpSizeFlag returns the server flag that sets the DP world size on the
// DP-attention path, and the variable it reads.
func dpSizeFlag(f *script.Facts) (script.Flag, string, bool) {
	for _, c := range f.Servers {
		for _, fl := range c.Flags {
			n := script.NormFlag(fl.Name)
			if n != "--data-parallel-size" && n != "--dp-size" || singleRank(fl) {
				continue
			}
			if v, plain := script.VarRef(fl.Value); plain {
				return fl, v, true
			}
			return fl, "", true
		}
	}
	return script.Flag{}, "", false
}

// refersTo reports whether text expands variable name ($NAME or ${NAME}).
func refersTo(text, name string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] != '$' {
			continue
		}
		rest := text[i+1:]
		if strings.HasPrefix(rest, "{"+name+"}") {
			return true
		}
		if strings.HasPrefix(rest, name) && (len(rest) == len(name) || !isNameByte(rest[len(name)])) {
			return true
		}
	}
	return false
}

// flagUse is a server option whose value comes from a variable.
type flagUse struct {
	Name string
	Line int
	Via  string // the derived variable in between, if any
}

// capFlags returns the server options whose value is name, or a variable
// computed from name (CAPTURE_SIZE=$((MAX_NUM_SEQS * 4))).
func capFlags(f *script.Facts, name string) []flagUse {
	vars := map[string]string{name: ""}
	for _, a := range f.Arith {
		if a.Target != "" && a.Target != name && a.Uses(name) {
			vars[a.Target] = a.Target
		}
	}
	var out []flagUse
	seen := map[string]bool{}
	for _, c := range f.Servers {
		for _, fl := range c.Flags {
			for v, via := range vars {
				k := fl.Name + "\x00" + strconv.Itoa(fl.Line)
				if fl.HasValue && refersTo(fl.Value, v) && !seen[k] {
					seen[k] = true
					out = append(out, flagUse{fl.Name, fl.Line, via})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b flagUse) int { return a.Line - b.Line })
	return out
}

// dividedUnderDP is a recipe's DP-attention branch that divides a cap.
type dividedUnderDP struct {
	Path        string
	Cond        script.Cond
	Divided     script.Arith
	DividedText string
	// Else is the line of the undivided assignment in the other branch (0
	// when there is none), ElseText its source.
	Else     int
	ElseText string
}

// findDivided returns f's assignment of name that divides by the DP world
// size on the DP-attention path.
func findDivided(p string, f *script.Facts, name string) (dividedUnderDP, bool) {
	for _, a := range f.Arith {
		if a.Target != name || len(a.Divisors()) == 0 {
			continue
		}
		c, ok := dpCond(a.Branch)
		if !ok {
			continue
		}
		d := dividedUnderDP{Path: p, Cond: c, Divided: a, DividedText: strings.TrimSpace(f.LineText(a.Line))}
		for _, b := range f.Arith {
			if b.Target == name && b.Line != a.Line && !dpAdmits(b.Branch) {
				d.Else, d.ElseText = b.Line, strings.TrimSpace(f.LineText(b.Line))
				break
			}
		}
		return d, true
	}
	return dividedUnderDP{}, false
}

func runSH007(p *checks.Pass) error { return eachChangedRecipe(p, sh007) }

func sh007(p *checks.Pass, t *target) error {
	if !runsDP(t.Head) {
		return nil
	}
	head := t.Head
	var sibs []*Sibling
	loaded := false
	reported := map[string]bool{}
	for _, a := range head.Arith {
		if a.Target == "" || reported[a.Target] || !a.Uses("CONC") || len(a.Divisors()) > 0 {
			continue
		}
		_, inDP := dpCond(a.Branch)
		if !a.Branch.Unconditional() && !inDP {
			continue
		}
		if handledElsewhere(head, a) {
			continue
		}
		var baseDiv *dividedUnderDP
		if t.Base != nil {
			if d, ok := findDivided(t.Path, t.Base, a.Target); ok {
				baseDiv = &d
			}
		}
		uses := capFlags(head, a.Target)
		if len(uses) == 0 {
			continue
		}
		// An old assignment is judged when the PR makes it matter: it
		// lost the base version's division, or the PR feeds it to a new
		// per-engine option (a real B200 PR: an added --max-cudagraph-capture-size
		// "$MAX_NUM_SEQS" under an unchanged MAX_NUM_SEQS=$((2 * CONC))).
		// The finding then sits on an unchanged line and goes to the
		// summary as outside the diff.
		newUse := slices.ContainsFunc(uses, func(u flagUse) bool { return t.added(u.Line) })
		var dpRows []ConfigRow
		if !t.added(a.Line) && baseDiv == nil && !newUse {
			// ... or the PR adds config rows that run the recipe with DP
			// attention.
			rows, err := ChangedRows(p.Ctx, p.Change, t.Path)
			if err != nil {
				return err
			}
			for _, r := range rows {
				if isTrueValue(r.Row.DPAttn) {
					dpRows = append(dpRows, r)
				}
			}
			if len(dpRows) == 0 {
				continue // an old assignment the PR did not touch
			}
		}
		if !loaded {
			var err error
			if sibs, err = Siblings(p.Ctx, p.Change, t.Path); err != nil {
				return err
			}
			loaded = true
		}
		var divs []dividedUnderDP
		for _, s := range sibs {
			if d, ok := findDivided(s.Path, s.Facts, a.Target); ok {
				divs = append(divs, d)
			}
		}
		if len(divs) == 0 && baseDiv == nil {
			continue
		}
		reported[a.Target] = true
		f := sh007Finding(t, a, inDP, uses, divs, baseDiv)
		for i, r := range dpRows {
			if i == 0 {
				f.Body += fmt.Sprintf(" This PR adds the DP-attention row that makes it matter (%s, %s).", prose.Code(r.Key), prose.Code(fmt.Sprintf("%s:%d", r.Path, r.Row.Line)))
			}
			if i < maxEvidence {
				f.Related = append(f.Related, headLoc(r.Path, r.Row.Line, 0, "row added or changed by this PR runs the recipe with dp-attn: true"))
			}
		}
		p.Report(f)
	}
	return nil
}

// handledElsewhere reports whether the script sets the variable another
// way on the DP-attention path: a divided assignment, or any other
// assignment made only under DP attention.
func handledElsewhere(f *script.Facts, a script.Arith) bool {
	for _, b := range f.Arith {
		if b.Target == a.Target && b.Line != a.Line && len(b.Divisors()) > 0 {
			return true
		}
	}
	for _, v := range f.VarsNamed(a.Target) {
		if v.Line == a.Line || v.Kind == script.Unset {
			continue
		}
		if _, ok := dpCond(v.Branch); ok && v.Line > a.Line {
			return true
		}
	}
	return false
}

// dividedExpr divides expr by div, parenthesizing a sum.
func dividedExpr(expr, div string) string {
	e := strings.TrimSpace(expr)
	if strings.ContainsAny(e, "+-") {
		e = "(" + e + ")"
	}
	return e + " / " + div
}

// sh007Finding reports a against the divided value a sibling (or the base
// version) computes under DP attention: that sibling is both the evidence
// and the fix, which is why the rule needs one.
func sh007Finding(t *target, a script.Arith, inDP bool, uses []flagUse, divs []dividedUnderDP, baseDiv *dividedUnderDP) checks.Finding {
	c := newSH007Case(t, a, inDP, uses, divs, baseDiv)
	related, sibRefs := c.related(uses)
	var sug *checks.Suggestion
	if inDP {
		sug = replaceOnce(t.Head, a.Line, a.Expr, c.fixed)
	}
	f := checks.Finding{
		Path:       t.Path,
		Line:       a.Line,
		Title:      a.Target + " not divided by the DP world size under DP attention",
		Body:       c.message(sibRefs),
		Related:    related,
		Suggestion: sug,
		Key:        "dp-divide:" + a.Target + "=" + normExpr(a.Expr),
		Facts:      capFacts(uses),
	}
	c.explain(sug).Apply(&f)
	return f
}

// sh007Case is what one SH007 finding is about, worked out once: the
// message, the evidence and the explanation each read most of it.
type sh007Case struct {
	t       *target
	a       script.Arith
	inDP    bool
	divs    []dividedUnderDP
	baseDiv *dividedUnderDP
	// evidence is baseDiv (when set) followed by divs.
	evidence []dividedUnderDP
	// stmt is the assignment as written.
	stmt string
	// div is the DP world size to divide by, fixed the divided expression.
	div, fixed string
	// dpFlag is the server's DP-size flag, when hasFlag.
	dpFlag  script.Flag
	hasFlag bool
	// flagRefs are the cap flags the value feeds, flagLines their lines.
	flagRefs, flagLines []string
	// headCond is the script's own DP-attention test (Line 0 when it has
	// none); condText is the test the fix should use.
	headCond script.Cond
	condText string
	// env is the worked example's DEP point.
	env map[string]int
}

func newSH007Case(t *target, a script.Arith, inDP bool, uses []flagUse, divs []dividedUnderDP, baseDiv *dividedUnderDP) *sh007Case {
	head := t.Head
	c := &sh007Case{t: t, a: a, inDP: inDP, divs: divs, baseDiv: baseDiv, stmt: strings.TrimSpace(head.LineText(a.Line))}

	c.div = "TP"
	var dpSize string
	c.dpFlag, dpSize, c.hasFlag = dpSizeFlag(head)
	switch {
	case dpSize != "":
		c.div = dpSize
	case baseDiv != nil && len(baseDiv.Divided.Divisors()) == 1:
		c.div = baseDiv.Divided.Divisors()[0]
	case len(divs) > 0 && len(divs[0].Divided.Divisors()) == 1:
		c.div = divs[0].Divided.Divisors()[0]
	}
	c.fixed = dividedExpr(a.Expr, c.div)

	for _, u := range uses {
		if !slices.Contains(c.flagRefs, prose.Code(u.Name)) {
			c.flagRefs = append(c.flagRefs, prose.Code(u.Name))
		}
		c.flagLines = append(c.flagLines, strconv.Itoa(u.Line))
	}

	c.evidence = divs
	if baseDiv != nil {
		c.evidence = append([]dividedUnderDP{*baseDiv}, divs...)
	}
	c.headCond, c.condText = dpAttentionTest(head, c.evidence)
	c.env = map[string]int{"CONC": 72, c.div: 8}
	return c
}

// dpAttentionTest is the DP-attention test the fix should use: the one
// this script already has (returned as headCond too), else the evidence's,
// else the usual one.
func dpAttentionTest(head *script.Facts, evidence []dividedUnderDP) (headCond script.Cond, condText string) {
	for _, x := range head.Arith {
		if c, ok := dpCond(x.Branch); ok {
			headCond, condText = c, c.Text
			break
		}
	}
	if condText == "" {
		for _, v := range head.Vars {
			if c, ok := dpCond(v.Branch); ok {
				headCond, condText = c, c.Text
				break
			}
		}
	}
	if condText == "" && len(evidence) > 0 {
		condText = evidence[0].Cond.Text
	}
	if condText == "" {
		condText = `[ "$DP_ATTENTION" = "true" ]`
	}
	return headCond, condText
}

// related is the evidence: the base version's division, the siblings'
// (up to maxEvidence, also returned as references for the message), and
// the flags the value feeds.
func (c *sh007Case) related(uses []flagUse) (related []checks.Location, sibRefs []string) {
	t, a := c.t, c.a
	if c.baseDiv != nil {
		bp := t.Path
		if t.File.OldPath != "" {
			bp = t.File.OldPath
		}
		end := max(c.baseDiv.Else, c.baseDiv.Divided.Line)
		related = append(related, baseLoc(bp, c.baseDiv.Cond.Line, end, "the base version of this file divides "+a.Target+" by "+strings.Join(c.baseDiv.Divided.Divisors(), ", ")+" under DP attention"))
	}
	for _, d := range c.divs {
		if len(sibRefs) >= maxEvidence {
			break
		}
		end := max(d.Else, d.Divided.Line)
		related = append(related, t.sibLoc(d.Path, d.Cond.Line, end, fmt.Sprintf("%s=$((%s)) under %s", a.Target, d.Divided.Expr, prose.Code(d.Cond.Text))))
		sibRefs = append(sibRefs, prose.Code(ref(d.Path, d.Cond.Line, end)))
	}
	for _, u := range uses {
		related = append(related, headLoc(t.Path, u.Line, 0, "uses "+a.Target+" for "+prose.Code(u.Name)))
	}
	return related, sibRefs
}

// workedExample is the over-provisioning at the example DEP point, or ""
// when the expression cannot be evaluated or dividing changes nothing.
func (c *sh007Case) workedExample() string {
	if v, ok := evalArith(c.a.Expr, c.env); ok {
		if d, ok := evalArith(c.fixed, c.env); ok && d != v {
			return fmt.Sprintf("with %s=8 and CONC=72 that is %d per rank where %d is the rank's share", c.div, v, d)
		}
	}
	return ""
}

func (c *sh007Case) message(sibRefs []string) string {
	a, div := c.a, c.div
	flagNote := ""
	if c.hasFlag {
		flagNote = fmt.Sprintf(" (%s, line %d)", prose.Code(c.dpFlag.Name+" "+c.dpFlag.Value), c.dpFlag.Line)
	}
	var msg string
	if c.inDP {
		msg = fmt.Sprintf("%s (line %d) sets the cap inside the DP-attention branch%s without dividing by the DP world size", prose.Code(c.stmt), a.Line, flagNote)
	} else {
		msg = fmt.Sprintf("%s (line %d) is computed unconditionally, but this script runs DP attention%s", prose.Code(c.stmt), a.Line, flagNote)
	}
	msg += fmt.Sprintf(": each DP rank is an independent engine that sees about CONC/%s of the sessions, so %s (%s) %s sized for the whole concurrency on every rank", div, prose.JoinAnd(c.flagRefs), linesPhrase(c.flagLines), isAre(len(c.flagRefs)))
	if example := c.workedExample(); example != "" {
		msg += " — " + example
	}
	msg += ". "
	switch {
	case c.baseDiv != nil:
		msg += fmt.Sprintf("The base version of this file divided it by %s under DP attention, as the siblings do", div)
		if len(sibRefs) > 0 {
			msg += " (" + prose.JoinAnd(sibRefs) + ")"
		}
		msg += ". "
	case len(sibRefs) == 1:
		msg += fmt.Sprintf("The sibling %s divides it by %s under DP attention. ", sibRefs[0], div)
	default:
		msg += fmt.Sprintf("The siblings %s divide it by %s under DP attention. ", prose.JoinAnd(sibRefs), div)
	}
	msg += fmt.Sprintf("Compute `%s=$((%s))` when DP attention is on.", a.Target, c.fixed)
	return msg
}

// explain walks the example DEP point through the script; the fix it
// proposes depends on whether a suggestion already carries it.
func (c *sh007Case) explain(sug *checks.Suggestion) *checks.Explain {
	a, div, fixed := c.a, c.div, c.fixed
	ex := &checks.Explain{}
	w := ex.Printf
	ex.Problem()
	w("%s (line %d) derives %s from CONC without dividing by the DP world size", prose.Code(c.stmt), a.Line, prose.Code(a.Target))
	if c.inDP {
		w(", inside the DP-attention branch itself")
	} else {
		w(", and nothing on the DP-attention path recomputes it")
	}
	w(". The value feeds %s (%s).\n\n", prose.JoinAnd(c.flagRefs), linesPhrase(c.flagLines))
	ex.Why()
	w("With DP attention the server runs %s engines of tensor-parallel size 1, one per rank, and the router spreads the sessions over them, so each engine sees about CONC/%s of them. `--max-num-seqs` and `--max-cudagraph-capture-size` are per-engine settings: a value sized for the whole concurrency over-provisions every rank %s-fold — a wider scheduler cap and CUDA-graph capture range than the rank ever uses, and numbers that are not comparable with the siblings' DEP points.\n\n", div, div, div)
	c.explainEvidence(ex)
	ex.Step()
	w("A DEP point runs with `DP_ATTENTION=true`, %s=8, CONC=72.\n", div)
	ex.Step()
	if c.hasFlag {
		w("The server gets %s (line %d): 8 engines, one per rank.\n", prose.Code(c.dpFlag.Name+" "+c.dpFlag.Value), c.dpFlag.Line)
	} else {
		w("The server runs one engine per DP rank: 8 engines.\n")
	}
	if v, ok := evalArith(a.Expr, c.env); ok {
		ex.Step()
		w("Line %d sets %s=%d, and every engine gets %s %d.\n", a.Line, a.Target, v, strings.Join(c.flagRefs, " / "), v)
		if d, ok := evalArith(fixed, c.env); ok {
			ex.Step()
			w("Each engine only sees about 72/8 = 9 of the sessions; the per-rank value is %d, as %s computes it.", d, prose.Code(a.Target+"=$(("+fixed+"))"))
		}
	} else {
		ex.Step()
		w("Line %d sizes %s for all CONC sessions, and every engine gets that value, about 8 times what a rank sees.\n\n", a.Line, prose.Code(a.Target))
	}
	ex.Fix()
	switch {
	case c.inDP && sug != nil:
		w("Divide in the DP-attention branch.")
	case c.inDP:
		w("Divide in the DP-attention branch: `%s=$((%s))`.\n", a.Target, fixed)
	default:
		w("Compute the value per rank when DP attention is on")
		if c.headCond.Line > 0 {
			w(" — for instance by moving the assignment into the existing DP branch (line %d) and its else branch", c.headCond.Line)
		}
		w(":\n\n```bash\nif %s; then\n    %s=$((%s))\nelse\n    %s\nfi\n```\n", c.condText, a.Target, fixed, c.stmt)
	}
	return ex
}

// explainEvidence quotes the first division the evidence has: the base
// version's own, else a sibling's.
func (c *sh007Case) explainEvidence(ex *checks.Explain) {
	if len(c.evidence) == 0 {
		return
	}
	w := ex.Printf
	e := c.evidence[0]
	ex.Evidence()
	if c.baseDiv != nil {
		w("The base version of this file computed the value per rank (%s)", prose.Code(ref(e.Path, e.Cond.Line, max(e.Else, e.Divided.Line))))
		if len(c.divs) > 0 {
			w(", as %s still %s", prose.Pick(len(c.divs), "the sibling", "the siblings"), prose.Pick(len(c.divs), "does", "do"))
		}
	} else {
		w("%s computes the same value per rank", prose.Code(ref(e.Path, e.Cond.Line, max(e.Else, e.Divided.Line))))
		if len(c.divs) > 1 {
			w(", and so %s %s", prose.Pick(len(c.divs)-1, "does", "do"), prose.Count(len(c.divs)-1, "other sibling", "other siblings"))
		}
	}
	w(":\n\n```bash\n")
	w("if %s; then\n    %s\n", e.Cond.Text, e.DividedText)
	if e.Else > 0 {
		w("else\n    %s\n", e.ElseText)
	}
	w("fi\n```\n")
}

// linesPhrase renders "line 12" or "lines 12 and 13".
func linesPhrase(lines []string) string {
	if len(lines) == 1 {
		return "line " + lines[0]
	}
	return "lines " + prose.JoinAnd(lines)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// normExpr drops the whitespace of an arithmetic expression, for finding
// keys.
func normExpr(s string) string { return strings.Join(strings.Fields(s), "") }

func capFacts(uses []flagUse) []string {
	var out []string
	for _, u := range uses {
		k := "flag:" + script.NormFlag(u.Name)
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// evalArith evaluates a shell arithmetic expression with the variables of
// env, as bash would (mvdan.cc/sh parses and evaluates it). It fails when
// the expression does not parse, assigns to anything, reads a variable
// env lacks, or divides by zero: a value the bot cannot know is not 0.
func evalArith(expr string, env map[string]int) (int, bool) {
	e, err := script.ParseArithmetic(expr)
	if err != nil || e == nil {
		return 0, false
	}
	known := true
	syntax.Walk(e, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryArithm:
			if script.IsArithAssign(n.Op) {
				known = false
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				known = false
			}
		case *syntax.ParamExp:
			if _, ok := env[n.Param.Value]; !ok || n.Exp != nil || n.Index != nil || n.Slice != nil || n.Repl != nil || n.Length {
				known = false
			}
		case *syntax.Lit:
			if syntax.ValidName(n.Value) {
				if _, ok := env[n.Value]; !ok {
					known = false
				}
			}
		case *syntax.CmdSubst, *syntax.ProcSubst:
			known = false
		}
		return known
	})
	if !known {
		return 0, false
	}
	vars := make([]string, 0, len(env))
	for k, v := range env {
		vars = append(vars, k+"="+strconv.Itoa(v))
	}
	v, err := expand.Arithm(&expand.Config{Env: expand.ListEnviron(vars...)}, e)
	if err != nil {
		return 0, false
	}
	return v, true
}

// isTrueValue reports whether a YAML scalar reads as true.
func isTrueValue(s string) bool {
	switch strings.ToLower(strings.Trim(s, `"'`)) {
	case "true", "yes", "on":
		return true
	}
	return false
}

// holdsFor reports whether condition c can hold when its variable is v.
func holdsFor(c script.Cond, v string) bool {
	h, _ := c.Holds(v)
	return h
}
