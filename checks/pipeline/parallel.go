package pipeline

import (
	"runtime"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks/internal/par"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// A PR that changes a launcher, a job template or a helper every recipe
// sources re-evaluates every row it reaches: the review's time is then
// the launchers' and the recipes' evaluations, hundreds of them. They run
// on several cores, and the outcome is the one of evaluating them one
// after another, whatever the scheduling:
//
//   - Ahead, on every core, each script evaluation the memo cannot answer
//     yet is made, without touching the memo. An evaluation depends only
//     on the script, the files and the env, so it is the one a miss would
//     make. Evaluations another one made ahead already answers are left
//     out, so that rows sharing a launcher's outcome cost one evaluation.
//   - Then, on the calling goroutine and in the calls' order, each call is
//     looked up in the memo as evalLauncher does; a miss takes the
//     evaluation made ahead (or makes it, when it was left out) and puts
//     it in the memo. The memo thus sees the same lookups and puts in the
//     same order as on one core.

// evalCall is one script evaluation asked for: the script and its env.
type evalCall struct {
	path string
	env  Env
}

// evaluated is an evaluation made ahead of its memo lookup.
type evaluated struct {
	res *Result
	err error
}

// evalMany evaluates calls as evalLauncher would one after another, the
// evaluations themselves made ahead on every core; fn receives each
// call's outcome, in order. It stops early, with fn not called for the
// rest, when the review is cancelled.
func (m *Model) evalMany(calls []evalCall, fn func(i int, r *Result, err error)) {
	ahead := m.evalAhead(calls)
	for i, c := range calls {
		if m.ctx.Err() != nil {
			return
		}
		var a *evaluated
		if ahead != nil {
			a = ahead[i]
		}
		r, err := m.evalWith(c.path, c.env, a)
		fn(i, r, err)
	}
}

// evalAhead makes the evaluations of calls the memo does not answer, on
// every core (nil on one core, or for a single call). A panic in an
// evaluation is raised again on the caller's goroutine, where the rule
// that asked is recovered like any rule.
func (m *Model) evalAhead(calls []evalCall) []*evaluated {
	workers := min(len(calls), runtime.GOMAXPROCS(0))
	if workers <= 1 {
		return nil
	}
	// The memos are fetched here, in order, so the parse cache sees the
	// same uses in the same order on any number of cores; the workers
	// only read them.
	memos := make(map[string]*sheval.Memo)
	for _, c := range calls {
		if _, ok := memos[c.path]; !ok {
			memos[c.path] = m.memoOf(c.path)
		}
	}
	// What the workers evaluated, by script: a call one of them answers
	// is left to the ordered pass.
	var mu sync.Mutex
	made := make(map[string]*sheval.Memo)
	madeFor := func(p string) *sheval.Memo {
		mu.Lock()
		defer mu.Unlock()
		if made[p] == nil {
			made[p] = sheval.NewMemo(nil)
		}
		return made[p]
	}
	out := make([]*evaluated, len(calls))
	par.For(workers, len(calls), func(i int) bool {
		if m.ctx.Err() != nil {
			return false
		}
		c := calls[i]
		own := madeFor(c.path)
		if memos[c.path].Has(c.env, m.files) || own.Has(c.env, m.files) {
			return true
		}
		r, err := m.evaluate(c.path, c.env)
		if err == nil {
			own.Put(r)
		}
		out[i] = &evaluated{res: r, err: err}
		return true
	})
	return out
}

// ResolveRows resolves rows as Resolve does one by one, with the launch
// steps' and the launchers' evaluations made on every core (see
// stepsAhead and evalMany): first, row by row, what a donor holds; then
// the job envs and launch steps, which name each launcher; then the
// launchers' evaluations; last, row by row, the launchers they hand over
// to, and each row's resolution is kept.
func (m *Model) ResolveRows(rows []*Row) {
	type pending struct {
		r   *Row
		t   *Template
		res *Resolution
		at  int // its first launch's index in jobs
	}
	var todo []pending
	var jobs []launchJob
	m.resolveAtLiveDonor(rows)
	seen := make(map[*Row]bool, len(rows))
	for _, r := range rows {
		if m.ctx.Err() != nil {
			return
		}
		if seen[r] || m.resolved(r) != nil {
			continue
		}
		seen[r] = true
		if res := m.fromDonor(r); res != nil {
			m.store(r, res)
			continue
		}
		t := m.Templates[r.Kind]
		todo = append(todo, pending{r: r, t: t, res: &Resolution{Row: r}, at: len(jobs)})
		for _, g := range m.groups(r) {
			jobs = append(jobs, launchJob{r: r, t: t, g: g})
		}
	}
	ins, ahead := m.stepsAhead(jobs)
	var calls []evalCall
	var launches []*Launch
	for i, job := range jobs {
		if m.ctx.Err() != nil {
			return
		}
		var l *Launch
		if ahead != nil && ahead[i] != nil {
			l = m.launchOf(job.t, ins[i], ahead[i])
		} else {
			l = m.launchPrepared(job.r, job.t, job.g)
		}
		jobs[i].l = l
		if l.Launcher != "" && l.Err == nil {
			calls = append(calls, evalCall{path: l.Launcher, env: l.LauncherEnv})
			launches = append(launches, l)
		}
	}
	m.evalMany(calls, func(i int, r *Result, err error) {
		launches[i].Result, launches[i].Err = r, err
	})
	if m.ctx.Err() != nil {
		return // some launchers were not evaluated: keep nothing half done
	}
	for i, p := range todo {
		end := len(jobs)
		if i+1 < len(todo) {
			end = todo[i+1].at
		}
		for _, job := range jobs[p.at:end] {
			job.l.Result = m.withDelegates(job.l.Result, 0) // nil stays nil
			p.res.Groups = append(p.res.Groups, job.l)
		}
		m.store(p.r, p.res)
	}
}

// launchJob is a row's launch on a runner group, to be made.
type launchJob struct {
	r *Row
	t *Template
	g RunnerGroup
	l *Launch
}

// stepAhead is what stepsAhead made of a launch: its step's id, parse (when
// the parse cache had none) and evaluation (when no memo answered).
type stepAhead struct {
	id     string
	parsed bool
	file   *syntax.File
	perr   error
	res    *Result
}

// stepsAhead makes the launches' inputs (prepareLaunch) and, of their
// steps, the parses the parse cache lacks and the evaluations no memo
// answers yet, on every core (nil, nil on one core or for one launch).
// Like evalAhead, the workers use no cache or memo (they peek at them):
// the launches are made after, in order (launchOf), with the lookups
// and the puts one core makes, taking what was made ahead where they
// miss. A step's parse depends only on its text, and its evaluation on
// the text, the files and the env, so either is the one a miss makes.
func (m *Model) stepsAhead(jobs []launchJob) ([]launchInput, []*stepAhead) {
	workers := min(len(jobs), runtime.GOMAXPROCS(0))
	if workers <= 1 {
		return nil, nil
	}
	type parse struct {
		once sync.Once
		f    *syntax.File
		err  error
	}
	var mu sync.Mutex
	parses := map[string]*parse{}
	made := map[string]*sheval.Memo{}
	parseOf := func(id string) (*parse, *sheval.Memo) {
		mu.Lock()
		defer mu.Unlock()
		if parses[id] == nil {
			parses[id], made[id] = &parse{}, sheval.NewMemo(nil)
		}
		return parses[id], made[id]
	}
	ins := make([]launchInput, len(jobs))
	out := make([]*stepAhead, len(jobs))
	par.For(workers, len(jobs), func(i int) bool {
		if m.ctx.Err() != nil {
			return false
		}
		job := jobs[i]
		in := prepareLaunch(job.r, job.t, job.g)
		a := &stepAhead{id: stepID(in.text)}
		ins[i], out[i] = in, a
		var f *syntax.File
		if v, ok := m.cache.Peek(launchStepKind, a.id); ok {
			f, _ = v.(*syntax.File)
		}
		p, own := parseOf(a.id)
		if f == nil {
			p.once.Do(func() { p.f, p.err = sheval.ParseShell(job.t.Path, []byte(in.text)) })
			f, a.parsed, a.file, a.perr = p.f, true, p.f, p.err
			if p.err != nil {
				return true
			}
		}
		if memo := m.peekMemo("step\x00" + a.id); memo != nil && memo.Has(in.env, m.files) || own.Has(in.env, m.files) {
			return true
		}
		r := m.eval.RunFile(job.t.Path, f, in.env)
		r.EnvSum = sheval.EnvSum(in.env)
		own.Put(r)
		a.res = r
		return true
	})
	return ins, out
}

// EvalScripts evaluates the benchmark scripts runs start (EvalScript),
// on every core (see evalMany): the EvalScript calls that follow for the
// same runs find them in the memo.
func (m *Model) EvalScripts(runs []Run) {
	var calls []evalCall
	for _, run := range runs {
		if run.Path != "" && run.Kind == RunScript {
			calls = append(calls, evalCall{path: run.Path, env: run.Env})
		}
	}
	m.evalMany(calls, func(int, *Result, error) {})
}

// mayReachRows is mayReach of every row for ps, by row index, on every
// core. The readings' memos are shared under their lock, and a reading
// two workers make at once is the same reading, so the answers are those
// of one core.
func (m *Model) mayReachRows(ps []string) [][]bool {
	out := make([][]bool, len(m.Rows))
	par.For(min(len(m.Rows), runtime.GOMAXPROCS(0)), len(m.Rows), func(i int) bool {
		out[i] = m.mayReach(m.Rows[i], ps)
		return true
	})
	return out
}
