package sheval

import (
	"io"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// Bound is what a set of scripts can name, read without evaluating them:
// every word a command, an assignment or a redirection holds, and every
// value each variable is given anywhere in them, whatever the order or
// the branch (a flow-insensitive reading). A path an evaluation of those
// scripts produces is built from their words and the job's env, so it is
// named by one of the patterns the words expand to with that env
// (Patterns, Names): the bound tells which jobs cannot run a file without
// evaluating them. It may name more than the evaluation would, never less.
type Bound struct {
	// runs are the arguments of
	// the commands the evaluation takes runs from (bash, sh, srtctl, exec,
	// the wrappers, the scripts' functions, a command it cannot name);
	// sources the words a source or . command reads; prefixes the sources
	// of cp and rsync (a run may be beneath one of them, in the copy).
	runs, sources, prefixes []*syntax.Word
	// scripts are the arguments of a wrapper before any shell: it runs
	// one that names a .sh file.
	scripts []*syntax.Word
	// recipes are the words srtctl takes its recipe from: runs, of a file
	// the evaluation never follows as a script.
	recipes []*syntax.Word
	assigns map[string][]*syntax.Word
	// wild are the variables given values the reading cannot follow
	// (read, mapfile, printf -v, arithmetic, arrays, +=).
	wild map[string]bool
	// appends are the values appended to a variable (X+=v).
	appends map[string][]*syntax.Word
	// args are the arguments of every call of the scripts' functions;
	// calls are them by function, fnOf the function each word is in ("" at
	// the top of a script), and shifts the functions that shift or set
	// their positional parameters.
	args   []*syntax.Word
	calls  map[string][][]*syntax.Word
	fnOf   map[*syntax.Word]string
	shifts map[string]bool
	// repeated are the words of loops and functions (run any number of
	// times).
	repeated map[*syntax.Word]bool
	// unknown names the variables nobody assigns whose values the
	// evaluation knows and the reading does not (nil: none).
	unknown func(string) bool
	// selves are what $0 and BASH_SOURCE may hold: the scripts' paths in
	// the workspace.
	selves []string

	// groups are the words by the set of env variables their values
	// depend on (see depsOf), so that jobs agreeing on those share them;
	// deps are all of those variables.
	groups []boundGroup
	deps   []string

	mu   sync.Mutex
	memo map[string]Patterns
	// skeletons are the groups' patterns with any env (see Skeleton).
	skeletons []Patterns
	// tooBig is set for scripts of more words than maxBoundWords.
	tooBig bool
	// memoBytes bounds memo (it is emptied past maxBoundMemo).
	memoBytes int
	// wordMemo and varVals are the memos of words and variables (see
	// bound_memo.go); varVals and closures are under vmu, and valBytes
	// bounds them (they are emptied past maxVarMemo).
	wordMemo *WordMemo
	// plain expands without them (what they must agree with, in tests).
	plain    bool
	vmu      sync.Mutex
	varVals  map[string][]string
	valBytes int
	// edges are the variables each variable's values are made from,
	// heights how long a chain of them each starts, and depths how deep
	// an expansion may ask for each (see graph); closures the variables
	// each one's values may read the env of (nil: not safe).
	graphOnce sync.Once
	edges     map[string][]string
	heights   map[string]int
	depths    map[string]int
	closures  map[string][]string
	// words are what expanding a word of the scripts needs of its syntax,
	// by word (*syntax.Word → *wordSyntax), read once: every expansion of
	// every row asks again. It holds at most one entry per word of the
	// reading (maxBoundWords; a reading past it is never expanded), a few
	// hundred bytes each.
	words sync.Map
}

// wordSyntax is what an expansion reads of a word's syntax.
type wordSyntax struct {
	names  []string // paramNames
	unsafe map[string]int
	substs []*syntax.CmdSubst
}

// syntaxOf is w's wordSyntax, read on first use.
func (b *Bound) syntaxOf(w *syntax.Word) *wordSyntax {
	if v, ok := b.words.Load(w); ok {
		return v.(*wordSyntax)
	}
	v, _ := b.words.LoadOrStore(w, &wordSyntax{names: paramNames(w), unsafe: unsafeOps(w), substs: cmdSubsts(w)})
	return v.(*wordSyntax)
}

type boundGroup struct {
	deps  []string
	key   string
	words []boundWord
	// copies is set for the group of cp and rsync sources, recipes for
	// that of srtctl's recipe words.
	copies, recipes bool
}

type boundWord struct {
	w    *syntax.Word
	kind byte // 'r' a run, 'x' a wrapper's script, 'f' a recipe, 's' a sourced file, 'p' a copied directory
}

// Bounds of the reading.
const (
	// maxBoundWords bounds the words a reading follows (the grouping
	// costs up to their square).
	maxBoundWords = 8000
	// maxAlternatives bounds the values one word or variable is expanded
	// to; past it the value is any text.
	maxAlternatives = 32
	// maxBoundDepth bounds the chain of variables a value is followed
	// through, and of `bash -c` scripts read inside others.
	maxBoundDepth = 8
	// maxBoundMemo bounds the memo of expanded words (bytes).
	maxBoundMemo = 8 << 20
	// maxMeetCells bounds the table globsMeet fills.
	maxMeetCells = 1 << 16
)

// anyText stands for text the reading cannot know, in a pattern; unsetAlt
// is a variable's alternative of being unset.
const (
	anyText  = "\x1f"
	unsetAlt = "\x01"
	// anyName stands for unknown text without a slash (a base name).
	anyName = "\x1d"
	// opaqueMark stands in for an unknown value a word trims or
	// replaces: it matches no pattern, and becomes anyText after.
	opaqueMark = "\x1c"
	// deadText marks text the evaluation cannot know either.
	deadText = "\x1e"
)

// NewBound reads files (nil entries are skipped). unknown, when not nil,
// names the variables nobody assigns that the evaluation knows values of
// the reading cannot (expressions of a workflow substituted into a
// script); any other variable nobody assigns and the env lacks is unset
// for both, or unknown to both (a runner's own setting), and a word built
// from it names nothing the evaluation can tell.
func NewBound(files []*syntax.File, unknown func(string) bool) *Bound {
	return NewBoundShared(files, unknown, NewWordMemo())
}

// NewBoundShared is NewBound with the memo of words words, which readings
// of the same syntax trees may share.
func NewBoundShared(files []*syntax.File, unknown func(string) bool, words *WordMemo) *Bound {
	b := &Bound{assigns: map[string][]*syntax.Word{}, appends: map[string][]*syntax.Word{}, wild: map[string]bool{},
		memo: map[string]Patterns{}, unknown: unknown, wordMemo: words,
		calls: map[string][][]*syntax.Word{}, fnOf: map[*syntax.Word]string{}, shifts: map[string]bool{},
		repeated: map[*syntax.Word]bool{}}
	funcs := map[string]bool{}
	for _, f := range files {
		if f == nil {
			continue
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
				funcs[fd.Name.Value] = true
				b.inFunc(fd)
			}
			return true
		})
	}
	for _, f := range files {
		if f != nil {
			b.read(f, funcs, 0)
			if f.Name != "" {
				b.selves = append(b.selves, Workspace+"/"+f.Name)
			} else {
				b.selves = append(b.selves, anyText)
			}
		}
	}
	if b.Size() > maxBoundWords {
		b.tooBig = true
		return b
	}
	b.group()
	return b
}

// Size is how many words the reading holds.
func (b *Bound) Size() int {
	n := len(b.runs) + len(b.scripts) + len(b.recipes) + len(b.sources) + len(b.prefixes) + len(b.args)
	for _, ws := range b.assigns {
		n += len(ws)
	}
	for _, ws := range b.appends {
		n += len(ws)
	}
	return n
}

// TooBig reports whether the scripts hold more words than the reading
// follows: it names nothing then, and a caller must assume any file.
func (b *Bound) TooBig() bool { return b.tooBig }

// inFunc notes the words of a function's body as its own, and whether it
// moves its positional parameters (shift, set --).
func (b *Bound) inFunc(fd *syntax.FuncDecl) {
	name := fd.Name.Value
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			b.fnOf[n] = name
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				if lit := n.Args[0].Lit(); lit == "shift" || lit == "set" && len(n.Args) > 1 && n.Args[1].Lit() == "--" {
					b.shifts[name] = true
				}
			}
		}
		return true
	})
}

func (b *Bound) read(f *syntax.File, funcs map[string]bool, depth int) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ForClause, *syntax.WhileClause, *syntax.FuncDecl:
			syntax.Walk(n, func(m syntax.Node) bool {
				if w, ok := m.(*syntax.Word); ok {
					b.repeated[w] = true
				}
				return true
			})
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			// X=v cmd gives v to cmd's environment only: it matters where
			// cmd may be a script the evaluation follows with it.
			if len(n.Args) == 0 || mayRunScript(n) {
				for _, a := range n.Assigns {
					b.assign(a)
				}
			}
			b.call(n, funcs, depth)
		case *syntax.DeclClause:
			nameref := n.Variant != nil && n.Variant.Value == "nameref"
			for _, a := range n.Args {
				if a.Name == nil && a.Value != nil {
					// An option word (-n, -x), or assignments made at run
					// time (export $SETTINGS), which the evaluation does
					// not follow (a workflow expression substituted there
					// is the caller's to read: see DynamicExports).
					if lit := a.Value.Lit(); strings.HasPrefix(lit, "-") {
						nameref = nameref || strings.Contains(lit, "n")
					}
					continue
				}
				if nameref && a.Name != nil {
					b.wild[a.Name.Value] = true
				}
				b.assign(a)
			}
		case *syntax.ForClause:
			if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				if len(wi.Items) == 0 && !wi.InPos.IsValid() {
					b.wild[wi.Name.Value] = true // for x; do: the positional parameters
				}
				b.assigns[wi.Name.Value] = append(b.assigns[wi.Name.Value], wi.Items...)
			}
		case *syntax.BinaryArithm:
			if isAssignOp(n.Op) {
				b.wildArith(n.X)
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				b.wildArith(n.X)
			}
		case *syntax.ParamExp:
			if n.Param != nil && n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Exp.Word != nil {
				b.assigns[n.Param.Value] = append(b.assigns[n.Param.Value], n.Exp.Word)
			}
		}
		return true
	})
}

func isAssignOp(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

func (b *Bound) wildArith(x syntax.ArithmExpr) {
	if w, ok := x.(*syntax.Word); ok {
		if name := w.Lit(); name != "" {
			b.wild[name] = true
		}
	}
}

func (b *Bound) assign(a *syntax.Assign) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	switch {
	case a.Array != nil:
		// $X is an element, "${X[@]}" each of them as a word of its own.
		for _, e := range a.Array.Elems {
			if e.Value != nil {
				b.assigns[name] = append(b.assigns[name], e.Value)
			}
		}
	case a.Index != nil:
		// X[i]=v: the evaluation does not know the array after it.
		if a.Value != nil {
		}
	case a.Append && a.Value != nil:
		b.appends[name] = append(b.appends[name], a.Value)
	case a.Naked:
		// export X: no value given.
	case a.Value == nil:
		b.assigns[name] = append(b.assigns[name], &syntax.Word{}) // X=
	default:
		b.assigns[name] = append(b.assigns[name], a.Value)
	}
}

// runWords collects the words a command runs files by, as the
// evaluation finds them: a shell's script (its first argument that is not
// an option), srtctl's -f recipe, exec's command, a wrapper's argument
// ending in .sh or the shell among its arguments; every argument of a
// command whose name the reading cannot tell.
func (b *Bound) runWords(args []*syntax.Word, depth int) {
	if len(args) == 0 || depth > maxBoundDepth {
		return
	}
	name := args[0].Lit()
	switch prog := path.Base(name); {
	case name == "":
		b.runs = append(b.runs, args...)
	case prog == "bash" || prog == "sh":
		b.shellWords(args[1:])
	case prog == "srtctl":
		for i := 1; i < len(args); i++ {
			l := args[i].Lit()
			if l == "" {
				// An expansion may be several fields, the recipe among
				// them (srtctl apply "${ARGS[@]}").
				b.recipes = append(b.recipes, args[i])
			}
			if i+1 < len(args) && (l == "-f" || l == "--file" || l == "") {
				b.recipes = append(b.recipes, args[i+1])
			}
		}
	case name == "exec":
		b.runWords(args[1:], depth+1)
	case isWrapper(prog):
		for i, a := range args[1:] {
			if couldBe(a, "bash") || couldBe(a, "sh") {
				b.shellWords(args[i+2:])
				if a.Lit() != "" {
					return // the evaluation takes the first shell
				}
			}
			if couldEnd(a, ".sh") {
				b.scripts = append(b.scripts, a)
			}
		}
	}
}

// shellWords collects a shell's script word: every argument up to the
// first one that cannot be an option.
func (b *Bound) shellWords(args []*syntax.Word) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		lit := a.Lit()
		switch {
		case lit == "-c":
			return // the script is read as part of the scripts
		case lit == "-o" || lit == "+o":
			i++
			continue
		case strings.HasPrefix(lit, "-") || strings.HasPrefix(lit, "+"):
			continue
		}
		b.runs = append(b.runs, a)
		if first := leadingLit(a); first != "" && first[0] != '-' && first[0] != '+' {
			return
		}
	}
}

// leadingLit is the literal text a word starts with ("" when it starts
// with an expansion).
func leadingLit(w *syntax.Word) string {
	if len(w.Parts) == 0 {
		return ""
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		return p.Value
	case *syntax.SglQuoted:
		return p.Value
	case *syntax.DblQuoted:
		if len(p.Parts) > 0 {
			if l, ok := p.Parts[0].(*syntax.Lit); ok {
				return l.Value
			}
		}
	}
	return ""
}

// trailingLit is the literal text a word ends with ("" when it ends with
// an expansion).
func trailingLit(w *syntax.Word) string {
	if len(w.Parts) == 0 {
		return ""
	}
	switch p := w.Parts[len(w.Parts)-1].(type) {
	case *syntax.Lit:
		return p.Value
	case *syntax.SglQuoted:
		return p.Value
	case *syntax.DblQuoted:
		if len(p.Parts) > 0 {
			if l, ok := p.Parts[len(p.Parts)-1].(*syntax.Lit); ok {
				return l.Value
			}
		}
	}
	return ""
}

// couldBe reports whether a word may expand to a program named base (a
// path ending in it), for a word that is not an option or assignment.
func couldBe(w *syntax.Word, base string) bool {
	if lit := w.Lit(); lit != "" {
		return path.Base(lit) == base
	}
	lead := leadingLit(w)
	if strings.HasPrefix(lead, "-") || strings.Contains(lead, "=") {
		return false
	}
	return couldEnd(w, base)
}

// couldEnd reports whether a word may expand to text ending in suffix and
// be an argument the evaluation takes a script from (not an option, no =
// in its literal text before an expansion).
func couldEnd(w *syntax.Word, suffix string) bool {
	lead := leadingLit(w)
	if strings.HasPrefix(lead, "-") || strings.Contains(lead, "=") {
		return false
	}
	tail := trailingLit(w)
	if tail == "" || strings.HasSuffix(tail, suffix) {
		return true
	}
	if w.Lit() != "" {
		return false // the whole word is literal and does not end so
	}
	return strings.HasSuffix(suffix, tail) // "${X}.sh", "$X"h
}

// mayRunScript reports whether a command may run a script the evaluation
// follows (a shell, exec, a wrapper, or a command it cannot name).
func mayRunScript(c *syntax.CallExpr) bool {
	name := c.Args[0].Lit()
	prog := path.Base(name)
	return name == "" || name == "exec" || prog == "bash" || prog == "sh" || isWrapper(prog)
}

// call reads a command: its words, the variables it sets by other means,
// the files it sources or copies, and the script of `bash -c`.
func (b *Bound) call(c *syntax.CallExpr, funcs map[string]bool, depth int) {
	if len(c.Args) == 0 {
		return
	}
	name := c.Args[0].Lit()
	if funcs[name] {
		b.args = append(b.args, c.Args[1:]...)
		b.calls[name] = append(b.calls[name], c.Args[1:])
	}
	b.runWords(c.Args, 0)
	rest := c.Args[1:]
	switch name {
	case "read", "mapfile", "readarray", "getopts", "let", "unset":
		for _, a := range rest {
			if lit := a.Lit(); lit != "" && !strings.HasPrefix(lit, "-") {
				name, _, _ := strings.Cut(lit, "=")
				b.wild[name] = true
			}
		}
	case "printf":
		for i := 0; i+1 < len(rest); i++ {
			if rest[i].Lit() == "-v" {
				b.wild[rest[i+1].Lit()] = true
			}
		}
	case "source", ".":
		if len(rest) > 0 {
			b.sources = append(b.sources, rest[0])
		}
	case "cp", "rsync":
		var operands []*syntax.Word
		for _, a := range rest {
			if !strings.HasPrefix(a.Lit(), "-") {
				operands = append(operands, a)
			}
		}
		if len(operands) > 1 {
			b.prefixes = append(b.prefixes, operands[:len(operands)-1]...)
		}
	}
	// `bash -c "script"`, directly or under a wrapper: its script is read
	// as part of the scripts.
	shell := false
	for i, a := range c.Args {
		lit := a.Lit()
		if base := path.Base(lit); base == "bash" || base == "sh" {
			shell = true
		}
		if shell && lit == "-c" && i+1 < len(c.Args) && depth < maxBoundDepth {
			if text := innerScript(c.Args[i+1]); text != "" {
				if f, err := script.ParseScript("", []byte(text), false); err == nil {
					syntax.Walk(f, func(n syntax.Node) bool {
						if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
							funcs[fd.Name.Value] = true
							b.inFunc(fd)
						}
						return true
					})
					b.read(f, funcs, depth+1)
				}
			}
		}
	}
}

// group sorts the words by the env variables their values depend on.
func (b *Bound) group() {
	byKey := map[string]int{}
	add := func(w *syntax.Word, kind byte) {
		deps := b.depsOf(w)
		// Copies and recipes apart: what names a script to follow needs
		// neither.
		class := "n"
		if kind == 'p' || kind == 'f' {
			class = string(kind)
		}
		key := class + strings.Join(deps, "\x00")
		i, ok := byKey[key]
		if !ok {
			i = len(b.groups)
			byKey[key] = i
			b.groups = append(b.groups, boundGroup{deps: deps, key: key, copies: kind == 'p', recipes: kind == 'f'})
		}
		b.groups[i].words = append(b.groups[i].words, boundWord{w: w, kind: kind})
	}
	for _, w := range b.runs {
		add(w, 'r')
	}
	for _, w := range b.scripts {
		add(w, 'x')
	}
	for _, w := range b.recipes {
		add(w, 'f')
	}
	for _, w := range b.sources {
		add(w, 's')
	}
	for _, w := range b.prefixes {
		add(w, 'p')
	}
	all := map[string]bool{}
	for _, g := range b.groups {
		for _, d := range g.deps {
			all[d] = true
		}
	}
	for d := range all {
		b.deps = append(b.deps, d)
	}
	slices.Sort(b.deps)
}

// depsOf are the variables a word's value may read from the env it is
// expanded with: the ones it names and, through their assignments and the
// functions' arguments, the ones those values name.
func (b *Bound) depsOf(w *syntax.Word) []string {
	seen := map[string]bool{}
	visitedArgs := map[string]bool{}
	var visit func(w *syntax.Word, depth int)
	visit = func(w *syntax.Word, depth int) {
		fn := b.fnOf[w]
		for _, name := range b.syntaxOf(w).names {
			if isPositional(name) {
				// The arguments of the calls of the word's function.
				seen[name] = true
				if !visitedArgs[fn] && depth < maxBoundDepth {
					visitedArgs[fn] = true
					for _, args := range b.calls[fn] {
						for _, a := range args {
							visit(a, depth+1)
						}
					}
				}
				continue
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			if depth >= maxBoundDepth {
				continue
			}
			for _, a := range b.assigns[name] {
				visit(a, depth+1)
			}
			for _, a := range b.appends[name] {
				visit(a, depth+1)
			}
		}
	}
	visit(w, 0)
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// paramNames are the parameters a word expands, in order, once each.
func paramNames(w *syntax.Word) []string {
	var out []string
	syntax.Walk(w, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && !slices.Contains(out, pe.Param.Value) {
			out = append(out, pe.Param.Value)
		}
		return true
	})
	return out
}

// isUnknowable reports whether a parameter is one the evaluation never
// knows the value of (see view.Get).
func isUnknowable(name string) bool {
	switch name {
	case "?", "$", "!", "RANDOM", "SECONDS", "LINENO", "PPID", "BASHPID", "OLDPWD", "HOSTNAME", "EPOCHSECONDS", "EPOCHREALTIME":
		return true
	}
	return false
}

func isPositional(name string) bool {
	if name == "@" || name == "*" {
		return true
	}
	return name != "" && strings.Trim(name, "0123456789") == "" && name != "0"
}

// Patterns are what the scripts' words expand to with env: Runs the
// values of the words commands run files by,
// Sources the files source reads, Prefixes the directories copied. In a
// pattern anyText stands for text the reading cannot know.
type Patterns struct {
	Runs, Sources, Prefixes []string
}

// Patterns expands every word with env.
func (b *Bound) Patterns(env Env) Patterns {
	var out Patterns
	x := b.Expander(env)
	for gi := range b.groups {
		_, p := x.Group(gi)
		out.Runs = append(out.Runs, p.Runs...)
		out.Sources = append(out.Sources, p.Sources...)
		out.Prefixes = append(out.Prefixes, p.Prefixes...)
	}
	return out
}

// Groups is the number of groups of words that depend on the same env
// variables.
func (b *Bound) Groups() int { return len(b.groups) }

// Copies reports whether group gi holds the sources of copies (the
// other groups hold run and source words).
func (b *Bound) Copies(gi int) bool { return b.groups[gi].copies }

// Recipes reports whether group gi holds the words srtctl takes recipes
// from: runs of files the evaluation does not follow as scripts.
func (b *Bound) Recipes(gi int) bool { return b.groups[gi].recipes }

// Skeleton is what group gi's words expand to with any env: every
// variable of the job's env unknown text. It holds every pattern the
// group has with some env, so a file it cannot name no env can.
func (b *Bound) Skeleton(gi int) Patterns {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.skeletons == nil {
		x := &boundExp{b: b, vals: map[string][]string{}, busy: map[string]bool{}, skeleton: true}
		b.skeletons = make([]Patterns, len(b.groups))
		for i := range b.groups {
			b.skeletons[i] = sortPatterns(x.group(&b.groups[i]))
		}
	}
	return b.skeletons[gi]
}

// Expander expands the groups of words with one env.
type Expander struct{ x *boundExp }

// Expander returns an expander of b's groups with env.
func (b *Bound) Expander(env Env) *Expander { return b.ExpanderOf(env.Lookup) }

// ExpanderOf is Expander for the env whose variables env gives: a reading
// asks for nothing but the variables its words read, so an env made when
// asked serves as well as a map.
func (b *Bound) ExpanderOf(env EnvLookup) *Expander {
	return &Expander{&boundExp{b: b, env: env, vals: map[string][]string{}, busy: map[string]bool{}}}
}

// OpenExpander is Expander for an env that stands for many jobs' envs,
// each of which agrees with env on the values env knows and holds no
// variable env does not (or one env gives MaybeUnset): it keeps the
// patterns of no known text (some job may give the whole word), so its
// patterns cover those of every such env.
func (b *Bound) OpenExpander(env Env) *Expander { return b.OpenExpanderOf(env.Lookup) }

// OpenExpanderOf is OpenExpander for the env whose variables env gives.
func (b *Bound) OpenExpanderOf(env EnvLookup) *Expander {
	return &Expander{&boundExp{b: b, env: env, vals: map[string][]string{}, busy: map[string]bool{}, open: true}}
}

// Group is group gi's patterns with the expander's env, and a key naming
// the group and its variables' values in that env: the same key, the same
// patterns, so a caller may keep what it computes of them by key.
func (e *Expander) Group(gi int) (string, Patterns) {
	b := e.x.b
	g := &b.groups[gi]
	sep := "\x02"
	if e.x.open {
		sep = "\x03"
	}
	key := g.key + sep + boundKey(g.deps, e.x.env)
	b.mu.Lock()
	p, ok := b.memo[key]
	b.mu.Unlock()
	if ok {
		return key, p
	}
	p = sortPatterns(e.x.group(g))
	b.mu.Lock()
	if b.memoBytes > maxBoundMemo {
		b.memo, b.memoBytes = map[string]Patterns{}, 0
	}
	b.memo[key] = p
	b.memoBytes += len(key) + 64
	for _, list := range [][]string{p.Runs, p.Sources, p.Prefixes} {
		for _, s := range list {
			b.memoBytes += len(s) + 16
		}
	}
	b.mu.Unlock()
	return key, p
}

// sortPatterns sorts a group's patterns (each led by its kind) by kind.
func sortPatterns(pats []string) Patterns {
	var p Patterns
	for _, s := range pats {
		switch s[0] {
		case 'r', 'f':
			p.Runs = append(p.Runs, s[1:])
		case 'x':
			if v := s[1:]; v != "" && v[0] != '-' && !strings.Contains(v, "=") && globsMeet(v, anyText+".sh") {
				p.Runs = append(p.Runs, v)
			}
		case 's':
			p.Sources = append(p.Sources, s[1:])
		case 'p':
			p.Prefixes = append(p.Prefixes, s[1:])
		}
	}
	return p
}

// Key is env's values of every variable the words depend on: envs of
// one key expand the words alike.
func (b *Bound) Key(env Env) string { return boundKey(b.deps, env.Lookup) }

// boundKey is env's values of deps, as values reads them (a nil env holds
// none).
func boundKey(deps []string, env EnvLookup) string {
	var b strings.Builder
	for _, name := range deps {
		var v Value
		ok := false
		if env != nil {
			v, ok = env(name)
		}
		switch {
		case !ok:
			b.WriteByte('a')
		case !v.Set:
			b.WriteByte('u')
		case v.maybeUnset:
			b.WriteByte('m')
		case !v.Known || v.IsList || v.partial:
			b.WriteByte('?')
		default:
			b.WriteByte('=')
			b.WriteString(v.Str)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// boundExp expands words with one env.
type boundExp struct {
	b    *Bound
	env  EnvLookup // nil for the skeleton
	vals map[string][]string
	busy map[string]bool
	// skeleton is set to expand with any env: every variable a job's env
	// may give is unknown text.
	skeleton bool
	// open is set by OpenExpander.
	open bool
	// scoped is set for an expander some of whose variables hold values
	// of a single assignment's (see values): what it finds is its own.
	scoped bool
	// cut is set once an expansion stopped short (a variable's values
	// made from its own, a chain longer than maxBoundDepth): what the
	// expander found since may depend on the order it asked in, and it
	// neither takes from nor adds to the memo of variables.
	cut bool
	// cfg expands the words, one after another, choice giving what their
	// command substitutions print (see substituted).
	cfg    *expand.Config
	choice map[*syntax.CmdSubst]string
}

func (x *boundExp) inEnv(name string) bool {
	if x.env == nil {
		return false
	}
	_, ok := x.env(name)
	return ok
}

// lookup is the env's variable name (none in the skeleton's).
func (x *boundExp) lookup(name string) (Value, bool) {
	if x.env == nil {
		return Value{}, false
	}
	return x.env(name)
}

// group expands a group's words, each pattern prefixed with its kind.
// With one env, patterns of no known text are left out: they name nothing
// a lookup can tell, and the evaluation cannot name a file by them either.
// In the skeleton they stay: some env may give the whole word (a recipe
// path the job's settings hold), so the group may name any file.
func (x *boundExp) group(g *boundGroup) []string {
	var out []string
	seen := map[string]bool{}
	for _, bw := range g.words {
		for _, s := range x.word(bw.w, 0) {
			if s == "" || strings.Trim(s, anyText+anyName) == "" && !x.skeleton && !x.open {
				continue
			}
			k := string(bw.kind) + s
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// word is every value a word may expand to.
func (x *boundExp) word(w *syntax.Word, depth int) []string {
	ws := x.b.syntaxOf(w)
	names := ws.names
	fn := x.b.fnOf[w]
	per := make([][]string, len(names))
	for i, name := range names {
		if isPositional(name) {
			per[i] = x.positional(name, fn, depth)
		} else {
			per[i] = x.values(name, depth)
		}
	}
	capCombinations(per)
	var kb []byte
	for _, p := range per {
		kb = appendList(kb, p)
	}
	key := wordKey{w, string(kb)}
	if v, ok := x.b.wordMemo.get(key); ok && !x.b.plain {
		return v
	}
	unsafe, substs := ws.unsafe, ws.substs
	var out []string
	add := func(v string) {
		if strings.Contains(v, deadText) {
			return // built from what the evaluation cannot know either
		}
		v = strings.ReplaceAll(v, opaqueMark, anyText)
		// (The evaluation does not expand globs: a * is the text.)
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	combo := make(boundEnv, len(names))
	idx := make([]int, len(names))
	for {
		wild := false
		for i, name := range names {
			v := per[i][idx[i]]
			if strings.ContainsAny(v, anyText+anyName) {
				switch unsafe[name] {
				case 1:
					v = opaqueMark // trimmed or replaced: unknown text
				case 2:
					wild = true
				}
			}
			combo[name] = v
		}
		if wild {
			add(anyText)
		} else {
			x.substituted(w, combo, substs, add)
		}
		if !nextCombination(idx, per) {
			x.b.wordMemo.put(key, out)
			return out
		}
	}
}

// capCombinations keeps the product of the alternatives' counts within
// maxAlternatives: the lists with the most become unknown text, one by
// one (the word keeps its other parts).
func capCombinations(per [][]string) {
	total := 1
	for _, p := range per {
		total *= len(p)
	}
	for total > maxAlternatives {
		wide := 0
		for i := range per {
			if len(per[i]) > len(per[wide]) {
				wide = i
			}
		}
		total /= len(per[wide])
		per[wide] = []string{anyText}
	}
}

// nextCombination advances idx, one index per list of per, to the next
// combination; false after the last.
func nextCombination(idx []int, per [][]string) bool {
	for i := range idx {
		idx[i]++
		if idx[i] < len(per[i]) {
			return true
		}
		idx[i] = 0
	}
	return false
}

// substituted expands w with one combination of its variables, once per
// combination of what its command substitutions may print.
func (x *boundExp) substituted(w *syntax.Word, combo boundEnv, substs []*syntax.CmdSubst, add func(string)) {
	alts := make([][]string, len(substs))
	for k, cs := range substs {
		alts[k] = pureOutputs(cs, combo)
	}
	capCombinations(alts)
	if x.cfg == nil {
		x.choice = map[*syntax.CmdSubst]string{}
		x.cfg = &expand.Config{CmdSubst: func(out io.Writer, cs *syntax.CmdSubst) error {
			v, ok := x.choice[cs]
			if !ok {
				v = anyText
			}
			_, err := io.WriteString(out, v)
			return err
		}, ProcSubst: func(*syntax.ProcSubst) (string, error) { return deadText, nil }}
	}
	clear(x.choice)
	x.cfg.Env = combo
	idx := make([]int, len(substs))
	for {
		for k, cs := range substs {
			x.choice[cs] = alts[k][idx[k]]
		}
		if v, err := expand.Literal(x.cfg, w); err == nil {
			add(v)
		} else {
			add(anyText)
		}
		if !nextCombination(idx, alts) {
			return
		}
	}
}

// cmdSubsts are the command substitutions of a word, outermost ones.
func cmdSubsts(w *syntax.Word) []*syntax.CmdSubst {
	var out []*syntax.CmdSubst
	syntax.Walk(w, func(n syntax.Node) bool {
		if cs, ok := n.(*syntax.CmdSubst); ok {
			out = append(out, cs)
			return false
		}
		return true
	})
	return out
}

// pureOutputs are what a command substitution may print, as far as the
// evaluation knows it: dirname, basename, echo and printf of its words,
// and `[[ test ]] && printf a || printf b`; anything else prints deadText
// (the evaluation does not know it, so nothing built from it names a
// file for it).
func pureOutputs(cs *syntax.CmdSubst, combo boundEnv) []string {
	if len(cs.Stmts) != 1 {
		return []string{deadText}
	}
	outs := pureStmt(cs.Stmts[0], combo)
	for i, o := range outs {
		outs[i] = strings.TrimRight(o, "\n")
	}
	return outs
}

func pureStmt(s *syntax.Stmt, combo boundEnv) []string {
	if s.Background || len(s.Redirs) > 0 {
		return []string{deadText}
	}
	switch c := s.Cmd.(type) {
	case *syntax.TestClause:
		return []string{""}
	case *syntax.BinaryCmd:
		if c.Op != syntax.AndStmt && c.Op != syntax.OrStmt {
			return []string{deadText}
		}
		var out []string
		for _, ox := range pureStmt(c.X, combo) {
			if !slices.Contains(out, ox) {
				out = append(out, ox) // the first part decides the list ends
			}
			for _, oy := range pureStmt(c.Y, combo) {
				if v := ox + oy; !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
		}
		if len(out) > maxAlternatives {
			return []string{anyText}
		}
		return out
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return []string{deadText}
		}
		if lit := c.Args[0].Lit(); lit == "[" || lit == "test" {
			return []string{""}
		} else if lit != "" && !pureCommand(lit) {
			// The evaluation knows the output of no other program,
			// whatever its arguments (find, ls, srtctl).
			return []string{deadText}
		}
		cfg := &expand.Config{Env: combo, CmdSubst: func(out io.Writer, _ *syntax.CmdSubst) error {
			_, err := io.WriteString(out, anyText)
			return err
		}}
		for _, a := range c.Args {
			for name := range unsafeOps(a) {
				if strings.ContainsAny(combo[name], anyText+anyName+opaqueMark) {
					return []string{anyText}
				}
			}
		}
		args, err := expand.Fields(cfg, c.Args...)
		if err != nil || len(args) == 0 {
			return []string{deadText}
		}
		for _, a := range args[1:] {
			if strings.Contains(a, anyText) || strings.Contains(a, anyName) || strings.Contains(a, unsetAlt) {
				if args[0] == "basename" {
					return []string{anyName}
				}
				return []string{anyText}
			}
		}
		switch args[0] {
		case "dirname":
			if len(args) == 2 {
				return []string{path.Dir(args[1])}
			}
		case "basename":
			if len(args) == 2 || len(args) == 3 {
				b := path.Base(args[1])
				if len(args) == 3 {
					b = strings.TrimSuffix(b, args[2])
				}
				return []string{b}
			}
		case "echo":
			rest := args[1:]
			if len(rest) > 0 && rest[0] == "-n" {
				rest = rest[1:]
			}
			return []string{strings.Join(rest, " ")}
		case "printf":
			if len(args) >= 2 {
				if out, _, err := expand.Format(&expand.Config{}, args[1], args[2:]); err == nil {
					return []string{out}
				}
			}
		case "true", "false":
			return []string{""}
		}
	}
	return []string{deadText}
}

// pureCommand reports whether the evaluation knows what a command of this
// name prints, given its arguments (as pureStmt does).
func pureCommand(name string) bool {
	switch name {
	case "dirname", "basename", "echo", "printf", "true", "false":
		return true
	}
	return false
}

// unsafeOps are the parameters a word transforms in ways that cannot be
// applied to a value holding unknown text: 1 for trimming and replacing
// (the result is unknown text), 2 for slicing, indirection, length and
// the parameters inside a trimming or replacing pattern (the word is).
func unsafeOps(w *syntax.Word) map[string]int {
	var out map[string]int
	mark := func(name string, level int) {
		if out == nil {
			out = map[string]int{}
		}
		out[name] = max(out[name], level)
	}
	inner := func(w *syntax.Word) {
		if w == nil {
			return
		}
		syntax.Walk(w, func(n syntax.Node) bool {
			if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil {
				mark(pe.Param.Value, 2)
			}
			return true
		})
	}
	syntax.Walk(w, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.CmdSubst); ok {
			return false // see pureStmt
		}
		pe, ok := n.(*syntax.ParamExp)
		if !ok || pe.Param == nil {
			return true
		}
		switch {
		case pe.Excl || pe.Length || pe.Width || pe.Slice != nil || pe.Names != 0:
			mark(pe.Param.Value, 2)
		case pe.Repl != nil:
			mark(pe.Param.Value, 1)
			inner(pe.Repl.Orig)
			inner(pe.Repl.With)
		case pe.Exp != nil:
			switch pe.Exp.Op {
			case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
				mark(pe.Param.Value, 1)
				inner(pe.Exp.Word)
			case syntax.OtherParamOps:
				mark(pe.Param.Value, 2)
			}
		}
		return true
	})
	return out
}

// values are the values a variable may hold: the env's, every value the
// scripts give it, unset where nothing may have set it yet.
func (x *boundExp) values(name string, depth int) []string {
	if v, ok := x.vals[name]; ok {
		return v
	}
	if x.busy[name] || depth >= maxBoundDepth {
		x.cut = true
		return []string{anyText}
	}
	key := x.varKey(name, depth)
	if key != "" {
		if v, ok := x.b.varMemo(key); ok {
			x.vals[name] = v
			return v
		}
	}
	x.busy[name] = true
	defer delete(x.busy, name)
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	switch {
	case isUnknowable(name):
		add(deadText) // the evaluation does not know it either
	case !syntax.ValidName(name) || x.b.wild[name]:
		add(anyText) // $0, $#, ... or a value the reading cannot follow
	case name == "0" || name == "BASH_SOURCE":
		for _, p := range x.b.selves {
			add(p)
		}
	case x.b.unknown != nil && x.b.unknown(name) && !x.inEnv(name), name == "PWD", name == "FUNCNAME":
		add(anyText) // values the evaluation knows and the reading does not
	default:
		if x.skeleton {
			add(unsetAlt)
			add(anyText)
			if name == "GITHUB_WORKSPACE" {
				add(Workspace)
			}
		} else if v, ok := x.lookup(name); ok {
			switch {
			case !v.Set:
				add(unsetAlt)
			case v.maybeUnset:
				add(unsetAlt)
				add(anyText)
			case v.Known && !v.IsList && !v.partial:
				add(v.Str)
			default:
				add(anyText)
			}
		} else if name == "GITHUB_WORKSPACE" {
			add(Workspace) // what the evaluation gives it
		} else {
			add(unsetAlt)
		}
		base := slices.Clone(out)
		for _, a := range x.b.assigns[name] {
			if !slices.Contains(x.b.syntaxOf(a).names, name) {
				for _, s := range x.word(a, depth+1) {
					add(s)
				}
				continue
			}
			// X=${X:-default}, X="prefix-$X": run once, the value is made
			// from what X held before (its starting values); run again
			// (in a loop, a function) it may grow without bound.
			if x.b.repeated[a] {
				add(anyText)
				continue
			}
			once := &boundExp{b: x.b, env: x.env, vals: map[string][]string{name: base}, busy: map[string]bool{}, skeleton: x.skeleton, open: x.open, scoped: true}
			for _, s := range once.word(a, depth+1) {
				add(s)
			}
			x.cut = x.cut || once.cut
		}
		// X+=v: any value so far, then the appended text; more appends
		// after it are unknown text.
		if apps := x.b.appends[name]; len(apps) > 0 {
			base := slices.Clone(out)
			for _, a := range apps {
				for _, s := range x.word(a, depth+1) {
					for _, b := range base {
						if b == unsetAlt {
							b = ""
						}
						add(b + s)
						add(b + s + anyText)
					}
				}
			}
		}
	}
	if len(out) > maxAlternatives {
		out = []string{anyText}
	}
	x.vals[name] = out
	if key != "" && !x.cut {
		x.b.putVar(key, out)
	}
	return out
}

// positional are the values a positional parameter may hold in function
// fn: the matching argument of each call of it (every argument, when it
// shifts them); unset at the top of a script.
func (x *boundExp) positional(name, fn string, depth int) []string {
	key := name + "\x00" + fn
	if v, ok := x.vals[key]; ok {
		if x.busy[key] {
			x.cut = true // recursion: what it computes meanwhile
		}
		return v
	}
	if depth >= maxBoundDepth {
		x.cut = true
		return []string{anyText}
	}
	x.vals[key] = []string{anyText} // while it is computed (recursion)
	x.busy[key] = true
	defer delete(x.busy, key)
	out := []string{unsetAlt}
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	n := 0
	for _, c := range name {
		n = n*10 + int(c-'0')
	}
	every := name == "@" || name == "*" || x.b.shifts[fn]
	if every && fn != "" {
		add(anyText) // all of them joined
	}
	for _, args := range x.b.calls[fn] {
		for i, a := range args {
			if every || i == n-1 {
				for _, s := range x.word(a, depth+1) {
					add(s)
				}
			}
		}
	}
	if len(out) > maxAlternatives {
		out = []string{anyText}
	}
	x.vals[key] = out
	return out
}

// boundEnv is one combination of alternatives, as an expand.Environ.
type boundEnv map[string]string

func (e boundEnv) Get(name string) expand.Variable {
	v, ok := e[name]
	if !ok || v == unsetAlt {
		return expand.Variable{}
	}
	return expand.Variable{Set: true, Kind: expand.String, Str: v}
}

func (e boundEnv) Each(fn func(string, expand.Variable) bool) {
	for name := range e {
		if !fn(name, e.Get(name)) {
			return
		}
	}
}

// Names reports whether a pattern may name the tree path p, as the
// evaluator turns a word into a tree path: a relative word from some
// working directory (the path ends in the word, cleaned), and an absolute
// one through the workspace, a container's mounts or a copy of a tree
// directory (the path ends in some tail of the word: at least its base
// name).
func Names(pattern, p string) bool {
	rel, stripped := tailAfterDots(pattern)
	if rel == "" {
		return false
	}
	if rest, ok := strings.CutPrefix(rel, Workspace+"/"); ok && !stripped {
		return globsMeet(rest, p) // through the workspace: the tree path itself
	}
	base := path.Base(p)
	last := rel[strings.LastIndexAny(rel, anyText+anyName)+1:]
	absolute := !stripped && (rel[0] == '/' || rel[0] == '~' || rel[0] == anyText[0])
	if strings.Contains(last, anyName) {
		last = ""
	}
	if !strings.HasSuffix(p, last) && !(absolute && (strings.HasSuffix(last, "/"+base) || strings.HasSuffix("/"+base, last))) {
		return false
	}
	if len(rel)*(len(p)+2) > maxMeetCells {
		return true // too long to compare: it may
	}
	for i := 0; i <= len(p); i++ {
		if (i == 0 || p[i-1] == '/') && globsMeet(rel, p[i:]) {
			return true
		}
	}
	return absolute && (globsMeet(rel, "/"+anyText+"/"+base) || globsMeet(rel, "/"+base) || globsMeet(rel, "~/"+anyText+base))
}

// Beneath reports whether a copy's source pattern may name p or a
// directory p is in. A copy's source is a file or directory of the tree,
// named from the working directory or through the workspace.
func Beneath(pattern, p string) bool { return copies(pattern, p, true, true) }

// CopiedAs reports whether a copy's source pattern may name the file p
// itself: the copy may give it another name.
func CopiedAs(pattern, p string) bool { return copies(pattern, p, true, false) }

// BeneathDir reports whether a copy's source pattern may name a directory
// p is in (Beneath is CopiedAs or BeneathDir). A run of p from such a
// copy names it by a path in the copy, which ends in p's base name (see
// MayEndIn).
func BeneathDir(pattern, p string) bool { return copies(pattern, p, false, true) }

// copies is Beneath for the pattern naming p itself (self), a directory
// p is in (dirs), or either.
func copies(pattern, p string, self, dirs bool) bool {
	rel, stripped := tailAfterDots(pattern)
	if rel == "" {
		return false
	}
	for i := 0; i <= len(p); i++ {
		if i < len(p) && (p[i] != '/' || !dirs) || i == len(p) && !self {
			continue
		}
		dir := p[:i]
		if len(rel)*(len(dir)+len(Workspace)+1) > maxMeetCells {
			return true
		}
		if !stripped && globsMeet(rel, Workspace+"/"+dir) {
			return true
		}
		for j := 0; j <= len(dir); j++ {
			if (j == 0 || dir[j-1] == '/') && globsMeet(rel, dir[j:]) {
				return true
			}
		}
	}
	return false
}

// MayEndIn reports whether a word's values (pattern) may be a path whose
// last segment, once the evaluator cleans it, is name: the word holds
// name somewhere (a srtctl selector may follow it), or it may end in a
// segment cleaning removes (. or ..), or be empty, which leaves the last
// segment to the working directory. A file of a copied directory is run
// by a path in the copy (the evaluator maps it back through the copy:
// dst/rest is src/rest), so only a word that may end in the file's name
// runs it.
func MayEndIn(pattern, name string) bool {
	if strings.Trim(pattern, anyText+anyName) == "" {
		return true // may be empty, or anything
	}
	// Cleaning takes the last segment from the working directory only
	// when the word ends in . or .. (a trailing / aside).
	t := strings.TrimRight(pattern, "/")
	if seg := t[strings.LastIndexByte(t, '/')+1:]; seg == "" || seg == "." || seg == ".." {
		return true
	}
	if len(pattern)*(len(name)+3) > maxMeetCells {
		return true // too long to compare: it may
	}
	return globsMeet(pattern, anyText+name+anyText)
}

func isWild(c byte) bool { return c == anyText[0] || c == anyName[0] }

// tailAfterDots is a pattern's part after its last "." or ".." segment
// (the path it names ends in that part), and whether there was one.
func tailAfterDots(s string) (string, bool) {
	if !strings.HasPrefix(s, ".") && !strings.Contains(s, "/.") {
		return s, false
	}
	for end := len(s); ; {
		start := strings.LastIndexByte(s[:end], '/') + 1
		if seg := s[start:end]; seg == "." || seg == ".." {
			if end == len(s) {
				return "", true
			}
			return s[end+1:], true
		}
		if start == 0 {
			return s, false
		}
		end = start - 1
	}
}

// globsMeet reports whether two patterns (anyText standing for any text in
// either) match a common string. Both are short: the table is at most a
// few thousand cells.
func globsMeet(a, b string) bool {
	// Equal literal tails are compared at once.
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] && !isWild(a[len(a)-1]) {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if len(a) > 0 && len(b) > 0 && !isWild(a[len(a)-1]) && !isWild(b[len(b)-1]) {
		return false // different last characters
	}
	if !strings.ContainsAny(a, anyText+anyName) && !strings.ContainsAny(b, anyText+anyName) {
		return a == b
	}
	// seen[i*(len(b)+1)+j]: the suffixes a[i:] and b[j:] were tried.
	m := meeting{a: a, b: b}
	if n := ((len(a)+1)*(len(b)+1) + 63) / 64; n <= len(m.buf) {
		m.seen = m.buf[:n]
	} else {
		m.seen = make([]uint64, n)
	}
	return m.meet(0, 0)
}

// meeting is globsMeet's table, a bit per cell: the common ones need no
// allocation.
type meeting struct {
	a, b string
	seen []uint64
	buf  [64]uint64
}

func (m *meeting) meet(i, j int) bool {
	a, b := m.a, m.b
	k := i*(len(b)+1) + j
	if m.seen[k/64]&(1<<(k%64)) != 0 {
		return false
	}
	m.seen[k/64] |= 1 << (k % 64)
	switch {
	case i == len(a) && j == len(b):
		return true
	case i < len(a) && a[i] == anyText[0]:
		return m.meet(i+1, j) || j < len(b) && m.meet(i, j+1)
	case j < len(b) && b[j] == anyText[0]:
		return m.meet(i, j+1) || i < len(a) && m.meet(i+1, j)
	case i < len(a) && a[i] == anyName[0]:
		return m.meet(i+1, j) || j < len(b) && b[j] != '/' && m.meet(i, j+1)
	case j < len(b) && b[j] == anyName[0]:
		return m.meet(i, j+1) || i < len(a) && a[i] != '/' && m.meet(i+1, j)
	case i < len(a) && j < len(b) && a[i] == b[j]:
		return m.meet(i+1, j+1)
	}
	return false
}

// DynamicExports are the variables f's export, declare and local
// commands take whole assignments from (export $SETTINGS), in order of
// appearance, once each.
func DynamicExports(f *syntax.File) []string {
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if dc, ok := n.(*syntax.DeclClause); ok {
			for _, a := range dc.Args {
				if a.Name == nil && a.Value != nil && !strings.HasPrefix(a.Value.Lit(), "-") {
					for _, name := range paramNames(a.Value) {
						if !slices.Contains(out, name) {
							out = append(out, name)
						}
					}
				}
			}
		}
		return true
	})
	return out
}
