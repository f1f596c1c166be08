package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// Where the model's inputs live, besides what checks.Config locates.
var (
	// olderConfigGlobs are the master configs of the layout before mid-2026.
	olderConfigGlobs = []string{".github/configs/*-master.yaml"}
	runnersPaths     = []string{"configs/runners.yaml", ".github/configs/runners.yaml", checks.NewerLayoutRoot + "/configs/runners.yaml"}
	validationPaths  = []string{"utils/matrix_logic/validation.py", checks.NewerLayoutRoot + "/utils/matrix_logic/validation.py"}
	generatorPaths   = []string{"utils/matrix_logic/generate_sweep_configs.py", checks.NewerLayoutRoot + "/utils/matrix_logic/generate_sweep_configs.py"}
)

// Model is the pipeline of one tree: every master-config row, how its jobs
// are launched, and what they run. Rows are resolved lazily and once.
type Model struct {
	ctx   context.Context
	tree  checks.Tree
	cfg   *checks.Config
	files *sheval.TreeFiles
	eval  *Eval

	// Templates are the workflow templates by job kind; TemplateErr says
	// why one was replaced by the built-in table.
	Templates   map[JobKind]*Template
	TemplateErr map[JobKind]error
	Runners     *Runners
	RunnersErr  error
	// Sweep is the sweep workflow's template calls (nil when it is
	// absent or unreadable: inputs are then the matrix fields of the same
	// names).
	Sweep    *Sweep
	SweepErr error
	// Generator is what the model read of the sweep generator.
	Generator *Generator
	// Launchers are the launch_*.sh file names of the runners directory.
	Launchers []string
	// Configs are the master configs, in path order.
	Configs []ConfigFile
	Rows    []*Row

	cache *checks.ParseCache
	// launchFP identifies the configuration resolutions are taken under
	// (see launchFingerprint): models of the same launchFP take each
	// other's resolutions where what they read still holds and the row's
	// runner groups are the same (modelState.donors and live).
	launchFP string
	// launcherNames are the launchers' file names, sorted (see
	// Runners.Groups).
	launcherNames []string
	// st is what the model computes lazily; copies of the model for other
	// trees of the same content share it (see reuse).
	st *modelState
	// bounds are the launch readings Reachers narrows its rows by;
	// wholeTree is set when the review resolves every row anyway (a
	// changed launch), so Reachers indexes them all at once.
	bounds    *bounds
	wholeTree bool
	// bounded is set when Reachers may use the launch readings (see
	// Build).
	bounded bool
}

// modelState is a model's lazily computed part.
type modelState struct {
	mu    sync.Mutex
	res   map[*Row]*Resolution
	all   bool
	memos map[string]*sheval.Memo
	vocab map[string]bool
	// reach maps a tree path to the rows some launch path of which runs
	// it (built on the first Reachers, after every row is resolved).
	reach map[string][]*Row
	// rows are the model's rows; bySig maps a row's launch signature to
	// the row (see rowSig), for models that take this one as donor.
	rows  []*Row
	bySig map[string]*Row
	// donors are the kept models' states this one takes resolutions
	// from (see keptDonors), let go once every row is resolved; live is
	// the model of the same review it takes from instead (SetDonor). A
	// model that is no longer kept leaves both (takeOver).
	donors []*modelState
	live   donor
	// kept is the cache's list of kept models when this state is one of
	// them: what it grows by is charged there (see memsize.go).
	kept  *keptModels
	cache *checks.ParseCache
	// bytes is what the state holds (see memsize.go), counted as it
	// grows; unbilled is what the cache has not been told of yet.
	bytes, unbilled int64
}

// ConfigFile is a parsed master config.
type ConfigFile struct {
	Path string
	File *masterconfig.File
}

// Row is a search-space row and the job the sweep makes of it.
type Row struct {
	File     string
	Key      *masterconfig.Key
	Scenario *masterconfig.Scenario
	Row      *masterconfig.Row
	Kind     JobKind
	Agentic  bool
	// Point is the matrix entry at the row's first concurrency; Inputs
	// the workflow inputs of that job; Concs all the row's concurrencies.
	Point  Point
	Inputs map[string]any
	Concs  []int
	// Job is the sweep job that runs the row (nil when unknown).
	Job *SweepJob
	// sig is the row's launch signature (see rowSig), computed once.
	sig string
}

// Label is the runner label the row's key names.
func (r *Row) Label() string { return r.Key.Runner.Value }

// Loc is the row's line.
func (r *Row) Loc() Loc { return Loc{File: r.File, Line: r.Row.Line} }

// String names the row for people.
func (r *Row) String() string {
	return fmt.Sprintf("%s (%s row at %s:%d)", r.Key.Name, r.Scenario.Kind, r.File, r.Row.Line)
}

// Resolution is what a row's jobs run, one Launch per group of runner
// machines sharing a launcher.
type Resolution struct {
	Row    *Row
	Groups []*Launch
	// owner is the model state that pays for Groups in the parse cache:
	// its own, or a donor's whose launches it took (see keep).
	owner *modelState
}

// Launch is a row's job on one group of runner machines.
type Launch struct {
	Group RunnerGroup
	// Template is the template the job's env came from.
	Template *Template
	// Env is the job's env as the launch step starts.
	Env Env
	// Step is the launch step's evaluation.
	Step *Result
	// Launcher is the launcher's tree path ("" when the step's launcher
	// cannot be told); LauncherEnv what it gets; Result its evaluation.
	Launcher    string
	LauncherEnv Env
	Result      *Result
	Err         error
}

// Build reads a tree's pipeline inputs: templates, runners, master
// configs. Rows are resolved on demand (Resolve, ResolveAll).
func Build(ctx context.Context, tree checks.Tree, cfg *checks.Config, cache *checks.ParseCache) (*Model, error) {
	fp := fingerprint(ctx, tree, cfg)
	if m := reuse(ctx, tree, cache, fp); m != nil {
		return m, nil
	}
	m := &Model{ctx: ctx, tree: tree, cfg: cfg, cache: cache, bounds: &bounds{},
		st:        &modelState{res: map[*Row]*Resolution{}, memos: map[string]*sheval.Memo{}},
		Templates: map[JobKind]*Template{}, TemplateErr: map[JobKind]error{}}
	m.files = sheval.NewTreeFiles(ctx, tree, cache)
	m.eval = &Eval{Files: m.files, Unknown: unknownName(cfg)}
	for _, kind := range []JobKind{SingleNode, MultiNode} {
		t, err := m.readTemplate(kind, cache)
		if err != nil {
			m.TemplateErr[kind] = err
			t = builtinTemplates[kind]
		}
		m.Templates[kind] = withConfig(t, kind, cfg)
	}
	if p, ok := firstExisting(ctx, tree, runnersPaths); ok {
		m.Runners, m.RunnersErr = checks.Parsed(ctx, cache, tree, "pipeline/runners/v1", p, func(b []byte) (*Runners, error) { return ParseRunners(p, b) })
		if m.RunnersErr != nil && !isParseProblem(m.RunnersErr) {
			return nil, m.RunnersErr
		}
	}
	m.Sweep, m.SweepErr = checks.Parsed(ctx, cache, tree, "pipeline/sweep/v1", SweepPath, func(b []byte) (*Sweep, error) { return ParseSweep(SweepPath, b) })
	if m.SweepErr != nil {
		m.Sweep = nil
	}
	gen := defaultGenerator
	m.Generator = &gen
	if p, ok := firstExisting(ctx, tree, generatorPaths); ok {
		g, err := checks.Parsed(ctx, cache, tree, "pipeline/generator/v1", p, func(b []byte) (*Generator, error) { return ParseGenerator(p, b), nil })
		if err == nil {
			m.Generator = g
		}
	}
	entries, err := checks.GlobFiles(ctx, tree, runnerGlobs(cfg))
	if err != nil {
		return nil, err
	}
	m.launchFP = launchFingerprint(ctx, tree, cfg, entries)
	for _, e := range entries {
		m.Launchers = append(m.Launchers, e.Path)
	}
	m.launcherNames = launcherNames(m.Launchers)
	if err := m.readConfigs(cache); err != nil {
		return nil, err
	}
	m.st.rows = m.Rows
	m.st.donors = keptDonors(cache, m.launchFP)
	// In a cache that kept no model yet (a CLI or Action review, one per
	// process), reverse lookups resolve only the rows the launch readings
	// admit; where models are kept (the App, a history replay), resolving
	// every row takes from them and leaves the index the next review
	// takes. The other tree of the same review follows (see Analysis).
	m.bounded = keptCount(cache) == 0
	// The kept copy leaves the launch readings behind: they serve this
	// review's reverse lookups, and a rebound copy makes its own.
	kept := *m
	kept.bounds = nil
	keep(cache, fp, &kept)
	return m, nil
}

func isParseProblem(err error) bool { return err != nil && !checks.IsNotExist(err) }

func runnerGlobs(cfg *checks.Config) []string {
	if cfg != nil && len(cfg.Paths.Runners) > 0 {
		return cfg.Paths.Runners
	}
	return []string{"runners/launch_*.sh"}
}

// ConfigGlobs are the master-config patterns of cfg and of the older
// layout.
func ConfigGlobs(cfg *checks.Config) []string {
	var out []string
	if cfg != nil {
		out = append(out, cfg.Paths.MasterConfigs...)
	}
	if len(out) == 0 {
		out = []string{"configs/*-master.yaml", checks.NewerLayoutRoot + "/configs/*-master.yaml"}
	}
	for _, g := range olderConfigGlobs {
		if !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

func firstExisting(ctx context.Context, tree checks.Tree, paths []string) (string, bool) {
	for _, p := range paths {
		if ok, err := checks.Exists(ctx, tree, p); err == nil && ok {
			return p, true
		}
	}
	return "", false
}

func (m *Model) readTemplate(kind JobKind, cache *checks.ParseCache) (*Template, error) {
	p := TemplatePaths[kind]
	t, err := checks.Parsed(m.ctx, cache, m.tree, "pipeline/template/v1", p, func(b []byte) (*Template, error) { return ParseTemplate(p, b) })
	if err != nil {
		return nil, err
	}
	return t, nil
}

// configKind names parsed master configs in the parse cache (the same
// parser and kind as checks/masterconfig, so both share the entries).
const configKind = "masterconfig/v5"

func (m *Model) readConfigs(cache *checks.ParseCache) error {
	entries, err := checks.GlobFiles(m.ctx, m.tree, ConfigGlobs(m.cfg))
	if err != nil {
		return err
	}
	for _, e := range entries {
		f, err := checks.Parsed(m.ctx, cache, m.tree, configKind, e.Path, masterconfig.ParseMasterConfig)
		if err != nil {
			return fmt.Errorf("read %s: %w", e.Path, err)
		}
		m.Configs = append(m.Configs, ConfigFile{Path: e.Path, File: f})
		if f.Broken() {
			continue
		}
		for _, k := range f.Keys {
			m.addKey(e.Path, k)
		}
	}
	return nil
}

func (m *Model) addKey(file string, k *masterconfig.Key) {
	var hw map[string]Hardware
	if m.Runners != nil {
		hw = m.Runners.Hardware
	}
	kind := SingleNode
	if truthyValue(k.Raw["multinode"]) {
		kind = MultiNode
	}
	for _, s := range k.Scenarios {
		for _, r := range s.Rows {
			pt, concs := rowPoint(k, s, r, hw, m.Generator)
			row := &Row{File: file, Key: k, Scenario: s, Row: r, Kind: kind, Agentic: s.Kind == AgenticCoding, Point: pt, Concs: concs}
			row.Job = m.Sweep.Job(kind, row.Agentic, seqLenName(s.ISL, s.OSL))
			if row.Job != nil {
				row.Inputs = row.Job.Inputs(pt)
			} else {
				row.Inputs = pointInputs(pt, kind)
			}
			row.sig = rowSig(row)
			m.Rows = append(m.Rows, row)
		}
	}
}

// Key returns the rows of a config key, in file order.
func (m *Model) Key(name string) []*Row {
	var out []*Row
	for _, r := range m.Rows {
		if r.Key.Name == name {
			out = append(out, r)
		}
	}
	return out
}

// RowAt returns the row of a master config at a line, or nil.
func (m *Model) RowAt(file string, line int) *Row {
	for _, r := range m.Rows {
		if r.File == file && line >= r.Row.Line && line <= r.Row.EndLine {
			return r
		}
	}
	return nil
}

// Resolve follows a row through its runners' launch steps and launchers.
func (m *Model) Resolve(r *Row) *Resolution {
	if res := m.resolved(r); res != nil {
		return res
	}
	return m.store(r, m.resolve(r))
}

// resolved is the row's resolution so far (nil when it has none).
func (m *Model) resolved(r *Row) *Resolution {
	m.st.mu.Lock()
	defer m.st.mu.Unlock()
	return m.st.res[r]
}

// store keeps a row's resolution, unless another review resolved it
// meanwhile, and returns the one kept.
func (m *Model) store(r *Row, res *Resolution) *Resolution {
	m.st.mu.Lock()
	grown := false
	if prev, ok := m.st.res[r]; ok {
		res = prev // another review resolved it meanwhile
	} else {
		m.st.res[r] = res
		n := int64(24) // its slot in res
		if res.owner == nil || res.owner == m.st {
			res.owner = m.st
			n += resolutionBytes(res)
		} else {
			n += resolutionHeaderBytes(res) // the launches are the donor's
		}
		m.st.bytes += n
		m.st.unbilled += n
		grown = m.st.unbilled >= rechargeStep
	}
	m.st.mu.Unlock()
	if grown {
		m.st.recharge()
	}
	return res
}

// rechargeStep is how much a kept model may grow before it tells the
// parse cache again.
const rechargeStep = 256 << 10

// recharge tells the parse cache what the kept models now hold.
func (st *modelState) recharge() {
	st.mu.Lock()
	k, cache := st.kept, st.cache
	st.unbilled = 0
	st.mu.Unlock()
	if k != nil {
		k.recharge(cache)
	}
}

// ResolveAll resolves every row (for reverse lookups).
func (m *Model) ResolveAll() {
	m.st.mu.Lock()
	done := m.st.all
	m.st.mu.Unlock()
	if done {
		return
	}
	m.ResolveRows(m.Rows)
	if m.ctx.Err() != nil {
		return
	}
	m.st.mu.Lock()
	m.st.all = true
	m.st.donors, m.st.live = nil, donor{} // nothing left to take
	m.st.mu.Unlock()
	m.st.recharge()
}

func (m *Model) resolve(r *Row) *Resolution {
	if res := m.fromDonor(r); res != nil {
		return res
	}
	res := &Resolution{Row: r}
	t := m.Templates[r.Kind]
	for _, g := range m.groups(r) {
		res.Groups = append(res.Groups, m.launch(r, t, g))
	}
	return res
}

// groups are the runner groups a row's jobs run on in this tree.
func (m *Model) groups(r *Row) []RunnerGroup {
	return m.Runners.Groups(r.Label(), m.launcherNames)
}

func (m *Model) launch(r *Row, t *Template, g RunnerGroup) *Launch {
	l := m.launchPrepared(r, t, g)
	if l.Launcher == "" || l.Err != nil {
		return l
	}
	l.Result, l.Err = m.evalLauncher(l.Launcher, l.LauncherEnv)
	l.Result = m.withDelegates(l.Result, 0)
	return l
}

// launchPrepared is a launch up to its launcher: the job env and the
// launch step's evaluation, which names the launcher and its env.
func (m *Model) launchPrepared(r *Row, t *Template, g RunnerGroup) *Launch {
	return m.launchOf(t, prepareLaunch(r, t, g), nil)
}

// launchInput is what a row's launch step on a runner group is evaluated
// from: the job env and the step's text.
type launchInput struct {
	g    RunnerGroup
	env  Env
	text string
}

// prepareLaunch is the job env of a row on g (JobEnv) and the launch
// step's text over it (LaunchScript): the step's expressions read the
// env's known values, which jobEnvCtx gives as exprContext would.
func prepareLaunch(r *Row, t *Template, g RunnerGroup) launchInput {
	in := t.withDefaults(r.Inputs)
	env, envCtx := t.jobEnvCtx(in, g.Name)
	text, _ := t.launchScriptCtx(stepContext(in, envCtx, g.Name))
	return launchInput{g: g, env: env, text: text}
}

// launchOf is launchPrepared of its input, with the step's parse and
// evaluation made ahead (see stepsAhead) where a is not nil.
func (m *Model) launchOf(t *Template, in launchInput, a *stepAhead) *Launch {
	l := &Launch{Group: in.g, Template: t, Env: in.env}
	step, err := m.launchStep(t.Path, in.text, in.env, a)
	if err != nil {
		l.Err = fmt.Errorf("launch step of %s: %w", t.Path, err)
		return l
	}
	l.Step = step
	for _, p := range l.Step.Paths {
		for _, run := range p.Runs {
			if run.Path == "" || !strings.HasPrefix(path.Base(run.Path), "launch_") {
				continue
			}
			if l.Launcher == "" {
				l.Launcher, l.LauncherEnv = run.Path, run.Env
			}
		}
	}
	return l
}

// maxDelegation bounds launchers handing over to launchers, and
// maxDelegatedPaths the paths that makes.
const (
	maxDelegation     = 3
	maxDelegatedPaths = 256
)

// withDelegates follows a launcher that hands the job to another one
// (`exec bash "$(dirname "$0")/launch_b200-dgxc.sh"`): each path that runs
// a launcher or helper of runners/ continues with every path of that
// script, evaluated with the env the path gives it.
func (m *Model) withDelegates(r *Result, depth int) *Result {
	if r == nil || depth >= maxDelegation {
		return r
	}
	var out []Path
	expanded := false
	incomplete := r.Incomplete
	queries, sources := r.Queries, r.Sources
	for _, p := range r.Paths {
		idx := slices.IndexFunc(p.Runs, func(run Run) bool {
			return run.Kind == RunScript && run.Path != "" && !run.External && !IsBenchmark(run.Path) && isRunnerScript(run.Path)
		})
		if idx < 0 {
			out = append(out, p)
			continue
		}
		run := p.Runs[idx]
		d, err := m.evalLauncher(run.Path, run.Env)
		if !expanded {
			queries, sources = maps.Clone(queries), maps.Clone(sources)
			expanded = true
		}
		if err != nil || d == nil {
			// The path stops at a script that could not be evaluated; the
			// result still depends on it (a fixed script continues it).
			sources[run.Path] = m.files.Blob(run.Path)
			out = append(out, p)
			continue
		}
		d = m.withDelegates(d, depth+1)
		maps.Copy(queries, d.Queries)
		maps.Copy(sources, d.Sources)
		incomplete = incomplete || d.Incomplete
		for _, dp := range d.Paths {
			if len(out) >= maxDelegatedPaths {
				incomplete = true
				break
			}
			q := p
			q.Runs = append(append(slices.Clone(p.Runs[:idx]), dp.Runs...), p.Runs[idx+1:]...)
			q.Reqs = append(slices.Clone(p.Reqs), dp.Reqs...)
			q.Decisions = append(slices.Clone(p.Decisions), dp.Decisions...)
			q.Certain = p.Certain && dp.Certain
			if q.Exit == nil && idx == len(p.Runs)-1 {
				q.Exit = dp.Exit // the hand-over was the path's last act
			}
			out = append(out, q)
		}
	}
	if !expanded {
		return r
	}
	c := *r
	c.Paths, c.Incomplete, c.Queries, c.Sources = out, incomplete, queries, sources
	return &c
}

// isRunnerScript reports whether p is a launcher or helper of runners/.
func isRunnerScript(p string) bool {
	return strings.HasSuffix(p, ".sh") && (strings.HasPrefix(p, "runners/") || strings.HasPrefix(p, checks.NewerLayoutRoot+"/runners/"))
}

// evalLauncher evaluates a launcher with env, once per distinct set of
// deciding inputs.
func (m *Model) evalLauncher(p string, env Env) (*Result, error) {
	return m.evalWith(p, env, nil)
}

// evalWith is evalLauncher given, when it is not nil, the evaluation it
// would make on a miss, made beforehand (see evalMany).
func (m *Model) evalWith(p string, env Env, ahead *evaluated) (*Result, error) {
	memo := m.memoOf(p)
	if r, ok := memo.Get(env, m.files); ok {
		return r, nil
	}
	var r *Result
	var err error
	if ahead != nil {
		r, err = ahead.res, ahead.err
	} else {
		r, err = m.evaluate(p, env)
	}
	if err != nil {
		return nil, err
	}
	memo.Put(r)
	return r, nil
}

// evaluate evaluates the script at p with env, without the memo.
func (m *Model) evaluate(p string, env Env) (*Result, error) {
	r, err := m.eval.Run(p, env)
	if err != nil {
		return nil, err
	}
	r.EnvSum = sheval.EnvSum(env)
	return r, nil
}

// launchStepKind names parsed launch steps in the parse cache.
const launchStepKind = "pipeline/launchstep/v1"

// launchStep evaluates a template's launch step as the row's job runs it:
// the step's text (expressions substituted) is parsed once per text and
// evaluated once per distinct set of deciding inputs, like a launcher. The
// parse and evaluation made ahead (a, when not nil) stand in for those
// the lookups would make.
func (m *Model) launchStep(tmpl, text string, env Env, a *stepAhead) (*Result, error) {
	id := ""
	if a != nil {
		id = a.id
	} else {
		id = stepID(text)
	}
	var f *syntax.File
	if v, ok := m.cache.Get(launchStepKind, id); ok {
		f, _ = v.(*syntax.File)
	}
	if f == nil {
		var err error
		if a != nil && a.parsed {
			f, err = a.file, a.perr
		} else {
			f, err = sheval.ParseShell(tmpl, []byte(text))
		}
		if err != nil {
			return nil, err
		}
		m.cache.Put(launchStepKind, id, f)
	}
	memo := m.memoByID("step\x00" + id)
	if r, ok := memo.Get(env, m.files); ok {
		return r, nil
	}
	var r *Result
	if a != nil && a.res != nil {
		r = a.res
	} else {
		r = m.eval.RunFile(tmpl, f, env)
		r.EnvSum = sheval.EnvSum(env)
	}
	memo.Put(r)
	return r, nil
}

// stepID names a launch step's text in the parse cache and the memos.
func stepID(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// memoOf returns the evaluations of the script at p: the parse cache's
// for its content, or the model's own when there is no cache.
func (m *Model) memoOf(p string) *sheval.Memo {
	return m.memoByID(m.files.Blob(p) + "\x00" + p)
}

// peekMemo is memoByID's memo when there is one, without a use of the
// parse cache (see stepsAhead); nil when there is none yet.
func (m *Model) peekMemo(id string) *sheval.Memo {
	m.st.mu.Lock()
	mm, ok := m.st.memos[id]
	m.st.mu.Unlock()
	if ok {
		return mm
	}
	if v, ok := m.cache.Peek(memoKind, id); ok {
		mm, _ = v.(*sheval.Memo)
	}
	return mm
}

func (m *Model) memoByID(id string) *sheval.Memo {
	m.st.mu.Lock()
	defer m.st.mu.Unlock()
	if mm, ok := m.st.memos[id]; ok {
		return mm
	}
	var mm *sheval.Memo
	if v, ok := m.cache.Get(memoKind, id); ok {
		mm, _ = v.(*sheval.Memo)
	}
	if mm == nil {
		cache := m.cache
		mm = sheval.NewMemo(func(n int64) { cache.PutSized(memoKind, id, mm, n) })
		m.cache.Put(memoKind, id, mm)
	}
	m.st.memos[id] = mm
	return mm
}

// Target is a benchmark script or recipe a launch runs on some path.
type Target struct {
	Run    Run
	Exists bool
}

// Outcome summarizes a launch: the benchmark files its paths run, and
// whether every path fails before running one.
type Outcome struct {
	Targets []Target
	// Unknown is set when some path runs something the bot cannot name,
	// or the evaluation is incomplete: the launch may run more.
	Unknown bool
	// Broken is set when every path ends in a failure or runs only
	// benchmark files that do not exist.
	Broken bool
	// Exits are the failing exits of paths that ran nothing.
	Exits []Exit
}

// IsBenchmark reports whether a tree path is a benchmark script or
// recipe (what a launcher is for).
func IsBenchmark(p string) bool {
	return strings.HasPrefix(p, "benchmarks/") || strings.HasPrefix(p, checks.NewerLayoutRoot+"/benchmarks/")
}

// Outcome evaluates what the launch runs against the tree.
func (m *Model) Outcome(l *Launch) Outcome {
	var o Outcome
	if l.Result == nil {
		o.Unknown = true
		return o
	}
	o.Unknown = l.Result.Incomplete
	broken := true
	seen := map[string]bool{}
	for _, p := range l.Result.Paths {
		ranSome := false
		for _, run := range p.Runs {
			switch {
			case run.Path != "" && IsBenchmark(run.Path):
				st, _ := m.files.Stat(run.Path)
				ok := st.Exists && !st.Dir
				if ok {
					ranSome = true
				} else if run.Copied {
					// The checkout the tree directory was copied into
					// may have it.
					o.Unknown = true
					ranSome = true
					continue
				}
				if !seen[run.Path] {
					seen[run.Path] = true
					o.Targets = append(o.Targets, Target{Run: run, Exists: ok})
				}
			case run.Path != "":
				// A script of the tree that is not a benchmark and was not
				// followed (withDelegates follows runners/): it may run
				// one, so the launch is not proven broken.
				o.Unknown = true
				ranSome = true
			default:
				if !run.Known || run.External {
					o.Unknown = true
					ranSome = true
				}
			}
		}
		if ranSome {
			broken = false
		} else if p.Exit != nil {
			o.Exits = append(o.Exits, *p.Exit)
		} else if len(p.Runs) == 0 {
			// A path that ends without a run or a failure (exit 0, an
			// eval-only branch): not a failure the bot can prove.
			broken = false
		}
	}
	o.Broken = broken && !o.Unknown && len(l.Result.Paths) > 0
	sort.Slice(o.Targets, func(i, j int) bool { return o.Targets[i].Run.Path < o.Targets[j].Run.Path })
	return o
}

// Reachers are the rows some path of whose launches runs the tree file p.
// Unless every row is resolved already, only the rows the launch readings
// say may run p are resolved (see reach.go); "" resolves every row and
// indexes what each runs.
func (m *Model) Reachers(p string) []*Row {
	if p != "" && m.readingsServe() {
		return m.ReachersOf([]string{p})[p]
	}
	m.ResolveAll()
	m.st.mu.Lock()
	idx := m.st.reach
	m.st.mu.Unlock()
	if idx == nil {
		idx = map[string][]*Row{}
		for _, r := range m.Rows {
			seen := map[string]bool{}
			for _, l := range m.Resolve(r).Groups {
				if l.Result == nil {
					continue
				}
				for _, path := range l.Result.Paths {
					for _, run := range path.Runs {
						if run.Path != "" && !seen[run.Path] {
							seen[run.Path] = true
							idx[run.Path] = append(idx[run.Path], r)
						}
					}
				}
			}
		}
		m.st.mu.Lock()
		if m.ctx.Err() == nil && m.st.all && m.st.reach == nil {
			m.st.reach = idx
			m.st.bytes += reachBytes(idx)
		}
		m.st.mu.Unlock()
	}
	return slices.Clone(idx[p])
}

// readingsServe reports whether reverse lookups go by the launch
// readings: no index of every row is made or wanted (see Build).
func (m *Model) readingsServe() bool {
	m.st.mu.Lock()
	indexed := m.st.reach != nil || m.st.all
	m.st.mu.Unlock()
	return !indexed && !m.wholeTree && m.bounded && m.bounds != nil
}

// ReachersOf is Reachers for each file of ps, the rows of all of them
// found in one pass over the rows.
func (m *Model) ReachersOf(ps []string) map[string][]*Row {
	out := make(map[string][]*Row, len(ps))
	if !m.readingsServe() {
		for _, p := range ps {
			if _, ok := out[p]; !ok && p != "" {
				out[p] = m.Reachers(p)
			}
		}
		return out
	}
	var left []string
	m.bounds.mu.Lock()
	for _, p := range ps {
		if rows, ok := m.bounds.reached[p]; ok {
			out[p] = slices.Clone(rows)
		} else if p != "" && !slices.Contains(left, p) {
			left = append(left, p)
		}
	}
	m.bounds.mu.Unlock()
	if len(left) == 0 {
		return out
	}
	// The rows that may run each file, then those resolved at once.
	maybe := make([][]*Row, len(left))
	var resolve []*Row
	mays := m.mayReachRows(left)
	for ri, r := range m.Rows {
		may := mays[ri]
		added := false
		for i, ok := range may {
			if ok {
				maybe[i] = append(maybe[i], r)
				if !added {
					resolve, added = append(resolve, r), true
				}
			}
		}
	}
	m.ResolveRows(resolve)
	for i, p := range left {
		var rows []*Row
		for _, r := range maybe[i] {
			if slices.ContainsFunc(m.Resolve(r).Groups, func(l *Launch) bool { return l.runs(p) }) {
				rows = append(rows, r)
			}
		}
		out[p] = rows
	}
	if m.ctx.Err() != nil {
		return out // a cancelled resolution is not kept
	}
	m.bounds.mu.Lock()
	m.bounds.resetIfFull()
	for _, p := range left {
		m.bounds.reached[p] = slices.Clone(out[p])
		m.bounds.bytes += len(p) + 8*len(out[p]) + 48
	}
	m.bounds.mu.Unlock()
	return out
}

func (l *Launch) runs(p string) bool {
	if l.Result == nil {
		return false
	}
	for _, path := range l.Result.Paths {
		for _, run := range path.Runs {
			if run.Path == p {
				return true
			}
		}
	}
	return false
}

// EvalScript evaluates a benchmark script a run starts, with the env the
// run gives it (memoised like launchers).
func (m *Model) EvalScript(run Run) (*Result, error) {
	if run.Path == "" || run.Kind != RunScript {
		return nil, nil
	}
	return m.evalLauncher(run.Path, run.Env)
}

// Runs returns the runs of benchmark file p in a row's launches.
func (m *Model) Runs(r *Row, p string) []Run {
	var out []Run
	m.eachRun(r, p, func(_ *Launch, run Run) { out = append(out, run) })
	return out
}

// eachRun calls fn for every run of the file at p on the row's paths,
// with the launch it is on.
func (m *Model) eachRun(r *Row, p string, fn func(*Launch, Run)) {
	for _, l := range m.Resolve(r).Groups {
		if l.Result == nil {
			continue
		}
		for _, path := range l.Result.Paths {
			for _, run := range path.Runs {
				if run.Path == p {
					fn(l, run)
				}
			}
		}
	}
}

// memoKind names launcher evaluations in the parse cache.
const memoKind = "pipeline/eval/v2"
