package pipeline

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// withProcs runs fn with GOMAXPROCS at n.
func withProcs(n int, fn func()) {
	prev := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(prev)
	fn()
}

// memoOrder is what each of a model's memos holds, in order: the env
// each evaluation was made with, by memo.
func memoOrder(m *Model) map[string][]string {
	m.st.mu.Lock()
	memos := make(map[string]*sheval.Memo, len(m.st.memos))
	for id, mm := range m.st.memos {
		memos[id] = mm
	}
	m.st.mu.Unlock()
	out := map[string][]string{}
	for id, mm := range memos {
		for _, r := range mm.Results() {
			out[id] = append(out[id], fmt.Sprintf("%x", r.EnvSum))
		}
	}
	return out
}

// TestResolveRowsIsResolveRowByRow: resolving every row at once, the
// launchers evaluated on several cores, gives each row the launches that
// resolving the rows one by one on one core gives.
func TestResolveRowsIsResolveRowByRow(t *testing.T) {
	files := fixtureFiles(t)
	var one, many *Model
	withProcs(1, func() {
		one = buildFor(t, newIDTree(files), checks.NewParseCache(0))
		for _, r := range one.Rows {
			one.Resolve(r)
		}
	})
	withProcs(4, func() {
		many = buildFor(t, newIDTree(files), checks.NewParseCache(0))
		many.ResolveRows(many.Rows)
	})
	if len(one.Rows) != len(many.Rows) || len(one.Rows) < 5 {
		t.Fatalf("rows: %d and %d; the fixture should have at least 5", len(one.Rows), len(many.Rows))
	}
	launched := 0
	for i, r := range many.Rows {
		got := many.resolved(r)
		if got == nil {
			t.Fatalf("%s was not resolved", r)
		}
		want := one.Resolve(one.Rows[i])
		if len(got.Groups) != len(want.Groups) {
			t.Fatalf("%s: %d launches, want %d", r, len(got.Groups), len(want.Groups))
		}
		for j, l := range got.Groups {
			w := want.Groups[j]
			if l.Launcher != w.Launcher || fmt.Sprint(l.Err) != fmt.Sprint(w.Err) || !reflect.DeepEqual(l.Result, w.Result) || !reflect.DeepEqual(l.Step, w.Step) {
				t.Errorf("%s on %s: launcher %q (err %v), want %q (err %v), or its evaluation differs", r, l.Group.Name, l.Launcher, l.Err, w.Launcher, w.Err)
			}
			if l.Result != nil {
				launched++
			}
		}
	}
	if launched == 0 {
		t.Fatal("no row reached a launcher")
	}
}

// TestStepsAheadAreTheLaunchSteps: the job envs, step texts, parses and
// evaluations made ahead on several cores are those one core makes of each
// launch in order, and each step is evaluated ahead once per distinct set
// of deciding inputs.
func TestStepsAheadAreTheLaunchSteps(t *testing.T) {
	files := fixtureFiles(t)
	withProcs(4, func() {
		m := buildFor(t, newIDTree(files), checks.NewParseCache(0))
		var jobs []launchJob
		for _, r := range m.Rows {
			for _, g := range m.groups(r) {
				jobs = append(jobs, launchJob{r: r, t: m.Templates[r.Kind], g: g})
			}
		}
		ins, ahead := m.stepsAhead(jobs)
		if len(ahead) != len(jobs) {
			t.Fatalf("%d made ahead of %d launches", len(ahead), len(jobs))
		}
		one := buildFor(t, newIDTree(files), checks.NewParseCache(0))
		evaluated := 0
		for i, job := range jobs {
			want := prepareLaunch(job.r, job.t, job.g)
			if !reflect.DeepEqual(ins[i], want) {
				t.Fatalf("%s on %s: the launch input made ahead differs", job.r, job.g.Name)
			}
			a := ahead[i]
			if a.id != stepID(want.text) || !a.parsed {
				t.Fatalf("%s on %s: step %q parsed %v", job.r, job.g.Name, a.id, a.parsed)
			}
			if a.res == nil {
				continue
			}
			evaluated++
			// The evaluation one core makes on a memo miss. (Two cores may
			// both evaluate launches that agree on their deciding inputs;
			// in order, the second takes the first's from the memo, so
			// only the evaluation itself is compared here.)
			fresh := one.eval.RunFile(job.t.Path, a.file, want.env)
			fresh.EnvSum = sheval.EnvSum(want.env)
			if !reflect.DeepEqual(a.res, fresh) {
				t.Errorf("%s on %s: the step evaluated ahead differs from the one made in order", job.r, job.g.Name)
			}
		}
		if evaluated == 0 {
			t.Fatal("no step was evaluated ahead")
		}
	})
}

// TestResolveRowsDoesNotDependOnTheCores: what the memos hold after
// resolving every row, and in what order, is the same on one core and on
// several, run after run.
func TestResolveRowsDoesNotDependOnTheCores(t *testing.T) {
	files := fixtureFiles(t)
	var want map[string][]string
	for run, procs := range []int{1, 4, 4, 2, 8} {
		withProcs(procs, func() {
			m := buildFor(t, newIDTree(files), checks.NewParseCache(0))
			m.ResolveRows(m.Rows)
			for _, r := range m.Rows {
				m.EvalScripts(requiredRuns(m, []*Row{r}))
			}
			got := memoOrder(m)
			if run == 0 {
				want = got
				if len(want) == 0 {
					t.Fatal("no memo was filled")
				}
				return
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("run %d on %d cores: the memos hold other evaluations or another order than on one core", run, procs)
			}
		})
	}
}

// panicky is Files whose parse of one path panics.
type panicky struct {
	Files
	path string
}

func (p panicky) Parse(path string) (*syntax.File, error) {
	if path == p.path {
		panic("parse of " + path)
	}
	return p.Files.Parse(path)
}

// TestEvalAheadPanicReachesTheCaller: an evaluation that panics on a
// worker goroutine panics in the goroutine that asked, where a rule's
// panic is recovered (the process must not die of it).
func TestEvalAheadPanicReachesTheCaller(t *testing.T) {
	files := fixtureFiles(t)
	m := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	var calls []evalCall
	for p := range files {
		if strings.HasPrefix(p, "runners/launch_") {
			calls = append(calls, evalCall{path: p, env: Env{}})
		}
	}
	slices.SortFunc(calls, func(a, b evalCall) int { return strings.Compare(a.path, b.path) })
	if len(calls) < 2 {
		t.Fatal("the fixture should have two launchers")
	}
	m.eval = &Eval{Files: panicky{Files: m.files, path: calls[1].path}, Unknown: m.eval.Unknown}
	got := func() (v any) {
		defer func() { v = recover() }()
		withProcs(4, func() { m.evalMany(calls, func(int, *Result, error) {}) })
		return nil
	}()
	if got == nil || !strings.Contains(fmt.Sprint(got), calls[1].path) {
		t.Fatalf("recovered %v; want the worker's panic", got)
	}
}

// cancelling is Files that cancels the review at its first parse.
type cancelling struct {
	Files
	cancel context.CancelFunc
	parses *atomic.Int64
}

func (c cancelling) Parse(path string) (*syntax.File, error) {
	c.parses.Add(1)
	c.cancel()
	return c.Files.Parse(path)
}

// TestResolveRowsCancelledKeepsNothing: a review cancelled while the
// launchers are evaluated keeps no resolution, not one whose launcher
// was left unevaluated.
func TestResolveRowsCancelledKeepsNothing(t *testing.T) {
	files := fixtureFiles(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := buildFor(t, newIDTree(files), checks.NewParseCache(0)).rebind(ctx, newIDTree(files), checks.NewParseCache(0))
	var parses atomic.Int64
	m.eval = &Eval{Files: cancelling{Files: m.files, cancel: cancel, parses: &parses}, Unknown: m.eval.Unknown}
	withProcs(4, func() { m.ResolveRows(m.Rows) })
	if parses.Load() == 0 {
		t.Fatal("no launcher was evaluated")
	}
	for _, r := range m.Rows {
		if res := m.resolved(r); res != nil {
			t.Fatalf("%s was kept after the review was cancelled", r)
		}
	}
}

// TestLiveDonorLeavesChangedLaunchers: the head of a PR that changes a
// launcher does not ask the base to resolve the rows of that launcher
// (they could not be taken), only the others.
func TestLiveDonorLeavesChangedLaunchers(t *testing.T) {
	const launcher = "runners/launch_h100-cr.sh"
	files := fixtureFiles(t)
	if _, ok := files[launcher]; !ok {
		t.Fatalf("fixture tree lacks %s", launcher)
	}
	cache := checks.NewParseCache(0)
	base := buildFor(t, newIDTree(files), cache)
	head := buildFor(t, newIDTree(withRetired(files, launcher)), cache)
	head.SetDonor(base)
	head.ResolveAll()
	var changed, other int
	for i, r := range head.Rows {
		onChanged := false
		for _, g := range head.groups(r) {
			onChanged = onChanged || "runners/launch_"+groupPrefix(g)+".sh" == launcher
		}
		asked := base.resolved(base.Rows[i]) != nil
		switch {
		case onChanged && asked:
			t.Errorf("%s runs on the changed launcher, yet the base resolved it", r)
		case !onChanged && !asked:
			t.Errorf("%s runs on unchanged launchers, yet the base did not resolve it for the head", r)
		}
		if onChanged {
			changed++
		} else {
			other++
		}
	}
	if changed == 0 || other == 0 {
		t.Fatalf("the fixture should run %s on some rows and other launchers on others (%d, %d)", launcher, changed, other)
	}
}

// TestEvalScriptsAnswersTheRulesCalls: once the scripts the rows run are
// evaluated at once, the rules' one-by-one calls evaluate nothing more.
func TestEvalScriptsAnswersTheRulesCalls(t *testing.T) {
	files := fixtureFiles(t)
	m := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	m.ResolveAll()
	runs := requiredRuns(m, m.Rows)
	if len(runs) == 0 {
		t.Fatal("the fixture's rows should run scripts")
	}
	withProcs(4, func() { m.EvalScripts(runs) })
	count := func() (n int) {
		for _, rs := range memoOrder(m) {
			n += len(rs)
		}
		return n
	}
	before := count()
	for _, r := range m.Rows {
		requirements(m, r)
	}
	if after := count(); after != before {
		t.Errorf("the rules evaluated %d more scripts after EvalScripts", after-before)
	}
}

// TestUnusedFeaturesEvaluatesOnlyWhatItMust: a row that declares no
// feature, or one its launcher, its script's name or text already
// shows, is judged without evaluating its script.
func TestUnusedFeaturesEvaluatesOnlyWhatItMust(t *testing.T) {
	files := fixtureFiles(t)
	m := buildFor(t, newIDTree(files), checks.NewParseCache(0))
	m.ResolveAll()
	before := memoOrder(m)
	judged := 0
	for _, r := range m.Rows {
		if r.Kind != SingleNode {
			continue
		}
		undecided := false
		for _, l := range m.Resolve(r).Groups {
			if l.Result == nil {
				continue
			}
			for _, tg := range m.Outcome(l).Targets {
				src := files[tg.Run.Path]
				for _, f := range features {
					v, ok := r.Row.Raw[f.field]
					if !ok || !f.active(v) || strings.Contains(tg.Run.Path, "_"+norm(v)) {
						continue
					}
					shown := false
					for _, name := range f.vars {
						shown = shown || usesVar(l.Result, name)
					}
					for _, h := range f.hard {
						shown = shown || strings.Contains(src, h)
					}
					undecided = undecided || !shown
				}
			}
		}
		if undecided {
			continue
		}
		judged++
		unusedFeatures(m, r)
	}
	if judged == 0 {
		t.Fatal("the fixture should have single-node rows whose features need no evaluation")
	}
	if after := memoOrder(m); !reflect.DeepEqual(after, before) {
		t.Error("judging rows whose features are decided without the script evaluated scripts")
	}
}
