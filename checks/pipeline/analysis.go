package pipeline

import (
	"context"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/masterconfig"
)

// Analysis is the pipeline view of one change: the models of the base and
// the head (built on first use), and what the PR changed that a benchmark
// runs through. The PL rules share it through the change's memo.
type Analysis struct {
	ctx context.Context
	ch  *checks.Change

	// Relevant is set when the PR touches anything of the pipeline; the
	// models are never built otherwise.
	Relevant bool
	// Configs, Launch, Benchmarks and Schema are the PR's files of each
	// kind: master configs; launchers, their helpers, the workflow
	// templates, the sweep workflow and runners.yaml; benchmark scripts and
	// recipes; the validation module.
	Configs, Launch, Benchmarks, Schema []*checks.FileChange

	baseOnce, headOnce sync.Once
	base, head         *Model
	baseErr, headErr   error
	pairMu             sync.Mutex
	paired             bool

	rowsOnce  sync.Once
	changed   map[*Row]bool
	changedKs []masterconfig.ChangedKey
	rowsErr   error

	launchOnce        sync.Once
	launchers, labels []string
	all               bool

	unreachedOnce  sync.Once
	unreachedFiles []*checks.FileChange
	unreachedErr   error

	subjectsOnce sync.Once
	subjects     []*Row
	subjectsErr  error
}

// analysisKey shares the analysis within a change.
var analysisKey = checks.NewMemoKey[*Analysis]("pipeline/analysis")

// Load returns the change's analysis, computed once per change.
func Load(ctx context.Context, ch *checks.Change) (*Analysis, error) {
	v, err := checks.Shared(ch, analysisKey, "", func() (*Analysis, error) { return newAnalysis(ctx, ch), nil })
	if err != nil {
		return nil, err
	}
	return v, nil
}

func newAnalysis(ctx context.Context, ch *checks.Change) *Analysis {
	a := &Analysis{ctx: ctx, ch: ch}
	cfg := ch.Config
	for _, fc := range ch.Files {
		if !fc.Changed() && fc.OldPath == "" {
			continue
		}
		paths := []string{fc.Path}
		if fc.OldPath != "" {
			paths = append(paths, fc.OldPath)
		}
		for _, p := range paths {
			switch {
			case isConfig(cfg, p):
				a.Configs = appendOnce(a.Configs, fc)
			case isLaunch(cfg, p):
				a.Launch = appendOnce(a.Launch, fc)
			case IsBenchmark(p):
				a.Benchmarks = appendOnce(a.Benchmarks, fc)
			case slices.Contains(validationPaths, p):
				a.Schema = appendOnce(a.Schema, fc)
			}
		}
	}
	a.Relevant = len(a.Configs)+len(a.Launch)+len(a.Benchmarks)+len(a.Schema) > 0
	return a
}

func appendOnce(list []*checks.FileChange, fc *checks.FileChange) []*checks.FileChange {
	if slices.Contains(list, fc) {
		return list
	}
	return append(list, fc)
}

func isConfig(cfg *checks.Config, p string) bool {
	return checks.MatchAny(ConfigGlobs(cfg), p)
}

// isLaunch reports whether a file is part of how a job is launched.
func isLaunch(cfg *checks.Config, p string) bool {
	for _, t := range TemplatePaths {
		if p == t {
			return true
		}
	}
	if p == SweepPath || slices.Contains(runnersPaths, p) {
		return true
	}
	return strings.HasPrefix(p, "runners/") && strings.HasSuffix(p, ".sh") || cfg != nil && cfg.IsRunner(p)
}

// Head returns the model of the head tree.
func (a *Analysis) Head() (*Model, error) {
	a.headOnce.Do(func() {
		a.head, a.headErr = Build(a.ctx, a.ch.Head, a.ch.Config, a.ch.Cache)
		if a.headErr == nil && a.launchesAll() {
			// A changed template, sweep, runner list or helper reaches
			// every row, which Subjects resolves: the reverse lookups take
			// that index too.
			a.head.wholeTree = true
		}
		// The base is built when something asks for it (a rule comparing
		// with it, a file the PR deletes); a changed launch asks for it
		// now, to resolve its rows whole for the head to take. Either way
		// the head takes its resolutions from then on (pair).
		if a.headErr == nil && a.launchesAll() {
			_, _ = a.Base()
		}
		a.pair()
	})
	return a.head, a.headErr
}

// pair lets the head take the base's resolutions, once both are built.
func (a *Analysis) pair() {
	a.pairMu.Lock()
	defer a.pairMu.Unlock()
	if a.paired || a.head == nil || a.base == nil || a.headErr != nil || a.baseErr != nil {
		return
	}
	a.paired = true
	a.head.SetDonor(a.base)
	pairBounded(a.head, a.base)
}

// Base returns the model of the base tree.
func (a *Analysis) Base() (*Model, error) {
	a.baseOnce.Do(func() {
		a.base, a.baseErr = Build(a.ctx, a.ch.Base, a.ch.Config, a.ch.Cache)
		// The head takes the base's resolutions where what they read still
		// holds: with a changed launch, resolving the base whole is what
		// makes the head's whole resolution cheap.
		if a.baseErr == nil && a.launchesAll() {
			a.base.wholeTree = true
		}
		a.pair()
	})
	return a.base, a.baseErr
}

// pairBounded gives the base and head models of one review the same
// Reachers: the one built second found the first kept, which is no reason
// to resolve every row (see Build).
func pairBounded(head, base *Model) {
	if head.bounded || base.bounded {
		head.bounded, base.bounded = true, true
	}
}

// ChangedRows returns the head rows the PR adds or changes: every row of
// a key that is new or whose settings changed, and the rows no base row of
// the key means the same as.
func (a *Analysis) ChangedRows() (map[*Row]bool, error) {
	a.rowsOnce.Do(func() {
		a.changed = map[*Row]bool{}
		if len(a.Configs) == 0 {
			return
		}
		head, err := a.Head()
		if err != nil {
			a.rowsErr = err
			return
		}
		ks, err := masterconfig.ChangedKeys(a.ctx, a.ch)
		if err != nil {
			a.rowsErr = err
			return
		}
		a.changedKs = ks
		for _, k := range ks {
			for _, r := range head.Rows {
				if r.File != k.Path || r.Key.Name != k.Key.Name {
					continue
				}
				if k.New || k.HeaderChanged || slices.ContainsFunc(k.Rows, func(x *masterconfig.Row) bool { return x.Line == r.Row.Line }) {
					a.changed[r] = true
				}
			}
		}
	})
	return a.changed, a.rowsErr
}

// Subjects are the head rows a pipeline rule judges: the rows the PR
// changed, the rows of launchers, templates or runner lists it changed,
// and the rows that run (or, at base, ran) a benchmark file it changed.
// They are found once per change (every PL rule asks).
func (a *Analysis) Subjects() ([]*Row, error) {
	if !a.Relevant {
		return nil, nil
	}
	a.subjectsOnce.Do(func() { a.subjects, a.subjectsErr = a.findSubjects() })
	return slices.Clone(a.subjects), a.subjectsErr
}

// findSubjects is Subjects.
func (a *Analysis) findSubjects() ([]*Row, error) {
	changed, err := a.ChangedRows()
	if err != nil {
		return nil, err
	}
	head, err := a.Head()
	if err != nil {
		return nil, err
	}
	set := map[*Row]bool{}
	for r := range changed {
		set[r] = true
	}
	launchers, labels, all := a.changedLaunchers()
	if all {
		for _, r := range head.Rows {
			set[r] = true
		}
	}
	if !all && len(labels) > 0 {
		for _, r := range head.Rows {
			if _, ok := slices.BinarySearch(labels, r.Label()); ok {
				set[r] = true
			}
		}
	}
	if !all && len(launchers) > 0 {
		// A file the PR adds or moves that the launch readings find no
		// row to run has PL002 resolve every row: then the launchers'
		// rows are found among them, taking from the base's resolutions.
		unreached, err := a.unreached()
		if err != nil {
			return nil, err
		}
		if len(unreached) > 0 {
			head.wholeTree = true
			if base, err := a.Base(); err == nil {
				base.wholeTree = true
			}
			head.ResolveAll()
		}
		for _, r := range head.launchersRows(launchers) {
			set[r] = true
		}
	}
	// The rows of every changed benchmark file, found in one pass (the
	// rules ask again, file by file, and find them kept).
	var now, was []string
	for _, fc := range a.Benchmarks {
		if fc.Status != checks.Deleted {
			now = append(now, fc.Path)
		}
		if fc.Status == checks.Deleted || fc.Status == checks.Renamed {
			old := fc.Path
			if fc.OldPath != "" {
				old = fc.OldPath
			}
			was = append(was, old)
		}
	}
	for _, rows := range head.ReachersOf(now) {
		for _, r := range rows {
			set[r] = true
		}
	}
	if len(was) > 0 {
		base, err := a.Base()
		if err != nil {
			return nil, err
		}
		for _, rows := range base.ReachersOf(was) {
			for _, br := range rows {
				for _, r := range head.Key(br.Key.Name) {
					if r.Scenario.ID() == br.Scenario.ID() && r.Row.Hash == br.Row.Hash {
						set[r] = true
					}
				}
			}
		}
	}
	out := make([]*Row, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Row.Line < out[j].Row.Line
	})
	head.ResolveRows(out) // what the rules look at next, on every core
	return out, nil
}

// changedLaunchers are the launchers the PR changes (by their paths at
// head and at base) and the runner labels whose machines or hardware it
// changes in runners.yaml; all is set when it changes a template, the
// sweep, a helper or runners.yaml past reading, which every row's job may
// read.
func (a *Analysis) changedLaunchers() (launchers, labels []string, all bool) {
	a.launchOnce.Do(func() {
		for _, fc := range a.Launch {
			if !strings.HasPrefix(path.Base(fc.Path), "launch_") {
				if l, ok := a.changedLabels(fc); ok {
					a.labels = append(a.labels, l...)
					continue
				}
				a.all = true
				continue
			}
			a.launchers = append(a.launchers, fc.Path)
			if fc.OldPath != "" {
				a.launchers = append(a.launchers, fc.OldPath)
			}
		}
		sort.Strings(a.labels)
		a.labels = slices.Compact(a.labels)
	})
	return a.launchers, a.labels, a.all
}

// changedLabels are the labels of runners.yaml the PR changes: one whose
// machine list or hardware entry differs, is added or is removed. A row's
// job reads runners.yaml only through its own label (its runner groups,
// and the hardware facts of its matrix point), so the rows of the other
// labels run as they did. ok is false when fc is not the runners.yaml the
// models read, or either side does not parse: then every row may differ.
func (a *Analysis) changedLabels(fc *checks.FileChange) (labels []string, ok bool) {
	if fc.Status != checks.Modified || fc.OldPath != "" && fc.OldPath != fc.Path {
		return nil, false
	}
	read := func(tree checks.Tree) *Runners {
		p, found := firstExisting(a.ctx, tree, runnersPaths)
		if !found || p != fc.Path {
			return nil
		}
		r, err := checks.Parsed(a.ctx, a.ch.Cache, tree, "pipeline/runners/v1", p, func(b []byte) (*Runners, error) { return ParseRunners(p, b) })
		if err != nil {
			return nil
		}
		return r
	}
	base, head := read(a.ch.Base), read(a.ch.Head)
	if base == nil || head == nil {
		return nil, false
	}
	return runnerChanges(base, head), true
}

// runnerChanges lists the labels whose machines or hardware differ
// between two runners.yaml readings.
func runnerChanges(base, head *Runners) []string {
	var out []string
	for _, r := range []*Runners{base, head} {
		for l := range r.Labels {
			if !slices.Equal(base.Labels[l], head.Labels[l]) {
				out = append(out, l)
			}
		}
		for l := range r.Hardware {
			bh, bok := base.Hardware[l]
			hh, hok := head.Hardware[l]
			if bok != hok || bh != hh {
				out = append(out, l)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func (a *Analysis) launchesAll() bool {
	_, _, all := a.changedLaunchers()
	return all
}

// launchersRows are the rows whose job on some runner group starts one of
// the launchers, or would by the group's name. Where the launch readings
// serve (see Reachers), only the rows they say may start one are
// resolved; otherwise every row is.
func (m *Model) launchersRows(launchers []string) []*Row {
	byName := func(g RunnerGroup) bool {
		return slices.Contains(launchers, "runners/launch_"+groupPrefix(g)+".sh")
	}
	rows := m.Rows
	if m.readingsServe() {
		rows = nil
		mays := m.mayReachRows(launchers)
		for i, r := range m.Rows {
			if slices.ContainsFunc(m.groups(r), byName) || slices.Contains(mays[i], true) {
				rows = append(rows, r)
			}
		}
		m.ResolveRows(rows)
	} else {
		m.ResolveAll()
	}
	var out []*Row
	for _, r := range rows {
		if slices.ContainsFunc(m.Resolve(r).Groups, func(l *Launch) bool { return slices.Contains(launchers, l.Launcher) || byName(l.Group) }) {
			out = append(out, r)
		}
	}
	return out
}

func groupPrefix(g RunnerGroup) string {
	p, _, _ := strings.Cut(g.Name, "_")
	return p
}

// BaseRows returns the base rows of a head row's key (none for a key the
// PR adds).
func (a *Analysis) BaseRows(r *Row) ([]*Row, error) {
	base, err := a.Base()
	if err != nil {
		return nil, err
	}
	return base.Key(r.Key.Name), nil
}

// ChangedRowsReaching returns the rows the PR adds or changes whose jobs
// run the benchmark file at p on some launcher path: the rows that make
// an unchanged recipe line matter (SH007 judges a recipe by them).
func ChangedRowsReaching(ctx context.Context, ch *checks.Change, p string) ([]*Row, error) {
	if ch.Config == nil {
		return nil, nil
	}
	a, err := Load(ctx, ch)
	if err != nil || !a.Relevant {
		return nil, err
	}
	changed, err := a.ChangedRows()
	if err != nil || len(changed) == 0 {
		return nil, err
	}
	head, err := a.Head()
	if err != nil {
		return nil, err
	}
	var out []*Row
	for r := range changed {
		if slices.ContainsFunc(head.Resolve(r).Groups, func(l *Launch) bool { return l.runs(p) }) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Row.Line < out[j].Row.Line })
	return out, nil
}
