package recipe

import (
	"path"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The extractor walks the syntax tree once, in source order, keeping the
// path of conditions it is under. It records the simple facts directly,
// and keeps every assignment and command for a second phase that
// resolves commands through the arrays and variables they are built from
// (facts_command.go).

type extractor struct {
	f    *Facts
	srcb []byte

	ids     int
	assigns map[string][]*assignRec // by variable, in source order
	calls   []*callRec
	funcs   map[string]bool
	// funcUse is, per function, the offset of its last call: commands
	// inside a function resolve variables as they stand there.
	funcUse        map[string]int
	jsonByWord     map[*syntax.Word]*JSONConfig
	usedDefs       map[*assignRec]bool
	runArrays      map[string]bool // arrays seen running as a command
	enginePathVars map[string]bool
	overrideSeen   map[string]bool
	texts          map[*syntax.Word]*text

	bg     bool // inside a backgrounded statement
	budget int  // words expand may still resolve
}

// assignRec is one assignment, kept for resolving later uses.
type assignRec struct {
	name    string
	append  bool
	array   bool
	words   []*syntax.Word // array elements, or the single value word
	t       *text          // a scalar's value
	line    int
	endLine int
	off     int
	path    Path
	src     string
	json    *JSONConfig
}

// callRec is one simple command.
type callRec struct {
	call      *syntax.CallExpr
	path      Path
	off       int
	line      int
	endLine   int
	bg        bool
	fn        string
	argv0     string
	candidate bool // may be a server or client launch
}

func newExtractor(f *Facts, src []byte) *extractor {
	return &extractor{
		f:              f,
		srcb:           src,
		assigns:        map[string][]*assignRec{},
		funcs:          map[string]bool{},
		funcUse:        map[string]int{},
		jsonByWord:     map[*syntax.Word]*JSONConfig{},
		usedDefs:       map[*assignRec]bool{},
		runArrays:      map[string]bool{},
		enginePathVars: map[string]bool{},
		overrideSeen:   map[string]bool{},
		texts:          map[*syntax.Word]*text{},
		budget:         expandBudget,
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
	return string(x.srcb[s:e])
}

// lineOf returns the 1-based line of a byte offset.
func (x *extractor) lineOf(off int) int {
	return sort.Search(len(x.f.lineStarts), func(i int) bool { return x.f.lineStarts[i] > off })
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
	x.comments(file)
	x.stmts(file.Stmts, nil)
	x.resolve()
	sortFacts(x.f)
}

func (x *extractor) comments(file *syntax.File) {
	syntax.Walk(file, func(n syntax.Node) bool {
		c, ok := n.(*syntax.Comment)
		if !ok {
			return true
		}
		line := posLine(c.Pos())
		if line == 1 && c.Pos().Col() == 1 && strings.HasPrefix(c.Text, "!") {
			x.f.Shebang = strings.TrimSpace(c.Text[1:])
			return true
		}
		x.f.Comments = append(x.f.Comments, Comment{Line: line, EndLine: line, Text: strings.TrimSpace(c.Text)})
		return true
	})
	sort.SliceStable(x.f.Comments, func(i, j int) bool { return x.f.Comments[i].Line < x.f.Comments[j].Line })
}

// sortFacts puts facts in line order: the walk records a statement's
// parts (a command substitution before its assignment, say) out of it.
func sortFacts(f *Facts) {
	sort.SliceStable(f.Vars, func(i, j int) bool { return f.Vars[i].Line < f.Vars[j].Line })
	sort.SliceStable(f.Reads, func(i, j int) bool { return f.Reads[i].Line < f.Reads[j].Line })
	sort.SliceStable(f.Arith, func(i, j int) bool { return f.Arith[i].Line < f.Arith[j].Line })
	sort.SliceStable(f.JSON, func(i, j int) bool { return f.JSON[i].Line < f.JSON[j].Line })
	sort.SliceStable(f.Servers, func(i, j int) bool { return f.Servers[i].Line < f.Servers[j].Line })
	sort.SliceStable(f.Clients, func(i, j int) bool { return f.Clients[i].Line < f.Clients[j].Line })
	sort.SliceStable(f.Patches, func(i, j int) bool { return f.Patches[i].Line < f.Patches[j].Line })
	sort.SliceStable(f.Overrides, func(i, j int) bool { return f.Overrides[i].Line < f.Overrides[j].Line })
	sort.SliceStable(f.Images, func(i, j int) bool { return f.Images[i].Line < f.Images[j].Line })
}

func with(p Path, c Cond) Path {
	out := make(Path, len(p), len(p)+1)
	copy(out, p)
	return append(out, c)
}

func (x *extractor) stmts(list []*syntax.Stmt, p Path) {
	for _, s := range list {
		x.stmt(s, p)
	}
}

func (x *extractor) stmt(s *syntax.Stmt, p Path) {
	if s == nil {
		return
	}
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
		x.stmts(c.Do, with(p, cond))
	case *syntax.ForClause:
		x.forClause(c, p)
	case *syntax.Block:
		x.stmts(c.Stmts, p)
	case *syntax.Subshell:
		x.stmts(c.Stmts, p)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			x.stmt(c.X, p)
			cond := x.testCond([]*syntax.Stmt{c.X})
			if c.Op == syntax.OrStmt {
				cond.Negated, cond.elseOf = !cond.Negated, true
			}
			x.stmt(c.Y, with(p, cond))
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
			x.words(r.Hdoc, p, "")
			ht := x.heredocText(r)
			x.scanText(ht.String(), ht.line(), p)
		}
	}
	x.redirects(s, p)
}

func (x *extractor) stmtsSrc(list []*syntax.Stmt) string {
	if len(list) == 0 {
		return ""
	}
	s, e := int(list[0].Pos().Offset()), int(list[len(list)-1].End().Offset())
	if s < 0 || e > len(x.srcb) || s >= e {
		return ""
	}
	return string(x.srcb[s:e])
}

// words records what a word (or any node holding words) reads, and walks
// into command substitutions. target is the variable being assigned, for
// arithmetic facts.
func (x *extractor) words(n syntax.Node, p Path, target string) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			x.paramRead(n, p)
		case *syntax.CmdSubst:
			bg := x.bg
			x.bg = false
			x.stmts(n.Stmts, p)
			x.bg = bg
			return false
		case *syntax.ProcSubst:
			x.stmts(n.Stmts, p)
			return false
		case *syntax.ArithmExp:
			x.arith(n.X, p, target, posLine(n.Pos()))
			return false
		}
		return true
	})
}

func (x *extractor) funcDecl(c *syntax.FuncDecl, p Path) {
	if c.Name == nil || c.Body == nil {
		return
	}
	name := c.Name.Value
	x.funcs[name] = true
	cond := Cond{Kind: CondFunc, Name: name, Text: name, Line: posLine(c.Pos()), id: x.newID()}
	bg := x.bg
	x.bg = false
	x.stmt(c.Body, with(p, cond))
	x.bg = bg
}

func (x *extractor) forClause(c *syntax.ForClause, p Path) {
	line := posLine(c.Pos())
	cond := Cond{Kind: CondLoop, Line: line, id: x.newID()}
	inner := p
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		cond.Text = "for " + firstLine(x.src(l))
		for _, w := range l.Items {
			x.words(w, p, "")
		}
		inner = with(p, cond)
		if l.Name != nil {
			x.f.Vars = append(x.f.Vars, Var{Name: l.Name.Value, Kind: Bind, Value: firstLine(x.src(l)), HasValue: true, Line: line, EndLine: line, Path: inner})
		}
	case *syntax.CStyleLoop:
		cond.Text = "for ((" + strings.TrimSpace(x.src(l.Init)) + "; " + strings.TrimSpace(x.src(l.Cond)) + "; " + strings.TrimSpace(x.src(l.Post)) + "))"
		inner = with(p, cond)
		for _, e := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
			if e != nil {
				x.arithCmd(e, inner, line)
			}
		}
	default:
		inner = with(p, cond)
	}
	x.stmts(c.Do, inner)
}

// call handles a simple command.
func (x *extractor) call(s *syntax.Stmt, c *syntax.CallExpr, p Path) {
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			x.assign(a, p, Assign, "")
		}
		return
	}
	texts := make([]*text, len(c.Args))
	argv := make([]string, len(c.Args))
	for i, w := range c.Args {
		texts[i] = x.wordText(w)
		argv[i] = texts[i].String()
	}
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
	fn, _ := p.InFunc()
	rec := &callRec{call: c, path: p, off: int(c.Pos().Offset()), line: posLine(c.Pos()),
		endLine: x.endLine(c), bg: x.bg, fn: fn, argv0: argv[0]}
	x.calls = append(x.calls, rec)

	for _, i := range envIdx {
		name, val, _ := strings.Cut(argv[i], "=")
		t := texts[i]
		x.f.Vars = append(x.f.Vars, Var{Name: name, Kind: EnvPrefix, Value: val, HasValue: true, Static: t.static(),
			Line: posLine(c.Args[i].Pos()), EndLine: posLine(c.Args[i].Pos()), Path: p, Command: cmd})
	}
	x.images(argv, p, rec)
	if start >= len(argv) {
		return
	}
	rec.candidate = x.mayLaunch(c.Args[start:], argv[start:])
	args, words := argv[start:], c.Args[start:]
	switch path.Base(args[0]) {
	case "set":
		x.setCmd(args, p, rec)
	case "unset":
		x.unset(args, words, p)
	case "source", ".":
		if len(args) > 1 {
			x.f.Sources = append(x.f.Sources, Source{Line: rec.line, Path: p, Target: args[1], Lib: path.Base(args[1]) == "benchmark_lib.sh"})
		}
	case "check_env_vars":
		ec := EnvCheck{Line: rec.line, Path: p}
		for i, a := range args[1:] {
			if texts[start+1+i].static() && isIdent(a) {
				ec.Vars = append(ec.Vars, a)
			}
		}
		x.f.EnvChecks = append(x.f.EnvChecks, ec)
	case "read":
		x.read(s, args, words, p)
	case "[", "test":
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-v" && isIdent(args[i+1]) {
				x.f.Reads = append(x.f.Reads, Read{Name: args[i+1], Line: posLine(words[i+1].Pos()), Path: p, Op: "-v", Defaulted: true})
			}
		}
	}
	x.shapes(s, rec, args, texts[start:], p)
}
