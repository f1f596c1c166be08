package sheval

import (
	"errors"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Workspace is the value the evaluator gives GITHUB_WORKSPACE: the root
// of the tree, so that "$GITHUB_WORKSPACE/benchmarks/x.sh" resolves to the
// tree path benchmarks/x.sh.
const Workspace = "/__workspace__"

// RunKind says what a run hands a file to.
type RunKind uint8

const (
	// RunScript is a shell script run with bash or sh (or sourced by a
	// wrapper, exec'd, handed to srun or docker).
	RunScript RunKind = iota + 1
	// RunRecipe is a YAML recipe handed to srtctl.
	RunRecipe
)

func (k RunKind) String() string {
	if k == RunRecipe {
		return "recipe"
	}
	return "script"
}

// Run is a script or recipe a path of the evaluated script hands control
// to.
type Run struct {
	Kind RunKind
	// Path is the tree path when the word resolved into the tree (the file
	// need not exist); "" otherwise.
	Path string
	// Text is the word as expanded, or as written when it is unknown.
	Text  string
	Known bool
	At    Loc
	// From are the assignments of the variables the word is built from.
	From []Loc
	// Env is the environment the run gets.
	Env Env
	// External is set for a path outside the tree (a checkout of another
	// repository, an absolute path on the runner).
	External bool
	// Copied is set for a path the script reached through its copy of a
	// tree directory into another checkout: when the tree lacks the
	// file, that checkout may have it.
	Copied bool
	// PassAll is set when the run gets every exported variable (not a
	// list, as docker -e gives).
	PassAll bool
	// Certain is set when the job's env decided every branch on the way.
	Certain bool
	// Inputs are the variables of the evaluation's starting env the
	// word was computed from (see deps.go).
	Inputs []string
}

// Exit is a path that ended with a failure status.
type Exit struct {
	At   Loc
	Code string
}

// Req is a variable a path requires but does not have: `${X:?}`,
// `check_env_vars X`, or a bare `$X` under `set -u`.
type Req struct {
	Var string
	At  Loc
	How string
	// Certain is set when the job's env decided every branch on the way.
	Certain bool
}

// Decision is a branch a path took, for the evidence.
type Decision struct {
	At   Loc
	Took bool
	// node is the test, printed on demand by Text.
	node  syntax.Node
	label string
}

// Text is the decision's test as written.
func (d Decision) Text() string {
	switch n := d.node.(type) {
	case *syntax.IfClause:
		return d.label + condText(n.Cond)
	case *syntax.CaseItem:
		return d.label + patternsText(n)
	}
	return d.label
}

// Call is a program a path runs that the evaluation was asked to record
// (see Eval.Calls), with its arguments as the path gives them.
type Call struct {
	At Loc
	// Args are the words after expansion, the program's name first; an
	// argument that depends on something unknown is not Known, and its
	// Text is the word as written.
	Args []Arg
}

// Arg is an argument of a recorded call.
type Arg struct {
	Text  string
	Known bool
}

// Path is one way through the evaluated script.
type Path struct {
	Runs []Run
	// Calls are the recorded programs the path runs, in order.
	Calls []Call
	// Exit is set when the path ended with a failure status.
	Exit *Exit
	Reqs []Req
	// Certain is set when the job's env decided every branch the path took
	// (no branch depended on something unknown).
	Certain   bool
	Decisions []Decision
}

// Result is every path through a script.
type Result struct {
	Paths []Path
	// Incomplete is set when the evaluator gave up following every path
	// separately (too many paths, too many steps, too deep): what it
	// reports is still true of some path, but not every path is listed.
	Incomplete bool
	// Queries are the tree lookups the result depends on.
	Queries map[string]Stat
	// Reads are the inputs that decided the evaluation, with their values
	// (see deps.go): an env that agrees on them evaluates the same.
	Reads map[string]string
	// Sources are the blob IDs of the files the evaluation parsed (the
	// script and what it sourced), by path.
	Sources map[string]string
	// Effects are the inputs (keys as in Reads) that reach the arguments of
	// a program the script runs (a server, a client), logging aside.
	Effects map[string]bool
	// Checks are the variables some path checks are set (`${X:?}`,
	// `check_env_vars X`), set or not, with the first check.
	Checks map[string]Req

	// EnvSum identifies the env the evaluation started from (see memo).
	EnvSum string
}

// Stat is what the tree says of a path.
type Stat struct {
	Exists, Dir bool
}

// Files is how the evaluator reads the tree.
type Files interface {
	// Parse returns the parsed shell script at a tree path.
	Parse(p string) (*syntax.File, error)
	// Stat says whether a tree path exists.
	Stat(p string) (Stat, error)
	// Blob identifies a file's content ("" when unknown).
	Blob(p string) string
}

// noteSource records the content a parsed file had.
func (w *walker) noteSource(p string) {
	if w.sources != nil {
		w.sources[p] = w.ev.Files.Blob(p)
	}
}

// Eval is the static shell evaluator.
type Eval struct {
	Files Files
	// MaxStates bounds the paths followed at once; beyond it paths are
	// joined (their differing variables become unknown).
	MaxStates int
	// MaxSteps bounds the statements visited.
	MaxSteps int
	// MaxDepth bounds nesting: sourced files, function calls, bash -c.
	MaxDepth int
	// Unknown reports whether a variable nobody assigned has an unknown
	// value (set on the runner machine) rather than being unset.
	Unknown func(name string) bool
	// Calls, when set, names the programs whose calls each path records
	// with their expanded arguments (a server the script starts). The
	// inputs an argument is built from then decide the evaluation too.
	Calls func(program string) bool
}

// maxCalls bounds the calls one path records, and maxCallArgs the
// arguments kept of one call.
const (
	maxCalls    = 16
	maxCallArgs = 512
)

const (
	defaultMaxStates = 48
	defaultMaxSteps  = 60000
	defaultMaxDepth  = 12
)

// errBudget stops an evaluation that ran out of steps.
var errBudget = errors.New("step budget exhausted")

// state is one path being followed.
type state struct {
	vars    scope
	cwd     string // "" the tree root, "ext:<dir>" outside it, "?" unknown
	nounset bool
	certain bool
	done    bool
	// returned is set with done by `return`: it ends the function or
	// sourced file, not the path.
	returned bool
	// dead stands for paths already set aside (see final).
	dead   bool
	made   []string    // paths the script created (mkdir, cp, >) on this path
	copies [][2]string // dst, src (tree path) of cp commands
	runs   []Run
	calls  []Call
	exit   *Exit
	reqs   []Req
	dec    *decisions
}

// decisions are a path's decisions, the last first: paths forked from
// one share what they decided before.
type decisions struct {
	d    Decision
	prev *decisions
	n    int
}

func (l *decisions) len() int {
	if l == nil {
		return 0
	}
	return l.n
}

// with is the list and d after it.
func (l *decisions) with(d Decision) *decisions {
	return &decisions{d: d, prev: l, n: l.len() + 1}
}

// list is the decisions in the order made (nil for none).
func (l *decisions) list() []Decision {
	if l == nil {
		return nil
	}
	out := make([]Decision, l.n)
	for x := l; x != nil; x = x.prev {
		out[x.n-1] = x.d
	}
	return out
}

func (s *state) clone() *state {
	c := *s
	c.vars = s.vars.clone()
	c.made = slices.Clip(s.made)
	c.copies = slices.Clip(s.copies)
	c.runs = slices.Clip(s.runs)
	c.calls = slices.Clip(s.calls)
	c.reqs = slices.Clip(s.reqs)
	return &c
}

// same reports whether two states will behave the same from here on.
func (s *state) same(o *state) bool {
	if s.cwd != o.cwd || s.nounset != o.nounset || s.done != o.done || s.returned != o.returned ||
		len(s.runs) != len(o.runs) || len(s.reqs) != len(o.reqs) || (s.exit == nil) != (o.exit == nil) ||
		len(s.copies) != len(o.copies) || len(s.calls) != len(o.calls) {
		return false
	}
	if !s.vars.equal(&o.vars) {
		return false
	}
	for i := range s.runs {
		if s.runs[i].Path != o.runs[i].Path || s.runs[i].Text != o.runs[i].Text || s.runs[i].At != o.runs[i].At {
			return false
		}
	}
	for i := range s.copies {
		if s.copies[i] != o.copies[i] {
			return false
		}
	}
	for i := range s.calls {
		if s.calls[i].At != o.calls[i].At || !slices.Equal(s.calls[i].Args, o.calls[i].Args) {
			return false
		}
	}
	return true
}

// walker is one evaluation.
type walker struct {
	ev *Eval
	// printer prints the words the evaluator cannot expand, for their
	// text; printed memoizes it (a launcher's unknown words are printed
	// once per path otherwise).
	printer    *syntax.Printer
	printed    map[*syntax.Word]string
	cfgs       []expansion // free expansion configs (see config)
	steps      int
	depth      int
	incomplete bool
	funcs      map[string]*syntax.FuncDecl
	funcFile   map[string]string
	queries    map[string]Stat
	sources    map[string]string
	file       string // the file being walked
	// sub counts the subshells being walked: an exit inside one ends
	// only the subshell.
	sub int
	// finished are the paths that ended with exit.
	finished []*state
	// coll collects the inputs an expansion reads (see collect); reads
	// are the inputs that decided the evaluation.
	coll    *[]string
	reads   map[string]bool
	effects map[string]bool
	checks  map[string]Req
	// exported memoizes exportedOnly for the last env it was given (the
	// runs of one command, and of commands with no change between them,
	// share one env).
	exportedIn, exportedOut Env
}

// Run evaluates the script at tree path p with env.
func (ev *Eval) Run(p string, env Env) (*Result, error) {
	f, err := ev.Files.Parse(p)
	if err != nil {
		return nil, err
	}
	return ev.run(p, f, env), nil
}

// RunFile evaluates an already parsed script; name is its path for
// locations.
func (ev *Eval) RunFile(name string, f *syntax.File, env Env) *Result {
	return ev.run(name, f, env)
}

func (ev *Eval) run(name string, f *syntax.File, env Env) *Result {
	w := &walker{ev: ev, funcs: map[string]*syntax.FuncDecl{}, funcFile: map[string]string{}, queries: map[string]Stat{}, file: name,
		reads: map[string]bool{}, effects: map[string]bool{}, sources: map[string]string{}, checks: map[string]Req{}}
	w.noteSource(name)
	inputs := make(Env, len(env))
	for k, v := range env {
		v.input, v.deps = true, []string{k}
		inputs[k] = v
	}
	st := &state{vars: scope{base: inputs}, certain: true} // inputs is the scope's own
	st.vars.set("BASH_SOURCE", Value{List: []string{Workspace + "/" + name}, IsList: true, Set: true, Known: true})
	st.vars.set("0", Value{Str: Workspace + "/" + name, Set: true, Known: true})
	if _, ok := st.vars.get("GITHUB_WORKSPACE"); !ok {
		st.vars.set("GITHUB_WORKSPACE", Str(Workspace))
	}
	states := w.safeStmts(f.Stmts, []*state{st})
	res := &Result{Incomplete: w.incomplete, Queries: w.queries, Reads: map[string]string{}, Sources: w.sources, Effects: w.effects, Checks: w.checks}
	for k := range w.reads {
		res.Reads[k] = Canon(env, k)
	}
	states = append(w.finished, states...)
	if len(states) > 4*w.ev.maxStates() {
		res.Incomplete = true
		states = states[len(states)-4*w.ev.maxStates():]
	}
	for _, s := range states {
		res.Paths = append(res.Paths, Path{Runs: s.runs, Calls: s.calls, Exit: s.exit, Reqs: s.reqs, Certain: s.certain, Decisions: s.dec.list()})
	}
	return res
}

func (ev *Eval) maxStates() int {
	if ev.MaxStates > 0 {
		return ev.MaxStates
	}
	return defaultMaxStates
}

func (ev *Eval) maxSteps() int {
	if ev.MaxSteps > 0 {
		return ev.MaxSteps
	}
	return defaultMaxSteps
}

func (ev *Eval) maxDepth() int {
	if ev.MaxDepth > 0 {
		return ev.MaxDepth
	}
	return defaultMaxDepth
}

// safeStmts walks the statements and turns a budget overrun into an
// incomplete result with the paths followed so far.
func (w *walker) safeStmts(list []*syntax.Stmt, in []*state) (out []*state) {
	defer func() {
		if r := recover(); r != nil {
			if r != errBudget { //nolint:errorlint // our own sentinel
				panic(r)
			}
			w.incomplete = true
			out = in
		}
	}()
	return w.stmts(list, in)
}

func (w *walker) loc(n syntax.Node) Loc {
	if n == nil || !n.Pos().IsValid() {
		return Loc{File: w.file}
	}
	return Loc{File: w.file, Line: int(n.Pos().Line())}
}

// stmts walks a statement list over every live state.
func (w *walker) stmts(list []*syntax.Stmt, in []*state) []*state {
	cur := in
	for _, s := range list {
		var next []*state
		for _, st := range cur {
			if st.done {
				next = append(next, st)
				continue
			}
			for _, o := range w.stmt(s, st) {
				if w.final(o.st) {
					continue
				}
				next = append(next, o.st)
			}
		}
		cur = w.bound(next)
	}
	return cur
}

// final sets aside a path that ended with exit (outside any subshell):
// nothing that follows can change it.
func (w *walker) final(st *state) bool {
	if !st.done || st.returned || w.sub > 0 {
		return false
	}
	if st.dead {
		return true
	}
	if len(w.finished) < 8*w.ev.maxStates() {
		st.vars = scope{}
		w.finished = append(w.finished, st)
	} else {
		w.incomplete = true
	}
	return true
}

// bound keeps the number of states under the limit: equal states merge,
// and beyond the limit all live states join into one.
func (w *walker) bound(states []*state) []*state {
	if len(states) <= 1 {
		return states
	}
	states = dedupe(states)
	if len(states) <= w.ev.maxStates() {
		return states
	}
	w.incomplete = true
	var live, dead []*state
	for _, s := range states {
		if s.done {
			dead = append(dead, s)
		} else {
			live = append(live, s)
		}
	}
	if len(live) == 0 {
		return dead[:w.ev.maxStates()]
	}
	j := join(live)
	if len(dead) > w.ev.maxStates()-1 {
		dead = dead[:w.ev.maxStates()-1]
	}
	return append(dead, j)
}

func dedupe(states []*state) []*state {
	out := states[:0:0]
	for _, s := range states {
		if !slices.ContainsFunc(out, func(o *state) bool { return o.same(s) && o.certain == s.certain }) {
			out = append(out, s)
		}
	}
	return out
}

// tri is a test's outcome: true, false, or unknown.
type tri int8

const (
	triUnknown tri = iota
	triTrue
	triFalse
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

func (t tri) not() tri {
	switch t {
	case triTrue:
		return triFalse
	case triFalse:
		return triTrue
	}
	return triUnknown
}

// outcome is a state after a statement, with the statement's status.
type outcome struct {
	st     *state
	status tri
}

func (w *walker) step() {
	w.steps++
	if w.steps > w.ev.maxSteps() {
		panic(errBudget)
	}
}

// stmt walks one statement from st.
func (w *walker) stmt(s *syntax.Stmt, st *state) []outcome {
	w.step()
	if s.Background || s.Coprocess {
		// Runs in a subshell: its runs count, its assignments do not.
		sub := st.clone()
		sub.done = false
		w.sub++
		for _, o := range w.cmd(s.Cmd, sub) {
			st = mergeRuns(st, o.st)
		}
		w.sub--
		return []outcome{{st, triTrue}}
	}
	for _, r := range s.Redirs {
		w.redirect(r, st)
	}
	outs := w.cmd(s.Cmd, st)
	if s.Negated {
		for i := range outs {
			outs[i].status = outs[i].status.not()
		}
	}
	return outs
}

// mergeRuns adds the runs, requirements and calls a subshell made on a
// copy of st to st.
func mergeRuns(st, sub *state) *state {
	if len(sub.runs) == len(st.runs) && len(sub.reqs) == len(st.reqs) && len(sub.calls) == len(st.calls) {
		return st
	}
	c := st.clone()
	c.runs = append(c.runs, sub.runs[min(len(st.runs), len(sub.runs)):]...)
	c.reqs = append(c.reqs, sub.reqs[min(len(st.reqs), len(sub.reqs)):]...)
	c.calls = append(c.calls, sub.calls[min(len(st.calls), len(sub.calls)):]...)
	return c
}

// redirect records a file the script writes (so a later `-f` test of it
// is not decided against the tree).
func (w *walker) redirect(r *syntax.Redirect, st *state) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		if v, ok := w.word(r.Word, st); ok {
			st.made = append(st.made, w.resolve(v, st))
		}
	}
}

func (w *walker) cmd(c syntax.Command, st *state) []outcome {
	switch c := c.(type) {
	case nil:
		return []outcome{{st, triTrue}}
	case *syntax.CallExpr:
		return w.call(c, st)
	case *syntax.DeclClause:
		return w.decl(c, st)
	case *syntax.IfClause:
		return w.ifClause(c, st)
	case *syntax.CaseClause:
		return w.caseClause(c, st)
	case *syntax.BinaryCmd:
		return w.binary(c, st)
	case *syntax.Block:
		return w.block(c.Stmts, st)
	case *syntax.Subshell:
		sub := st.clone()
		var last tri = triTrue
		var res *state = st
		w.sub++
		for _, o := range w.block(c.Stmts, sub) {
			res = mergeRuns(res, o.st)
			last = o.status
		}
		w.sub--
		return []outcome{{res, last}}
	case *syntax.ForClause:
		return w.loop(c.Do, c, st)
	case *syntax.WhileClause:
		// The condition runs at least once.
		var out []*state
		for _, o := range w.block(c.Cond, st) {
			out = append(out, o.st)
		}
		var res []outcome
		for _, s := range out {
			res = append(res, w.loop(c.Do, nil, s)...)
		}
		return res
	case *syntax.FuncDecl:
		if c.Name != nil {
			w.funcs[c.Name.Value] = c
			w.funcFile[c.Name.Value] = w.file
		}
		return []outcome{{st, triTrue}}
	case *syntax.TestClause:
		t := w.testExpr(c.X, st)
		return []outcome{{st, t}}
	case *syntax.ArithmCmd:
		w.arithAssign(c.X, st, w.loc(c))
		return []outcome{{st, triUnknown}}
	case *syntax.LetClause:
		for _, e := range c.Exprs {
			w.arithAssign(e, st, w.loc(c))
		}
		return []outcome{{st, triUnknown}}
	case *syntax.TimeClause:
		if c.Stmt == nil {
			return []outcome{{st, triTrue}}
		}
		return w.stmt(c.Stmt, st)
	case *syntax.CoprocClause:
		if c.Stmt == nil {
			return []outcome{{st, triTrue}}
		}
		sub := st.clone()
		w.sub++
		for _, o := range w.stmt(c.Stmt, sub) {
			st = mergeRuns(st, o.st)
		}
		w.sub--
		return []outcome{{st, triTrue}}
	}
	return []outcome{{st, triUnknown}}
}

// block walks statements, keeping the last statement's status.
func (w *walker) block(list []*syntax.Stmt, st *state) []outcome {
	if len(list) == 0 {
		return []outcome{{st, triTrue}}
	}
	w.depth++
	defer func() { w.depth-- }()
	if w.depth > 256 {
		w.incomplete = true
		return []outcome{{st, triUnknown}}
	}
	cur := []outcome{{st, triTrue}}
	for _, s := range list {
		var next []outcome
		for _, o := range cur {
			if o.st.done {
				next = append(next, o)
				continue
			}
			for _, x := range w.stmt(s, o.st) {
				if !w.final(x.st) {
					next = append(next, x)
				}
			}
		}
		if len(next) == 0 {
			// Every path exited: give the caller a dead state so the
			// statement still has an outcome.
			return []outcome{{&state{done: true, dead: true}, triFalse}}
		}
		cur = w.boundOutcomes(next)
	}
	return cur
}

func (w *walker) boundOutcomes(outs []outcome) []outcome {
	if len(outs) <= w.ev.maxStates() {
		return outs
	}
	states := make([]*state, len(outs))
	for i, o := range outs {
		states[i] = o.st
	}
	states = w.bound(states)
	res := make([]outcome, len(states))
	for i, s := range states {
		res[i] = outcome{s, triUnknown}
	}
	return res
}

// fork splits st on an unknown status: a copy for each side, both
// uncertain.
func fork(st *state) (*state, *state) {
	b := st.clone()
	st.certain, b.certain = false, false
	return st, b
}

// settle joins the live outcomes of a compound statement. Outcomes that
// are all the same state mean the unknown decision did not matter, and the
// path stays as certain as it was; different ones are joined into one
// state in which what they disagree on is unknown. Paths are followed
// separately only through the branches the job's env decides, which is
// what tells one script from another; following both sides of every
// unknown test would multiply the paths of a long launcher for nothing.
func settle(orig mark, outs []outcome) []outcome {
	var live []outcome
	var rest []outcome
	for _, o := range outs {
		if o.st.done {
			rest = append(rest, o)
		} else {
			live = append(live, o)
		}
	}
	if len(live) < 2 {
		return outs
	}
	first := live[0].st
	status := live[0].status
	same := true
	for _, o := range live[1:] {
		if o.status != status {
			status = triUnknown
		}
		if same && !o.st.same(first) {
			same = false
		}
	}
	if same {
		first.certain = orig.certain
		first.dec = orig.dec
		return append(rest, outcome{first, status})
	}
	states := make([]*state, len(live))
	for i, o := range live {
		states[i] = o.st
	}
	j := join(states)
	j.dec = orig.dec.with(Decision{label: "(paths through an undecided test joined)"})
	return append(rest, outcome{j, status})
}

// join is the state after paths that reached the same point: variables
// they disagree on are unknown, and what any of them ran or required is
// kept.
func join(states []*state) *state {
	j := states[0].clone()
	j.certain = false
	for _, s := range states[1:] {
		s.vars.each(func(k string, v Value) {
			old, _ := j.vars.get(k)
			if !equalValue(old, v) {
				j.vars.set(k, joinValue(old, v))
			}
		})
		var gone []string
		j.vars.each(func(k string, v Value) {
			if _, ok := s.vars.get(k); !ok {
				gone = append(gone, k)
			}
		})
		for _, k := range gone {
			v, _ := j.vars.get(k)
			j.vars.set(k, joinValue(v, Value{}))
		}
		if s.cwd != j.cwd {
			j.cwd = "?"
		}
		j.nounset = j.nounset || s.nounset
		for _, r := range s.runs {
			if !slices.ContainsFunc(j.runs, func(x Run) bool { return x.At == r.At && x.Path == r.Path && x.Text == r.Text }) {
				j.runs = append(j.runs, r)
			}
		}
		for _, r := range s.reqs {
			if !slices.ContainsFunc(j.reqs, func(x Req) bool { return x.Var == r.Var }) {
				j.reqs = append(j.reqs, r)
			}
		}
		for _, c := range s.calls {
			if len(j.calls) < maxCalls && !slices.ContainsFunc(j.calls, func(x Call) bool { return x.At == c.At && slices.Equal(x.Args, c.Args) }) {
				j.calls = append(j.calls, c)
			}
		}
		j.copies = append(j.copies, s.copies...)
		j.made = append(j.made, s.made...)
	}
	return j
}

// mark is what settle restores: a state's certainty and decisions before a
// compound statement forked it.
type mark struct {
	certain bool
	dec     *decisions
}

func markOf(st *state) mark { return mark{st.certain, st.dec} }

func (w *walker) decide(st *state, n syntax.Node, label string, took bool) {
	if st.dec.len() < 64 {
		st.dec = st.dec.with(Decision{At: w.loc(n), Took: took, node: n, label: label})
	}
}

func (w *walker) ifClause(c *syntax.IfClause, st *state) []outcome {
	orig := markOf(st)
	var res []outcome
	pending := []*state{st}
	for cl := c; cl != nil && len(pending) > 0; cl = cl.Else {
		if len(cl.Cond) == 0 { // else
			for _, s := range pending {
				res = append(res, w.block(cl.Then, s)...)
			}
			pending = nil
			break
		}
		var next []*state
		for _, s := range pending {
			for _, o := range w.block(cl.Cond, s) {
				switch o.status {
				case triTrue:
					w.decide(o.st, cl, "", true)
					res = append(res, w.block(cl.Then, o.st)...)
				case triFalse:
					w.decide(o.st, cl, "", false)
					next = append(next, o.st)
				default:
					a, b := fork(o.st)
					w.decide(a, cl, "", true)
					w.decide(b, cl, "", false)
					res = append(res, w.block(cl.Then, a)...)
					next = append(next, b)
				}
			}
		}
		pending = next
	}
	for _, s := range pending {
		res = append(res, outcome{s, triTrue})
	}
	return settle(orig, res)
}

// condText is the source of a condition, for decisions.
func condText(list []*syntax.Stmt) string {
	var b strings.Builder
	for i, s := range list {
		if i > 0 {
			b.WriteString("; ")
		}
		syntax.NewPrinter(syntax.SingleLine(true)).Print(&b, s)
	}
	t := b.String()
	if len(t) > 160 {
		t = t[:157] + "..."
	}
	return t
}

func (w *walker) caseClause(c *syntax.CaseClause, st *state) []outcome {
	orig := markOf(st)
	v, known := w.word(c.Word, st)
	var res []outcome
	pending := []*state{st}
	text := "case → "
	for _, item := range c.Items {
		if len(pending) == 0 {
			break
		}
		match := triFalse
		for _, p := range item.Patterns {
			if !known {
				match = triUnknown
				break
			}
			m := w.patternMatch(p, v, st)
			if m == triTrue {
				match = triTrue
				break
			}
			if m == triUnknown {
				match = triUnknown
			}
		}
		var next []*state
		for _, s := range pending {
			switch match {
			case triTrue:
				w.decide(s, item, text, true)
				res = append(res, w.block(item.Stmts, s)...)
			case triFalse:
				next = append(next, s)
			default:
				a, b := fork(s)
				w.decide(a, item, text, true)
				res = append(res, w.block(item.Stmts, a)...)
				next = append(next, b)
			}
		}
		pending = next
	}
	for _, s := range pending {
		res = append(res, outcome{s, triTrue})
	}
	return settle(orig, res)
}

func patternsText(item *syntax.CaseItem) string {
	var ps []string
	for _, p := range item.Patterns {
		ps = append(ps, printWord(p))
	}
	return strings.Join(ps, "|")
}

func printWord(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	printNode(&b, w)
	return b.String()
}

// printers are syntax printers to reuse: a printer holds a buffered
// writer, and an evaluation prints words of every row it runs.
var printers = sync.Pool{New: func() any { return syntax.NewPrinter() }}

// printNode prints n to b as the shell would read it.
func printNode(b *strings.Builder, n syntax.Node) {
	p := printers.Get().(*syntax.Printer)
	p.Print(b, n) // a strings.Builder does not fail
	printers.Put(p)
}

// wordText is printWord with the walker's printer, once per word.
func (w *walker) wordText(wd *syntax.Word) string {
	if wd == nil {
		return ""
	}
	if s, ok := w.printed[wd]; ok {
		return s
	}
	if w.printer == nil {
		w.printer = syntax.NewPrinter()
		w.printed = map[*syntax.Word]string{}
	}
	var b strings.Builder
	w.printer.Print(&b, wd)
	s := b.String()
	w.printed[wd] = s
	return s
}

func (w *walker) binary(c *syntax.BinaryCmd, st *state) []outcome {
	switch c.Op {
	case syntax.AndStmt, syntax.OrStmt:
		orig := markOf(st)
		var res []outcome
		for _, o := range w.stmt(c.X, st) {
			runY := o.status == triTrue
			if c.Op == syntax.OrStmt {
				runY = o.status == triFalse
			}
			switch {
			case o.status == triUnknown:
				a, b := fork(o.st)
				res = append(res, w.stmt(c.Y, a)...)
				skip := triFalse
				if c.Op == syntax.OrStmt {
					skip = triTrue
				}
				res = append(res, outcome{b, skip})
			case runY:
				res = append(res, w.stmt(c.Y, o.st)...)
			default:
				res = append(res, o)
			}
		}
		return settle(orig, res)
	default: // pipelines: each side runs in a subshell
		res := st
		w.sub++
		for _, side := range []*syntax.Stmt{c.X, c.Y} {
			sub := st.clone()
			for _, o := range w.stmt(side, sub) {
				res = mergeRuns(res, o.st)
			}
		}
		w.sub--
		return []outcome{{res, triUnknown}}
	}
}

// loop walks a loop body once (the bot cannot count iterations); what the
// body assigns is unknown afterwards unless every way through agrees.
func (w *walker) loop(body []*syntax.Stmt, fc *syntax.ForClause, st *state) []outcome {
	orig := st.clone()
	om := markOf(st)
	in := st
	if fc != nil {
		switch l := fc.Loop.(type) {
		case *syntax.WordIter:
			if l.Name != nil {
				in.vars.set(l.Name.Value, Value{Set: true, At: w.loc(l.Name)})
			}
		case *syntax.CStyleLoop:
			w.arithAssign(l.Init, in, w.loc(fc))
		}
	}
	var res []outcome
	skip := orig.clone()
	for _, o := range w.block(body, in) {
		s := o.st
		if !s.done {
			// Assigned in the body: unknown after the loop, which may
			// run zero or several times.
			var changed []string
			s.vars.each(func(k string, v Value) {
				if old, ok := orig.vars.get(k); !ok || !equalValue(old, v) {
					changed = append(changed, k)
				}
			})
			for _, k := range changed {
				old, _ := orig.vars.get(k)
				v, _ := s.vars.get(k)
				s.vars.set(k, joinValue(old, v))
			}
		}
		res = append(res, outcome{s, triUnknown})
		skip = mergeRuns(skip, s)
	}
	res = append(res, outcome{skip, triTrue})
	return settle(om, res)
}

// resolve turns a path word into a tree path ("ext:..." outside the tree,
// "?" when unknown), from the state's working directory.
func (w *walker) resolve(p string, st *state) string {
	if p == "" {
		return "?"
	}
	if p == Workspace {
		return ""
	}
	if strings.HasPrefix(p, Workspace+"/") {
		return cleanTree(strings.TrimPrefix(p, Workspace+"/"))
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return "ext:" + path.Clean(p)
	}
	switch {
	case st.cwd == "?":
		return "?"
	case strings.HasPrefix(st.cwd, "ext:"):
		return "ext:" + path.Clean(path.Join(strings.TrimPrefix(st.cwd, "ext:"), p))
	}
	return cleanTree(path.Join(st.cwd, p))
}

// cleanTree cleans a path relative to the tree root; a path that climbs
// out of it is outside.
func cleanTree(p string) string {
	c := path.Clean(p)
	if c == "." {
		return ""
	}
	if c == ".." || strings.HasPrefix(c, "../") {
		return "ext:" + c
	}
	return c
}

// treePath maps a resolved path into the tree through the copies the path
// made (cp -r tree/dir ext/dir), or returns false.
func (st *state) treePath(r string) (string, bool) {
	if r == "?" {
		return "", false
	}
	if !strings.HasPrefix(r, "ext:") {
		return r, true
	}
	for i := len(st.copies) - 1; i >= 0; i-- {
		dst, src := st.copies[i][0], st.copies[i][1]
		if r == dst {
			return src, true
		}
		if strings.HasPrefix(r, dst+"/") {
			return cleanTree(path.Join(src, strings.TrimPrefix(r, dst+"/"))), true
		}
	}
	return "", false
}

// fileTest decides -f, -e, -d, -s and -r on a path against the tree.
func (w *walker) fileTest(op syntax.UnTestOperator, p string, st *state) tri {
	r := w.resolve(p, st)
	if r == "?" {
		return triUnknown
	}
	for _, m := range st.made {
		if m == r || strings.HasPrefix(r, m+"/") {
			return triUnknown // the script made it on this path
		}
	}
	tp, ok := st.treePath(r)
	if !ok {
		return triUnknown
	}
	s, err := w.stat(tp)
	if err != nil {
		return triUnknown
	}
	switch op {
	case syntax.TsDirect:
		return triOf(s.Exists && s.Dir)
	case syntax.TsRegFile, syntax.TsNoEmpty:
		return triOf(s.Exists && !s.Dir)
	}
	return triOf(s.Exists)
}

func (w *walker) stat(tp string) (Stat, error) {
	if s, ok := w.queries[tp]; ok {
		return s, nil
	}
	s, err := w.ev.Files.Stat(tp)
	if err != nil {
		return Stat{}, err
	}
	w.queries[tp] = s
	return s, nil
}
