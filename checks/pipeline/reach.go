package pipeline

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/ghexpr"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// Which rows can run a file, without evaluating every row: the launch
// step of a row's job and the runner scripts and sourced files it may
// hand over to are read without evaluating them (sheval.Bound), and a row
// is evaluated only when the words its job runs files by, expanded with
// the row's job env, may name the file. Reachers then evaluates those
// rows alone. The bound may admit rows that do not run the file, never
// leave out one that does.

// bounds are a model's launch readings, made on first use and shared by
// the rows whose jobs read the same scripts.
type bounds struct {
	mu sync.Mutex
	// steps are the launch steps' scripts by job kind and runner group,
	// every input unknown (nil when one does not parse), and the
	// expressions each script's unknown variables stand for.
	steps map[stepKey]*stepScript
	// byFiles are the readings by the scripts read.
	byFiles map[string]*sheval.Bound
	// next are the scripts a reading's patterns name, by reading and key;
	// scripts those patterns name, by the patterns (see scriptsNamed).
	next    map[nextKey][]string
	scripts map[string][]string
	// envs are the rows' step envs by runner group (nil: none usable).
	envs map[rowGroup]*jobVars
	// named memoizes how a reading's patterns name a file (namingOf), and
	// nameGroups the groups whose skeleton may.
	named      map[namedKey]uint8
	nameGroups map[boundFile][]int
	// follow are the groups of a reading that may name a script to follow.
	follow map[*sheval.Bound][]int
	// launches are the rows' launch readings by runner group (nil: none
	// usable), and reached the rows Reachers found, by file.
	launches map[rowGroup]*sheval.Bound
	reached  map[string][]*Row
	// groupReads are the launch readings of each job kind and runner
	// group with no row's inputs (see groupMayName), and groupNames
	// whether they may name a file.
	groupReads map[stepKey]groupRead
	groupNames map[groupFile]bool
	shell      []string // the tree's shell files (source targets), read once
	read       bool
	bytes      int
	// words is the memo of word expansions the readings share (they read
	// the same syntax trees: see sheval.WordMemo).
	words *sheval.WordMemo
	// stepTexts are the launch steps' scripts by job kind and text (the
	// runner groups whose step reads alike share one, and so the readings
	// made of it); openEnvs the env that stands for every row's job on
	// each runner group (see openEnv), and openFollow and openName what a
	// reading's groups may do with it.
	stepTexts  map[string]*stepScript
	byStep     map[stepKey][]rowGroup
	stepGroup  map[stepKey]RunnerGroup
	openEnvs   map[stepKey]*openOnce
	openFollow map[openGroup]bool
	openName   map[openFile][]int
	// noOpen turns the open filter off (what it must agree with, in tests).
	noOpen bool
}

type openGroup struct {
	b  *sheval.Bound
	k  stepKey
	gi int
}

type openFile struct {
	b   *sheval.Bound
	k   stepKey
	pth string
}

// wordMemo is the readings' shared memo of words, made on first use.
func (b *bounds) wordMemo() *sheval.WordMemo {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.words == nil {
		b.words = sheval.NewWordMemo()
	}
	return b.words
}

type namedKey struct {
	b        *sheval.Bound
	key, pth string
}

type boundFile struct {
	b   *sheval.Bound
	pth string
}

type groupRead struct {
	b   *sheval.Bound // nil: none usable, every row is read
	env sheval.EnvLookup
}

type groupFile struct {
	k   stepKey
	pth string
}

type stepScript struct {
	// id tells the step's scripts apart (the readings made of it are
	// found by it).
	id    int
	file  *syntax.File
	exprs []string
	// exports are the unknown variables the script exports whole
	// assignments from (export ${{ settings }}).
	exports []string
}

type stepKey struct {
	kind  JobKind
	group string
}

type nextKey struct {
	b   *sheval.Bound
	key string
}

// Bounds of the launch readings.
const (
	// maxBoundFiles bounds the scripts one launch reading follows.
	maxBoundFiles = 16
	// maxBoundsMemo bounds what the readings' memos of names hold (bytes).
	maxBoundsMemo = 16 << 20
)

// substituted names the variables a launch step's script holds in place
// of the expressions the reading does not substitute (see LaunchScript).
func substituted(name string) bool { return strings.HasPrefix(name, unknownVarPrefix) }

func namedBy(pats []string, p string) bool {
	return slices.ContainsFunc(pats, func(s string) bool { return sheval.Names(s, p) })
}

// mayReach reports, for each file of ps, whether some job of the row may
// run it.
func (m *Model) mayReach(r *Row, ps []string) []bool {
	out := make([]bool, len(ps))
	all := func() []bool {
		for i := range out {
			out[i] = true
		}
		return out
	}
	t := m.Templates[r.Kind]
	if m.bounds == nil || t == nil || t.Launch == nil {
		return all()
	}
	for gi, g := range m.groups(r) {
		step := m.stepScript(r.Kind, g, t)
		if step == nil {
			return all()
		}
		env, ok := m.rowEnv(r, gi, g, t, step)
		if !ok {
			return all() // the step's text is the row's: no reading covers it
		}
		if !m.groupMayName(r.Kind, g, t, step, ps, out) {
			continue // no row's job on g can name them
		}
		b := m.rowBound(r, gi, g, step, env)
		if b == nil || b.TooBig() {
			return all()
		}
		m.boundNames(b, env.lookup, false, stepKey{r.Kind, g.Name}, ps, out)
	}
	return out
}

// groupMayName reports whether some job of kind on g may run one of the
// files of ps not yet found (out), judged once per group and file by the
// group's reading: the launch read with every value a row's inputs decide
// unknown and the group's own values known, by an open expander (which
// keeps the patterns of no known text). A reading's
// patterns only widen when a known value becomes unknown, and the files it
// follows with them are a superset of those any row's job follows, so a
// file this reading cannot name, no row's reading can: the rows' own
// readings, made per row, are skipped for such groups. A launch the group
// reading cannot cover is judged row by row: one whose step exports
// settings the row decides (its jobs hold variables no group env names),
// or one that follows more files than a reading does.
func (m *Model) groupMayName(kind JobKind, g RunnerGroup, t *Template, step *stepScript, ps []string, out []bool) bool {
	k := stepKey{kind, g.Name}
	m.bounds.mu.Lock()
	gr, ok := m.bounds.groupReads[k]
	m.bounds.mu.Unlock()
	if !ok {
		gr = groupRead{}
		if len(step.exports) == 0 {
			env := t.openJobEnv(g.Name)
			for i := range step.exprs {
				env[unknownVarPrefix+strconv.Itoa(i+1)] = sheval.Opaque()
			}
			if b := m.launchBound(kind, g, step, env.Lookup, true); b != nil && !b.TooBig() {
				gr = groupRead{b: b, env: env.Lookup}
			}
		}
		m.bounds.mu.Lock()
		if m.bounds.groupReads == nil {
			m.bounds.groupReads = map[stepKey]groupRead{}
		}
		m.bounds.groupReads[k] = gr
		m.bounds.mu.Unlock()
	}
	if gr.b == nil {
		return true
	}
	for i, p := range ps {
		if out[i] {
			continue
		}
		fk := groupFile{k, p}
		m.bounds.mu.Lock()
		v, ok := m.bounds.groupNames[fk]
		m.bounds.mu.Unlock()
		if !ok {
			one := []bool{false}
			m.boundNames(gr.b, gr.env, true, k, []string{p}, one)
			v = one[0]
			m.bounds.mu.Lock()
			m.bounds.resetIfFull()
			if m.bounds.groupNames == nil {
				m.bounds.groupNames = map[groupFile]bool{}
			}
			m.bounds.groupNames[fk] = v
			m.bounds.bytes += len(p) + len(k.group) + 48
			m.bounds.mu.Unlock()
		}
		if v {
			return true
		}
	}
	return false
}

// rowBound is launchBound for a row's runner group, made once.
func (m *Model) rowBound(r *Row, gi int, g RunnerGroup, step *stepScript, env *jobVars) *sheval.Bound {
	k := rowGroup{r, gi}
	m.bounds.mu.Lock()
	b, ok := m.bounds.launches[k]
	m.bounds.mu.Unlock()
	if ok {
		return b
	}
	b = m.launchBound(r.Kind, g, step, env.lookup, false)
	m.bounds.mu.Lock()
	if m.bounds.launches == nil {
		m.bounds.launches = map[rowGroup]*sheval.Bound{}
	}
	m.bounds.launches[k] = b
	m.bounds.mu.Unlock()
	return b
}

// rowEnv is stepEnv, made once per row and group.
func (m *Model) rowEnv(r *Row, gi int, g RunnerGroup, t *Template, step *stepScript) (*jobVars, bool) {
	k := rowGroup{r, gi}
	m.bounds.mu.Lock()
	e, ok := m.bounds.envs[k]
	m.bounds.mu.Unlock()
	if ok {
		return e, e != nil
	}
	env, ok := stepEnv(t, r, g, step)
	if !ok {
		env = nil
	}
	m.bounds.mu.Lock()
	if m.bounds.envs == nil {
		m.bounds.envs = map[rowGroup]*jobVars{}
	}
	m.bounds.envs[k] = env
	m.bounds.mu.Unlock()
	return env, ok
}

type rowGroup struct {
	r *Row
	g int
}

// stepEnv is the env the row's launch step starts with, and the values
// of the expressions the step's script holds variables for; false when
// one of those values is shell text (quotes, expansions, operators) that
// substituted into the script would not read as one value.
func stepEnv(t *Template, r *Row, g RunnerGroup, step *stepScript) (*jobVars, bool) {
	in := t.withDefaults(r.Inputs)
	envCtx := t.jobText(in, g.Name, false)
	env := &jobVars{defs: t.lastDefs(), text: envCtx}
	if len(step.exprs) == 0 {
		return env, true
	}
	// The step's expressions read the job env's known values (what
	// exprContext makes of env; nothing below changes them first).
	ctx := stepContext(in, envCtx, g.Name)
	env.added = make(Env, len(step.exprs))
	for i, e := range step.exprs {
		name := unknownVarPrefix + strconv.Itoa(i+1)
		v, err := ghexpr.Eval(e, ctx)
		if err != nil || ghexpr.IsUnknown(v) {
			env.added[name] = sheval.Opaque()
			continue
		}
		s := ghexpr.String(v)
		if strings.ContainsAny(s, "$`'\"\\;&|<>(){}\n#~") {
			return nil, false
		}
		env.added[name] = sheval.Str(s)
		if !slices.Contains(step.exports, name) {
			continue
		}
		// export ${{ settings }}: substituted, the text is assignments
		// the launcher gets.
		for _, f := range strings.Fields(s) {
			k, val, ok := strings.Cut(f, "=")
			if _, set := env.lookup(k); !ok || !syntax.ValidName(k) || set {
				return nil, false
			}
			env.added[k] = sheval.Str(val)
		}
	}
	return env, true
}

// jobVars is a row's env as its launch step starts (stepEnv), for the
// launch readings: the job env's known values as text (the expressions'
// env context), from which each variable is made when a reading asks for
// it (a reading asks for a few of the fifty), and the variables the step
// adds. It is never written once made.
type jobVars struct {
	defs  map[string]EnvDef // the template's (lastDefs)
	text  map[string]any
	added Env
}

// lookup is the env's variable name, as the job env (Template.jobEnvOf)
// and the step's variables hold it.
func (e *jobVars) lookup(name string) (sheval.Value, bool) {
	if v, ok := e.added[name]; ok {
		return v, true
	}
	d, ok := e.defs[name]
	if !ok {
		return sheval.Value{}, false
	}
	return envValue(d, e.text), true
}

// each calls fn with the name of every variable of the env.
func (e *jobVars) each(fn func(name string)) {
	for name := range e.defs {
		if _, ok := e.added[name]; !ok {
			fn(name)
		}
	}
	for name := range e.added {
		fn(name)
	}
}

// launchBound is the reading of a launch on g with a job env: the step's
// script and the runner scripts and sourced files its run words may name,
// until none is new; nil when a script cannot be read (the job may run
// anything).
func (m *Model) launchBound(kind JobKind, g RunnerGroup, step *stepScript, env sheval.EnvLookup, open bool) *sheval.Bound {
	if step == nil {
		return nil
	}
	var files []string
	for {
		b, err := m.boundOf(kind, step, files)
		if err != nil || b.TooBig() {
			return nil
		}
		var add []string
		for _, p := range m.namedScripts(b, env, open, stepKey{kind, g.Name}) {
			if !slices.Contains(files, p) {
				add = append(add, p)
			}
		}
		if len(add) == 0 {
			return b
		}
		files = append(files, add...)
		slices.Sort(files)
		if len(files) > maxBoundFiles {
			return nil
		}
	}
}

// stepScript is the launch step's script of kind on g, every input
// unknown (nil when it does not parse).
func (m *Model) stepScript(kind JobKind, g RunnerGroup, t *Template) *stepScript {
	m.bounds.mu.Lock()
	defer m.bounds.mu.Unlock()
	k := stepKey{kind, g.Name}
	if s, ok := m.bounds.steps[k]; ok {
		return s
	}
	if m.bounds.steps == nil {
		m.bounds.steps = map[stepKey]*stepScript{}
	}
	text, exprs := t.openLaunchScript(g.Name)
	// The runner groups whose step reads alike (the text names no
	// group) share its script.
	tk := string(rune('0'+kind)) + "\x00" + t.Path + "\x00" + text + "\x00" + strings.Join(exprs, "\x00")
	s, ok := m.bounds.stepTexts[tk]
	if !ok {
		if f, err := sheval.ParseShell(t.Path, []byte(text)); err == nil {
			s = &stepScript{id: len(m.bounds.stepTexts) + 1, file: f, exprs: exprs, exports: sheval.DynamicExports(f)}
		}
		if m.bounds.stepTexts == nil {
			m.bounds.stepTexts = map[string]*stepScript{}
		}
		m.bounds.stepTexts[tk] = s
		m.bounds.bytes += 2 * len(tk)
	}
	m.bounds.steps[k] = s
	return s
}

// boundOf is the reading of the step and files.
func (m *Model) boundOf(kind JobKind, step *stepScript, files []string) (*sheval.Bound, error) {
	id := string(rune('0'+kind)) + "\x00" + strconv.Itoa(step.id) + "\x00" + strings.Join(files, "\x00")
	m.bounds.mu.Lock()
	b, ok := m.bounds.byFiles[id]
	m.bounds.mu.Unlock()
	if ok {
		return b, nil
	}
	parsed := []*syntax.File{step.file}
	for _, p := range files {
		f, err := m.files.Parse(p)
		if err != nil {
			if checks.IsNotExist(err) {
				continue
			}
			return nil, err
		}
		parsed = append(parsed, f)
	}
	b = sheval.NewBoundShared(parsed, substituted, m.bounds.wordMemo())
	m.bounds.mu.Lock()
	defer m.bounds.mu.Unlock()
	if m.bounds.byFiles == nil {
		m.bounds.byFiles = map[string]*sheval.Bound{}
	}
	if prev, ok := m.bounds.byFiles[id]; ok {
		return prev, nil
	}
	m.bounds.byFiles[id] = b
	return b, nil
}

// namedScripts are the runner scripts b's run words and the files its
// source commands may name with env, sorted. Only the groups of words
// whose skeleton may name one are expanded.
func (m *Model) namedScripts(b *sheval.Bound, env sheval.EnvLookup, open bool, k stepKey) []string {
	var out []string
	x := expander(b, env, open)
	for _, gi := range m.followGroups(b) {
		if !open && !m.openFollows(b, k, gi) {
			continue // no job of the runner group follows a script by it
		}
		key, pats := x.Group(gi)
		k := nextKey{b, key}
		m.bounds.mu.Lock()
		named, ok := m.bounds.next[k]
		m.bounds.mu.Unlock()
		if !ok {
			named = m.scriptsNamed(pats)
			m.bounds.mu.Lock()
			m.bounds.resetIfFull()
			m.bounds.next[k] = named
			m.bounds.bytes += len(key) + 32
			for _, p := range named {
				m.bounds.bytes += len(p) + 16
			}
			m.bounds.mu.Unlock()
		}
		for _, p := range named {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

// followGroups are b's groups of run and source words whose skeleton
// may name a script the evaluation follows (not srtctl's recipes: it runs
// them, never as a script of the job).
func (m *Model) followGroups(b *sheval.Bound) []int {
	m.bounds.mu.Lock()
	gs, ok := m.bounds.follow[b]
	m.bounds.mu.Unlock()
	if ok {
		return gs
	}
	gs = []int{}
	for gi := 0; gi < b.Groups(); gi++ {
		if !b.Copies(gi) && !b.Recipes(gi) && len(m.scriptsNamed(b.Skeleton(gi))) > 0 {
			gs = append(gs, gi)
		}
	}
	m.bounds.mu.Lock()
	if m.bounds.follow == nil {
		m.bounds.follow = map[*sheval.Bound][]int{}
	}
	m.bounds.follow[b] = gs
	m.bounds.mu.Unlock()
	return gs
}

// scriptsNamed are the runner scripts pats' runs and the shell files its
// sources may name, kept by the patterns: the readings of one step share
// most groups of words, and their patterns with them.
func (m *Model) scriptsNamed(pats sheval.Patterns) []string {
	if len(pats.Runs) == 0 && len(pats.Sources) == 0 {
		return nil
	}
	key := patternsKey(pats)
	m.bounds.mu.Lock()
	out, ok := m.bounds.scripts[key]
	m.bounds.mu.Unlock()
	if ok {
		return out
	}
	out = m.scriptsNamedBy(pats)
	m.bounds.mu.Lock()
	m.bounds.resetIfFull()
	m.bounds.scripts[key] = out
	m.bounds.bytes += len(key) + 48
	for _, p := range out {
		m.bounds.bytes += len(p) + 16
	}
	m.bounds.mu.Unlock()
	return out
}

// scriptsNamedBy is scriptsNamed, not kept.
func (m *Model) scriptsNamedBy(pats sheval.Patterns) []string {
	var out []string
	for _, p := range m.shellFiles() {
		if (isRunnerScript(p) || slices.Contains(m.Launchers, p)) && namedBy(pats.Runs, p) || namedBy(pats.Sources, p) {
			out = append(out, p)
		}
	}
	return out
}

// patternsKey tells apart any two patterns' runs and sources (each text
// led by its length).
func patternsKey(pats sheval.Patterns) string {
	b := make([]byte, 0, 64)
	for _, list := range [][]string{pats.Runs, pats.Sources} {
		b = strconv.AppendInt(b, int64(len(list)), 10)
		for _, s := range list {
			b = appendSigText(b, s)
		}
	}
	return string(b)
}

// patternsName reports whether pats may name the file at p as a run, a
// sourced file or a file of a copied directory.
func patternsName(pats sheval.Patterns, p string) bool {
	return namingOf(pats, p) != namesNot
}

// How a group's patterns may name a file.
const (
	namesNot uint8 = iota
	// namesDirect: as a run or a sourced file, or as a copied file (which
	// the copy may give another name).
	namesDirect
	// namesBeneath: only as a file of a copied directory, which a run
	// names by its path in the copy (see runsEndIn).
	namesBeneath
)

// namingOf is how pats may name the file at p.
func namingOf(pats sheval.Patterns, p string) uint8 {
	if namedBy(pats.Runs, p) || namedBy(pats.Sources, p) ||
		slices.ContainsFunc(pats.Prefixes, func(s string) bool { return sheval.CopiedAs(s, p) }) {
		return namesDirect
	}
	if slices.ContainsFunc(pats.Prefixes, func(s string) bool { return sheval.BeneathDir(s, p) }) {
		return namesBeneath
	}
	return namesNot
}

// boundNames sets out[i] when b's patterns with env may name the file
// ps[i]. Only the groups whose skeleton may name a file are expanded, each
// once. A row's reading that names a file only as one of a copied
// directory names it only when some run or source word of the reading
// may end in the file's name (runsEndIn): the copy alone runs nothing.
func (m *Model) boundNames(b *sheval.Bound, env sheval.EnvLookup, open bool, k stepKey, ps []string, out []bool) {
	var (
		x    *sheval.Expander
		done map[int]expanded
	)
	group := func(gi int) expanded {
		e, ok := done[gi]
		if !ok {
			if x == nil {
				x, done = expander(b, env, open), map[int]expanded{}
			}
			e.key, e.pats = x.Group(gi)
			done[gi] = e
		}
		return e
	}
	for i, p := range ps {
		if out[i] {
			continue
		}
		gs := m.skeletonNames(b, p)
		if !open {
			gs = m.openNames(b, k, p)
		}
		beneath := false
		for _, gi := range gs {
			e := group(gi)
			v := m.namedMemo(b, e.key, p, func() uint8 { return namingOf(e.pats, p) })
			if v == namesDirect || v == namesBeneath && open {
				out[i] = true
				break
			}
			beneath = beneath || v == namesBeneath
		}
		if !out[i] && beneath {
			out[i] = m.runsEndIn(b, path.Base(p), group)
		}
	}
}

// expanded is a group's patterns with one env, and their key.
type expanded struct {
	key  string
	pats sheval.Patterns
}

// namedMemo is the memo of how a reading's group of key names pth (made
// by f on a miss).
func (m *Model) namedMemo(b *sheval.Bound, key, pth string, f func() uint8) uint8 {
	k := namedKey{b, key, pth}
	m.bounds.mu.Lock()
	v, ok := m.bounds.named[k]
	m.bounds.mu.Unlock()
	if !ok {
		v = f()
		m.bounds.mu.Lock()
		m.bounds.resetIfFull()
		m.bounds.named[k] = v
		m.bounds.bytes += len(key) + len(pth) + 48
		m.bounds.mu.Unlock()
	}
	return v
}

// runsEndIn reports whether some run or source word of reading b, its
// groups expanded by group, may end in name (sheval.MayEndIn): a file of
// a copied directory is run by its path in the copy, whose last segment
// is the file's name, so a job none of whose such words may end in it
// does not run it. Only the groups whose skeleton may are expanded.
func (m *Model) runsEndIn(b *sheval.Bound, name string, group func(int) expanded) bool {
	endsIn := func(pats sheval.Patterns) bool {
		return slices.ContainsFunc(pats.Runs, func(s string) bool { return sheval.MayEndIn(s, name) }) ||
			slices.ContainsFunc(pats.Sources, func(s string) bool { return sheval.MayEndIn(s, name) })
	}
	for _, gi := range m.endGroups(b, name, endsIn) {
		e := group(gi)
		// A path never starts with a NUL: the memo's entries for name
		// stay apart from those of a file.
		if m.namedMemo(b, e.key, "\x00"+name, func() uint8 {
			if endsIn(e.pats) {
				return namesDirect
			}
			return namesNot
		}) == namesDirect {
			return true
		}
	}
	return false
}

// endGroups are b's groups of run and source words whose skeleton may end
// in name (endsIn).
func (m *Model) endGroups(b *sheval.Bound, name string, endsIn func(sheval.Patterns) bool) []int {
	k := boundFile{b, "\x00" + name}
	m.bounds.mu.Lock()
	gs, ok := m.bounds.nameGroups[k]
	m.bounds.mu.Unlock()
	if ok {
		return gs
	}
	gs = []int{}
	for gi := 0; gi < b.Groups(); gi++ {
		if !b.Copies(gi) && endsIn(b.Skeleton(gi)) {
			gs = append(gs, gi)
		}
	}
	m.bounds.mu.Lock()
	m.bounds.resetIfFull()
	m.bounds.nameGroups[k] = gs
	m.bounds.bytes += len(name) + 8*len(gs) + 48
	m.bounds.mu.Unlock()
	return gs
}

// expander expands b's words with one row's job env, or (open) with a
// runner group's env that stands for all its rows' (OpenExpander).
func expander(b *sheval.Bound, env sheval.EnvLookup, open bool) *sheval.Expander {
	if open {
		return b.OpenExpanderOf(env)
	}
	return b.ExpanderOf(env)
}

// skeletonNames are b's groups whose skeleton may name the file at p.
func (m *Model) skeletonNames(b *sheval.Bound, p string) []int {
	k := boundFile{b, p}
	m.bounds.mu.Lock()
	gs, ok := m.bounds.nameGroups[k]
	m.bounds.mu.Unlock()
	if ok {
		return gs
	}
	gs = []int{}
	for gi := 0; gi < b.Groups(); gi++ {
		if patternsName(b.Skeleton(gi), p) {
			gs = append(gs, gi)
		}
	}
	m.bounds.mu.Lock()
	m.bounds.resetIfFull()
	m.bounds.nameGroups[k] = gs
	m.bounds.bytes += len(p) + 8*len(gs) + 48
	m.bounds.mu.Unlock()
	return gs
}

// The rows' own readings expand only the groups of words that may do
// what the reading asks of them (name a script to follow, or the file
// looked for) for some job of the runner group: a group whose words,
// expanded with an env that stands for every row's job on the group
// (openEnv, by an open expander), do not, does not for any row either, and
// is not expanded row by row. A reading the runner groups of one step
// text share is filtered for each group with its own env.

// openEnv is the env that stands for every row's job of kind on g (nil
// when there is none): the job env with every input unknown (openJobEnv),
// the step's substituted expressions unknown, and the variables the
// step's `export ${{ settings }}` gives some row's job maybe unset (see
// sheval.MaybeUnset). A row whose step's text reads otherwise is not read
// (stepEnv).
func (m *Model) openEnv(k stepKey) Env {
	m.bounds.mu.Lock()
	if m.bounds.openEnvs == nil {
		m.bounds.openEnvs = map[stepKey]*openOnce{}
	}
	o := m.bounds.openEnvs[k]
	if o == nil {
		o = &openOnce{}
		m.bounds.openEnvs[k] = o
	}
	m.bounds.mu.Unlock()
	o.once.Do(func() {
		o.env = m.makeOpenEnv(k)
		m.bounds.mu.Lock()
		m.bounds.bytes += 64 * len(o.env)
		m.bounds.mu.Unlock()
	})
	return o.env
}

// openOnce is an open env, made once.
type openOnce struct {
	once sync.Once
	env  Env
}

func (m *Model) makeOpenEnv(k stepKey) Env {
	t := m.Templates[k.kind]
	rows, g := m.stepRows(k)
	if t == nil || len(rows) == 0 {
		return nil
	}
	step := m.stepScript(k.kind, g, t)
	if step == nil {
		return nil
	}
	env := t.openJobEnv(g.Name)
	for i := range step.exprs {
		env[unknownVarPrefix+strconv.Itoa(i+1)] = sheval.Opaque()
	}
	if len(step.exports) == 0 {
		return env
	}
	// The settings each row's step exports (the variables its env holds
	// past the template's): the rows' own envs, which their readings
	// take anyway. A row whose step reads otherwise is read by no reading.
	for _, rg := range rows {
		renv, ok := m.rowEnv(rg.r, rg.g, g, t, step)
		if !ok {
			continue
		}
		renv.each(func(name string) {
			if _, set := env[name]; !set {
				env[name] = sheval.MaybeUnset()
			}
		})
	}
	return env
}

// stepRows are the rows (with the index of the runner group among
// theirs) whose jobs run on k's runner group, and the group.
func (m *Model) stepRows(k stepKey) ([]rowGroup, RunnerGroup) {
	m.bounds.mu.Lock()
	defer m.bounds.mu.Unlock()
	if m.bounds.byStep == nil {
		m.bounds.byStep = map[stepKey][]rowGroup{}
		m.bounds.stepGroup = map[stepKey]RunnerGroup{}
		for _, r := range m.Rows {
			for gi, g := range m.groups(r) {
				sk := stepKey{r.Kind, g.Name}
				m.bounds.byStep[sk] = append(m.bounds.byStep[sk], rowGroup{r, gi})
				m.bounds.stepGroup[sk] = g
				m.bounds.bytes += 16
			}
		}
	}
	return m.bounds.byStep[k], m.bounds.stepGroup[k]
}

// openFollows reports whether group gi of reading b may name a script to
// follow for some job of kind on k's runner group.
func (m *Model) openFollows(b *sheval.Bound, k stepKey, gi int) bool {
	key := openGroup{b, k, gi}
	m.bounds.mu.Lock()
	v, ok := m.bounds.openFollow[key]
	noOpen := m.bounds.noOpen
	m.bounds.mu.Unlock()
	if ok {
		return v
	}
	if noOpen {
		return true
	}
	env := m.openEnv(k)
	if env == nil {
		return true
	}
	_, pats := b.OpenExpander(env).Group(gi)
	v = len(m.scriptsNamed(pats)) > 0
	m.bounds.mu.Lock()
	if m.bounds.openFollow == nil {
		m.bounds.openFollow = map[openGroup]bool{}
	}
	m.bounds.openFollow[key] = v
	m.bounds.bytes += 48
	m.bounds.mu.Unlock()
	return v
}

// openNames are the groups of skeletonNames(b, p) that may name p for
// some job of kind on k's runner group.
func (m *Model) openNames(b *sheval.Bound, k stepKey, p string) []int {
	key := openFile{b, k, p}
	m.bounds.mu.Lock()
	gs, ok := m.bounds.openName[key]
	noOpen := m.bounds.noOpen
	m.bounds.mu.Unlock()
	if ok {
		return gs
	}
	all := m.skeletonNames(b, p)
	if noOpen {
		return all
	}
	env := m.openEnv(k)
	if env == nil {
		return all
	}
	x := b.OpenExpander(env)
	gs = []int{}
	for _, gi := range all {
		if _, pats := x.Group(gi); patternsName(pats, p) {
			gs = append(gs, gi)
		}
	}
	m.bounds.mu.Lock()
	m.bounds.resetIfFull()
	m.bounds.openName[key] = gs
	m.bounds.bytes += len(p) + len(k.group) + 8*len(gs) + 64
	m.bounds.mu.Unlock()
	return gs
}

// resetIfFull empties the memos of names when they hold more than
// maxBoundsMemo bytes (and makes them on first use). The caller holds mu.
func (b *bounds) resetIfFull() {
	if b.next == nil || b.bytes > maxBoundsMemo {
		b.next, b.named, b.nameGroups, b.reached, b.bytes = map[nextKey][]string{}, map[namedKey]uint8{}, map[boundFile][]int{}, map[string][]*Row{}, 0
		b.openName = map[openFile][]int{}
		b.groupNames = map[groupFile]bool{}
		b.scripts = map[string][]string{}
	}
}

// shellFiles are the tree's .sh files.
func (m *Model) shellFiles() []string {
	m.bounds.mu.Lock()
	defer m.bounds.mu.Unlock()
	if m.bounds.read {
		return m.bounds.shell
	}
	m.bounds.read = true
	entries, err := checks.GlobFiles(m.ctx, m.tree, []string{"**/*.sh"})
	if err != nil {
		return nil
	}
	for _, e := range entries {
		m.bounds.shell = append(m.bounds.shell, e.Path)
	}
	return m.bounds.shell
}
