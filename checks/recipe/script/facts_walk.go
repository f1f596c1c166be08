package script

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The extractor walks the syntax tree once, in source order, keeping the
// path of conditions it is under. It records the simple facts directly,
// and keeps every assignment and command for a second phase that
// resolves commands through the arrays and variables they are built from
// (facts_command.go).

type extractor struct {
	f *Facts
	// srcb is the script (Facts.src): node texts are substrings of it.
	srcb string

	ids     int
	assigns map[string][]*assignRec // by variable, in source order
	calls   []callSite
	funcs   map[string]bool
	// funcUse is, per function, the offset of its last call: commands
	// inside a function resolve variables as they stand there.
	funcUse        map[string]int
	jsonByWord     map[jsonKey]*JSONConfig
	usedDefs       map[*assignRec]bool
	runArrays      map[string]bool // arrays seen running as a command
	enginePathVars map[string]bool
	overrideSeen   map[string]bool
	texts          map[*syntax.Word]*text
	heredocs       map[*syntax.Redirect]*text
	branches       map[*Cond]*branchArray // see with
	condSlots      int                    // conditions the branch arrays hold
	tooDeep        int                    // line where condSlots passed maxCondSlots

	hdoc   int    // inside a heredoc body (its text is another program's)
	bg     bool   // inside a backgrounded statement
	fn     string // the function being walked ("" at top level)
	budget int    // words expand may still resolve
	scans  int    // assignments the resolution may still look at (scan)

	// Allocation in bulk: records are taken from slabs, and a command's
	// word lists from stacks a nested command (in a substitution) pushes
	// above its caller's.
	assignSlab []assignRec
	callSlab   []callRec
	argvStack  []string
	textStack  []*text
	boolStack  []bool
}

const slabSize = 32

// fromSlab hands out one zeroed element of a slab, allocating the next
// slab when it runs out: records are many and small, and live as long as
// the facts.
func fromSlab[T any](slab *[]T) *T {
	if len(*slab) == 0 {
		*slab = make([]T, slabSize)
	}
	r := &(*slab)[0]
	*slab = (*slab)[1:]
	return r
}

// push reserves n zeroed elements on top of a stack. The slice returned
// is capped so that appending to it cannot touch the stack.
func push[T any](stack *[]T, n int) []T {
	k := len(*stack)
	*stack = slices.Grow(*stack, n)[:k+n]
	s := (*stack)[k : k+n : k+n]
	clear(s)
	return s
}

// assignRec is one assignment, kept for resolving later uses.
type assignRec struct {
	name    string
	append  bool
	array   bool
	words   []*syntax.Word // array elements, or the single value word
	one     [1]*syntax.Word
	t       *text // a scalar's value
	line    int
	endLine int
	off     int
	path    Branch
	src     string
	json    *JSONConfig
}

// callSite is one simple command, as the second phase needs it: every
// one may call a function the script defines; those that may launch a
// server or client keep their whole record.
type callSite struct {
	argv0 string
	path  Branch
	line  int
	off   int
	rec   *callRec // nil unless rec.candidate
}

// callRec is one simple command.
type callRec struct {
	call      *syntax.CallExpr
	path      Branch
	off       int
	line      int
	endLine   int
	bg        bool
	fn        string
	argv0     string
	candidate bool // may be a server or client launch
}

func newExtractor(f *Facts, src string) *extractor {
	// Most reads are $ expansions and most bindings hold an "=": sizing
	// the two largest fact slices by them spares regrowing them (file()
	// drops an unused one).
	if n := strings.Count(src, "$"); n > 0 {
		f.Reads = make([]Read, 0, n+n/8+4)
	}
	// (A quarter more for bindings without one: loop variables, unsets.)
	if n := strings.Count(src, "="); n > 0 {
		f.Vars = make([]Var, 0, n+n/4+8)
	}
	if n := strings.Count(src, "(("); n > 0 {
		f.Arith = make([]Arith, 0, n+2)
	}
	return &extractor{
		f: f,
		// About a command every other line.
		calls:          make([]callSite, 0, len(f.lineStarts)/2+8),
		srcb:           src,
		assigns:        map[string][]*assignRec{},
		funcs:          map[string]bool{},
		funcUse:        map[string]int{},
		jsonByWord:     map[jsonKey]*JSONConfig{},
		usedDefs:       map[*assignRec]bool{},
		runArrays:      map[string]bool{},
		enginePathVars: map[string]bool{},
		overrideSeen:   map[string]bool{},
		texts:          make(map[*syntax.Word]*text, len(src)/512),
		branches:       map[*Cond]*branchArray{},
		budget:         expandBudget,
		scans:          scanBudget,
	}
}

func (x *extractor) newID() int {
	x.ids++
	return x.ids
}

// src returns a node's source text.
func (x *extractor) src(n syntax.Node) string {
	if n == nil {
		return ""
	}
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(x.srcb) || s >= e {
		return ""
	}
	return x.srcb[s:e]
}

// lineOf returns the 1-based line of a byte offset: the number of line
// starts at or before it.
func (x *extractor) lineOf(off int) int {
	ls := x.f.lineStarts
	lo, hi := 0, len(ls)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ls[m] > off {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// endLine is the line of a node's last character, not counting a
// trailing line continuation (a word's end position lies past it).
func (x *extractor) endLine(n syntax.Node) int {
	start := int(n.Pos().Offset())
	off := int(n.End().Offset())
	if off > len(x.srcb) {
		off = len(x.srcb)
	}
	for off > start {
		c := x.srcb[off-1]
		switch {
		case c == '\n' && off >= 2 && x.srcb[off-2] == '\\':
			off -= 2
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			off--
		default:
			return x.lineOf(off - 1)
		}
	}
	return posLine(n.Pos())
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(strings.TrimSuffix(s[:i], "\\"))
	}
	return s
}

func (x *extractor) file(file *syntax.File) {
	x.stmts(file.Stmts, nil)
	x.commentList(file.Last)
	x.resolve()
	x.dropFuncSubsts()
	sortFacts(x.f)
	if len(x.f.Reads) == 0 {
		x.f.Reads = nil
	}
	if len(x.f.Vars) == 0 {
		x.f.Vars = nil
	}
	if len(x.f.Arith) == 0 {
		x.f.Arith = nil
	}
}

// Comments are collected by the main walk, from every node that holds
// them (the fields syntax.Walk visits for comments), rather than by a
// second walk over the whole tree. Where the walk skips a subtree that
// may hold statements, commentsIn collects them instead. There is at most
// one comment per line, so sorting by line gives the order of the source
// whatever order they are found in.

func (x *extractor) comment(c *syntax.Comment) {
	line := posLine(c.Pos())
	if line == 1 && c.Pos().Col() == 1 && strings.HasPrefix(c.Text, "!") {
		x.f.Shebang = strings.TrimSpace(c.Text[1:])
		return
	}
	x.f.Comments = append(x.f.Comments, Comment{Line: line, EndLine: line, Text: strings.TrimSpace(c.Text)})
}

func (x *extractor) commentList(list []syntax.Comment) {
	for i := range list {
		x.comment(&list[i])
	}
}

// commentsIn collects the comments of a subtree the extractor does not
// otherwise walk.
func (x *extractor) commentsIn(n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.Comment); ok {
			x.comment(c)
		}
		return true
	})
}

// mayHoldComments reports whether a word can contain a comment: only
// inside a command or process substitution, which plain literal and
// quoted words do not have.
func mayHoldComments(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch part.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return true
		}
	}
	return false
}

// sortFacts puts facts in line order: the walk records a statement's
// parts (a command substitution before its assignment, say) out of it.
func sortFacts(f *Facts) {
	slices.SortStableFunc(f.Comments, func(a, b Comment) int { return a.Line - b.Line })
	slices.SortStableFunc(f.Vars, func(a, b Var) int { return a.Line - b.Line })
	slices.SortStableFunc(f.Reads, func(a, b Read) int { return a.Line - b.Line })
	slices.SortStableFunc(f.Arith, func(a, b Arith) int { return a.Line - b.Line })
	slices.SortStableFunc(f.JSON, func(a, b *JSONConfig) int { return a.Line - b.Line })
	slices.SortStableFunc(f.Servers, func(a, b *Command) int { return a.Line - b.Line })
	slices.SortStableFunc(f.Clients, func(a, b *Command) int { return a.Line - b.Line })
	slices.SortStableFunc(f.Patches, func(a, b Patch) int { return a.Line - b.Line })
	slices.SortStableFunc(f.Overrides, func(a, b Override) int { return a.Line - b.Line })
	slices.SortStableFunc(f.Images, func(a, b Image) int { return a.Line - b.Line })
}

// with returns p extended by c. Nested constructs extend the branch of
// the one around them, so copying p every time would cost the square of
// the nesting depth; instead a branch is a prefix of a shared array, and
// the first extension of a prefix writes into the array's next free slot.
// Every branch handed out has len == cap, so no caller's append can reach
// a slot another branch owns.
func (x *extractor) with(p Branch, c Cond) Branch {
	n := len(p)
	if n > 0 {
		if a := x.branches[&p[0]]; a != nil && a.used == n && n < cap(a.conds) {
			a.conds = a.conds[:n+1]
			a.conds[n] = c
			a.used = n + 1
			return a.conds[: n+1 : n+1]
		}
	}
	if x.condSlots += 2*n + 2; x.condSlots > maxCondSlots {
		// Two constructs under one deep prefix (an if and its else,
		// siblings in a deep block) each copy the prefix; past the bound
		// the script is too deeply nested to review (extractFacts says
		// so), and the branch stops growing.
		if x.tooDeep == 0 {
			x.tooDeep = max(c.Line, 1)
		}
		return p
	}
	conds := make(Branch, n+1, 2*n+2)
	copy(conds, p)
	conds[n] = c
	x.branches[&conds[0]] = &branchArray{conds: conds, used: n + 1}
	return conds[: n+1 : n+1]
}

// maxCondSlots bounds the conditions the branch arrays of one script may
// hold: a deep nest with many branches at the bottom copies the nest's
// conditions once per branch. The real repository's most nested script
// needs about 8,000.
const maxCondSlots = 1 << 17

// branchArray is the array branches share (see with): used is how many of
// its slots some branch already owns.
type branchArray struct {
	conds Branch
	used  int
}

func (x *extractor) stmts(list []*syntax.Stmt, p Branch) {
	for _, s := range list {
		x.stmt(s, p)
	}
}

func (x *extractor) stmt(s *syntax.Stmt, p Branch) {
	if s == nil {
		return
	}
	x.commentList(s.Comments)
	bg := x.bg
	if s.Background {
		x.bg = true
	}
	defer func() { x.bg = bg }()
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		x.call(s, c, p)
	case *syntax.DeclClause:
		x.decl(c, p)
	case *syntax.IfClause:
		x.ifClause(c, p)
	case *syntax.CaseClause:
		x.caseClause(c, p)
	case *syntax.WhileClause:
		x.stmts(c.Cond, p)
		cond := Cond{Kind: CondLoop, Text: "while " + strings.TrimRight(firstLine(x.stmtsSrc(c.Cond)), "; \t"), Line: posLine(c.Pos()), id: x.newID()}
		if c.Until {
			cond.Text = "until " + strings.TrimPrefix(cond.Text, "while ")
		}
		x.stmts(c.Do, x.with(p, cond))
		x.commentList(c.CondLast)
		x.commentList(c.DoLast)
	case *syntax.ForClause:
		x.forClause(c, p)
		x.commentList(c.DoLast)
	case *syntax.Block:
		x.stmts(c.Stmts, p)
		x.commentList(c.Last)
	case *syntax.Subshell:
		x.stmts(c.Stmts, p)
		x.commentList(c.Last)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			x.stmt(c.X, p)
			cond := x.testCond([]*syntax.Stmt{c.X})
			if c.Op == syntax.OrStmt {
				cond.Negated, cond.elseOf = !cond.Negated, true
			}
			x.stmt(c.Y, x.with(p, cond))
		default:
			x.stmt(c.X, p)
			x.stmt(c.Y, p)
		}
	case *syntax.FuncDecl:
		x.funcDecl(c, p)
	case *syntax.ArithmCmd:
		x.arithCmd(c.X, p, posLine(c.Pos()))
	case *syntax.LetClause:
		for _, e := range c.Exprs {
			x.arithCmd(e, p, posLine(c.Pos()))
		}
	case *syntax.TestClause:
		x.testReads(c.X, p)
	case *syntax.TimeClause:
		x.stmt(c.Stmt, p)
	case *syntax.CoprocClause:
		x.stmt(c.Stmt, p)
	}
	for _, r := range s.Redirs {
		if r.Word != nil {
			x.words(r.Word, p, "")
		}
		if r.Hdoc != nil {
			x.hdoc++
			x.words(r.Hdoc, p, "")
			x.hdoc--
			ht := x.heredocText(r)
			x.scanText(ht.String(), ht.line(), p)
		}
	}
	x.redirects(s, p)
	x.heredocBodies(s, p)
}

// heredocBodies records the heredoc bodies of a statement, with the file it
// writes them to.
func (x *extractor) heredocBodies(s *syntax.Stmt, p Branch) {
	target := ""
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob:
			if r.Word != nil {
				target = x.src(r.Word)
			}
		}
	}
	for _, r := range s.Redirs {
		if (r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc) || r.Hdoc == nil {
			continue
		}
		body := x.src(r.Hdoc)
		if body == "" {
			continue
		}
		// The node may run through the closing delimiter; drop it.
		if r.Word != nil {
			delim := strings.Trim(x.src(r.Word), `'"\`)
			trimmed := strings.TrimRight(body, "\n")
			if i := strings.LastIndexByte(trimmed, '\n'); strings.TrimLeft(trimmed[i+1:], "\t") == delim {
				body = trimmed[:i+1]
			}
		}
		if r.Op == syntax.DashHdoc {
			// <<- strips leading tabs from every line, as bash does.
			lines := strings.Split(body, "\n")
			for i, l := range lines {
				lines[i] = strings.TrimLeft(l, "\t")
			}
			body = strings.Join(lines, "\n")
		}
		line := posLine(r.Hdoc.Pos())
		x.f.Heredocs = append(x.f.Heredocs, Heredoc{Line: line, EndLine: line + strings.Count(strings.TrimSuffix(body, "\n"), "\n"),
			Body: body, Target: target, StmtLine: posLine(s.Pos()), Branch: p})
	}
}

func (x *extractor) stmtsSrc(list []*syntax.Stmt) string {
	if len(list) == 0 {
		return ""
	}
	s, e := int(list[0].Pos().Offset()), int(list[len(list)-1].End().Offset())
	if s < 0 || e > len(x.srcb) || s >= e {
		return ""
	}
	return x.srcb[s:e]
}

// words records what a word (or any node holding words) reads, and walks
// into command substitutions. target is the variable being assigned, for
// arithmetic facts.
//
// It visits nodes in syntax.Walk's order (the order of the Reads facts
// depends on it) without the cost of Walk's callback on every node:
// most words are a literal or a quoted string with one expansion.
func (x *extractor) words(n syntax.Node, p Branch, target string) {
	switch n := n.(type) {
	case nil:
	case *syntax.Word:
		if n == nil {
			return
		}
		for _, part := range n.Parts {
			x.words(part, p, target)
		}
	case *syntax.Lit:
		if x.hdoc == 0 && strings.IndexByte(n.Value, '{') >= 0 {
			x.bareBraces(n, p)
		}
	case *syntax.SglQuoted:
	case *syntax.DblQuoted:
		for _, part := range n.Parts {
			x.words(part, p, target)
		}
	case *syntax.ParamExp:
		x.paramRead(n, p)
		if n.NestedParam != nil {
			x.words(n.NestedParam, p, target)
		}
		if n.Index != nil {
			x.words(n.Index, p, target)
		}
		if n.Slice != nil {
			if n.Slice.Offset != nil {
				x.words(n.Slice.Offset, p, target)
			}
			if n.Slice.Length != nil {
				x.words(n.Slice.Length, p, target)
			}
		}
		if n.Repl != nil {
			if n.Repl.Orig != nil {
				x.words(n.Repl.Orig, p, target)
			}
			if n.Repl.With != nil {
				x.words(n.Repl.With, p, target)
			}
		}
		if n.Exp != nil && n.Exp.Word != nil {
			x.words(n.Exp.Word, p, target)
		}
	case *syntax.CmdSubst:
		x.nameSubst(n, p)
		bg := x.bg
		x.bg = false
		x.stmts(n.Stmts, p)
		x.bg = bg
		x.commentList(n.Last)
	case *syntax.ProcSubst:
		x.stmts(n.Stmts, p)
		x.commentList(n.Last)
	case *syntax.ArithmExp:
		x.arith(n.X, p, target, posLine(n.Pos()))
	case *syntax.BinaryArithm:
		x.words(n.X, p, target)
		x.words(n.Y, p, target)
	case *syntax.UnaryArithm:
		x.words(n.X, p, target)
	case *syntax.ParenArithm:
		x.words(n.X, p, target)
	default:
		// Nodes bash scripts do not produce here (zsh forms): the generic
		// walk, as before.
		syntax.Walk(n, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.ParamExp:
				x.paramRead(n, p)
			case *syntax.CmdSubst:
				bg := x.bg
				x.bg = false
				x.stmts(n.Stmts, p)
				x.bg = bg
				x.commentList(n.Last)
				return false
			case *syntax.ProcSubst:
				x.stmts(n.Stmts, p)
				x.commentList(n.Last)
				return false
			case *syntax.ArithmExp:
				x.arith(n.X, p, target, posLine(n.Pos()))
				return false
			}
			return true
		})
	}
}

func (x *extractor) funcDecl(c *syntax.FuncDecl, p Branch) {
	if c.Name == nil || c.Body == nil {
		if c.Body != nil {
			x.commentsIn(c.Body)
		}
		return
	}
	name := c.Name.Value
	x.funcs[name] = true
	x.maskedStatus(c)
	cond := Cond{Kind: CondFunc, Name: name, Text: name, Line: posLine(c.Pos()), id: x.newID()}
	bg, fn := x.bg, x.fn
	x.bg, x.fn = false, name
	x.stmt(c.Body, x.with(p, cond))
	x.bg, x.fn = bg, fn
}

func (x *extractor) forClause(c *syntax.ForClause, p Branch) {
	line := posLine(c.Pos())
	cond := Cond{Kind: CondLoop, Line: line, id: x.newID()}
	inner := p
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		cond.Text = "for " + firstLine(x.src(l))
		for _, w := range l.Items {
			x.words(w, p, "")
		}
		inner = x.with(p, cond)
		if l.Name != nil {
			x.f.Vars = append(x.f.Vars, Var{Name: l.Name.Value, Kind: Bind, Value: firstLine(x.src(l)), HasValue: true, Line: line, EndLine: line, Branch: inner})
		}
	case *syntax.CStyleLoop:
		cond.Text = "for ((" + strings.TrimSpace(x.src(l.Init)) + "; " + strings.TrimSpace(x.src(l.Cond)) + "; " + strings.TrimSpace(x.src(l.Post)) + "))"
		inner = x.with(p, cond)
		for _, e := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
			if e != nil {
				x.arithCmd(e, inner, line)
			}
		}
	default:
		inner = x.with(p, cond)
	}
	x.stmts(c.Do, inner)
}

// call handles a simple command.
func (x *extractor) call(s *syntax.Stmt, c *syntax.CallExpr, p Branch) {
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			x.assign(a, p, Assign, "")
		}
		return
	}
	// Most facts of a command need only its words' values: the texts are
	// made on demand (argTexts.at). No fact keeps these lists.
	n := len(c.Args)
	na, nt, nb := len(x.argvStack), len(x.textStack), len(x.boolStack)
	defer func() {
		x.argvStack, x.textStack, x.boolStack = x.argvStack[:na], x.textStack[:nt], x.boolStack[:nb]
	}()
	texts := argTexts{x: x, words: c.Args, t: push(&x.textStack, n), static: push(&x.boolStack, n)}
	argv := push(&x.argvStack, n)
	for i, w := range c.Args {
		argv[i], texts.static[i] = x.wordString(w)
	}
	x.strays(c, argv, texts.static, p)
	start, envIdx := stripWrappers(argv)
	cmd := argv[0]
	if start < len(argv) {
		cmd = argv[start]
	}
	for _, a := range c.Assigns {
		x.assign(a, p, EnvPrefix, cmd)
	}
	for i, w := range c.Args {
		x.words(w, p, "")
		x.scanText(argv[i], posLine(w.Pos()), p)
	}
	// x.fn is p.InFunc(), without scanning the branch at every command.
	fn := x.fn
	local := callRec{call: c, path: p, off: int(c.Pos().Offset()), line: posLine(c.Pos()),
		endLine: x.endLine(c), bg: x.bg, fn: fn, argv0: argv[0]}
	rec := &local
	site := len(x.calls)
	x.calls = append(x.calls, callSite{argv0: rec.argv0, path: p, line: rec.line, off: rec.off})
	defer func() {
		if local.candidate {
			x.calls[site].rec = fromSlab(&x.callSlab)
			*x.calls[site].rec = local
		}
	}()

	for _, i := range envIdx {
		name, val, _ := strings.Cut(argv[i], "=")
		x.f.Vars = append(x.f.Vars, Var{Name: name, Kind: EnvPrefix, Value: val, HasValue: true, Static: texts.static[i],
			Line: posLine(c.Args[i].Pos()), EndLine: posLine(c.Args[i].Pos()), Branch: p, Command: cmd})
	}
	x.images(argv, p, rec)
	if start >= len(argv) {
		return
	}
	rec.candidate = x.mayLaunch(c.Args[start:], argv[start:])
	args, words := argv[start:], c.Args[start:]
	switch baseName(args[0]) {
	case "set":
		x.setCmd(args, p, rec)
	case "unset":
		x.unset(args, words, p)
	case "source", ".":
		if len(args) > 1 {
			x.f.Sources = append(x.f.Sources, Source{Line: rec.line, Branch: p, Target: args[1], Lib: baseName(args[1]) == "benchmark_lib.sh"})
		}
	case "git":
		x.gitCmd(args, p, rec)
	case "eval":
		x.f.Evals = append(x.f.Evals, rec.line)
	case "check_env_vars":
		ec := EnvCheck{Line: rec.line, Branch: p}
		for i, a := range args[1:] {
			if texts.static[start+1+i] && syntax.ValidName(a) {
				ec.Vars = append(ec.Vars, a)
			}
		}
		x.f.EnvChecks = append(x.f.EnvChecks, ec)
	case "read":
		x.read(s, args, words, p)
	case "[", "test":
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-v" && syntax.ValidName(args[i+1]) {
				x.f.Reads = append(x.f.Reads, Read{Name: args[i+1], Line: posLine(words[i+1].Pos()), Branch: p, Op: "-v", Defaulted: true})
			}
		}
	}
	x.shapes(s, rec, args, texts.from(start), p)
}

// isNameStart reports whether b can start a shell variable name.
func isNameStart(b byte) bool { return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// strays records the places where bash starts a new command that the
// author meant as part of this one (Facts.Strays): a first word that is
// an option (or a diff marker pasted in front of a line), or a comment
// between two words. Bash ends a command at a
// comment, backslash or not; the parser reads a comment that ends in a
// backslash as continued, so the gap between the words shows it.
func (x *extractor) strays(c *syntax.CallExpr, argv []string, static []bool, p Branch) {
	if len(x.f.Strays) >= maxStrays {
		return
	}
	if w := argv[0]; len(w) > 1 && (w[0] == '-' && (static[0] || isNameStart(w[1])) || w[0] == '+' && isNameStart(w[1])) {
		x.f.Strays = append(x.f.Strays, Stray{Line: posLine(c.Args[0].Pos()), Word: w, Static: static[0], Branch: p})
		return
	}
	for i := 0; i+1 < len(c.Args); i++ {
		from, to := int(c.Args[i].End().Offset()), int(c.Args[i+1].Pos().Offset())
		if from >= to || to > len(x.f.src) {
			continue
		}
		gap := x.f.src[from:to]
		if at := strings.IndexByte(gap, '#'); at >= 0 {
			line := posLine(c.Args[i].End()) + strings.Count(gap[:at], "\n")
			x.f.Strays = append(x.f.Strays, Stray{Line: posLine(c.Args[i+1].Pos()), Word: argv[i+1], Static: static[i+1], Branch: p, Comment: line})
			return
		}
	}
}

// argTexts are the texts of a command's words, made on demand (by
// wordText, so kept for command resolution); their values and whether
// they are static are known up front.
type argTexts struct {
	x      *extractor
	words  []*syntax.Word
	t      []*text
	static []bool
}

func (a argTexts) at(i int) *text {
	if a.t[i] == nil {
		a.t[i] = a.x.wordText(a.words[i])
	}
	return a.t[i]
}

// isEnginePath is x.isEnginePath of word i.
func (a argTexts) isEnginePath(i int) bool {
	if a.t[i] != nil {
		return a.x.isEnginePath(a.t[i])
	}
	return a.x.isEnginePathWord(a.words[i])
}

func (a argTexts) from(k int) argTexts {
	return argTexts{x: a.x, words: a.words[k:], t: a.t[k:], static: a.static[k:]}
}

// bareBraces records the {NAME} groups of a literal that no $ opens: bash
// leaves them as written (a brace expansion needs a comma or a range), so
// `X={NAME}` passes the text "{NAME}", not NAME's value. Only capitalized
// names count (the spelling of shell variables), not {{NAME}} templates.
func (x *extractor) bareBraces(n *syntax.Lit, p Branch) {
	v := n.Value
	for i := 0; i < len(v) && len(x.f.BareBraces) < maxBareBraces; i++ {
		if v[i] != '{' || i > 0 && (v[i-1] == '$' || v[i-1] == '{') {
			continue
		}
		j := i + 1
		for j < len(v) && (v[j] == '_' || v[j] >= 'A' && v[j] <= 'Z' || v[j] >= '0' && v[j] <= '9') {
			j++
		}
		if j == len(v) || v[j] != '}' || j-i-1 < 3 || v[i+1] >= '0' && v[i+1] <= '9' || j+1 < len(v) && v[j+1] == '}' {
			continue
		}
		name := v[i+1 : j]
		if strings.Trim(name, "_0123456789") == "" {
			continue
		}
		x.f.BareBraces = append(x.f.BareBraces, BareBrace{Name: name, Line: posLine(n.Pos()) + strings.Count(v[:i], "\n"), Branch: p})
		i = j
	}
}

// nameSubst records a command substitution whose one command is a name in
// capitals: `$(TOTAL_CPU_DRAM_GB)` for the variable's value, `$( ISL * 2 )`
// for arithmetic. No program is named that way; a function may be, which
// dropFuncSubsts sorts out once every function is known.
func (x *extractor) nameSubst(n *syntax.CmdSubst, p Branch) {
	if len(x.f.NameSubsts) >= maxNameSubsts || len(n.Stmts) != 1 {
		return
	}
	st := n.Stmts[0]
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || len(st.Redirs) > 0 || len(c.Assigns) > 0 || len(c.Args) == 0 {
		return
	}
	name, ok := litWord(c.Args[0])
	if !ok || !capsName(name) || x.funcs[name] {
		return
	}
	text := x.src(n)
	if len(text) > maxNameSubstText || strings.ContainsRune(text, '\n') {
		return
	}
	ns := NameSubst{Name: name, Text: text, Line: posLine(n.Pos()), Backquoted: n.Backquotes, Branch: p}
	operands, operators := true, 0
	for _, w := range c.Args[1:] {
		t := x.src(w)
		ns.Args = append(ns.Args, t)
		switch {
		case arithOperators[t]:
			operators++
		case !arithOperand(t):
			operands = false
		}
	}
	// `$(TOOL list)` is a program and its argument; arithmetic has an
	// operator.
	ns.Arith = operands && operators > 0
	x.f.NameSubsts = append(x.f.NameSubsts, ns)
}

// dropFuncSubsts forgets the NameSubsts that call a function the script
// defines (`$(STAMP)` after `STAMP() { date; }`).
func (x *extractor) dropFuncSubsts() {
	kept := x.f.NameSubsts[:0]
	for _, ns := range x.f.NameSubsts {
		if !x.funcs[ns.Name] {
			kept = append(kept, ns)
		}
	}
	x.f.NameSubsts = kept
	if len(kept) == 0 {
		x.f.NameSubsts = nil
	}
}

// litWord is the value of a word made of one unquoted literal.
func litWord(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	return l.Value, true
}

// capsName reports whether s is a shell name in capitals with at least two
// letters (the spelling of environment variables, not of programs).
func capsName(s string) bool {
	if !syntax.ValidName(s) {
		return false
	}
	letters := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z':
			letters++
		case c == '_' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letters >= 2
}

// arithOperators are the words of an arithmetic expression between its
// operands.
var arithOperators = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true, "**": true, "<<": true, ">>": true}

// arithOperand reports whether a word, as written, is an operand of an
// arithmetic expression: a number, a name or a $ read of one.
func arithOperand(t string) bool {
	t = strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(t, "${"), "}"), "$")
	if t == "" {
		return false
	}
	if _, err := strconv.Atoi(t); err == nil {
		return true
	}
	return syntax.ValidName(t)
}
