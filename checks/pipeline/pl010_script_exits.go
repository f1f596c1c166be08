package pipeline

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var pl010 = &checks.Rule{
	ID:       "PL010",
	Severity: checks.Blocking,
	Title:    "Row's benchmark script exits with an error for the row's values",
	Doc: "A benchmark script often refuses the values it was not written for: a `case \"$CONC\" in` whose `*)` " +
		"arm prints \"unsupported\" and exits, an `if` on the parallelism or the framework that ends in `exit 1`. " +
		"This rule evaluates the script each row's job starts with the env that job hands it, one run per " +
		"concurrency (for a row the PR reaches only through a file every row reads, such as a workflow template " +
		"or a library every script sources, only its first concurrency: such a change leaves the row's " +
		"concurrencies and the script's own tests of CONC as they were), and reports a row whose run ends in a " +
		"failing `exit` on a path its values decide entirely (every branch on the way tested something the job sets), or on every path: that point of the sweep fails " +
		"before it measures anything. Only what the PR brings is reported: a row it adds or changes, or a script " +
		"it changes, when the same key's rows did not already fail there. A PR with more runs than the rule " +
		"evaluates in one review (2,048) gets no finding from it. Add the arm the row needs, or drop the values " +
		"the script does not support from the row.",
	Run: runPL010,
}

// failure is a run of a row that ends in a failing exit.
type failure struct {
	script string
	exit   Exit
	run    Run
	// decisions are the tests the path passed on the way, as written;
	// last is the one nearest the exit.
	decisions []string
	last      Decision
	hasLast   bool
	// conc is the run's concurrency, when the job sets one.
	conc string
}

func (x failure) fp() string {
	return x.script + "|" + x.exit.Code + "|" + strings.Join(x.decisions, "|")
}

// maxFailureRuns bounds the runs one row's failures are looked for in,
// and maxFailureEvals the script evaluations of one review (rows times
// concurrencies: a PR with thousands of them must not cost their product).
const (
	maxFailureRuns  = 64
	maxFailureEvals = 2048
)

// everyConc reports, for a row and the script its job runs, whether the
// row's other concurrencies are evaluated too: when the PR changed the
// row, the script, or the launcher or runner labels of the row. The
// concurrency a script fails for comes from the row's values and the
// script's branches on CONC; a PR that reaches a row only through a file
// every row reads (a workflow template, a library every script sources)
// changes neither, and its first concurrency, which the model evaluates
// anyway, still shows a failure that every concurrency meets. Evaluating
// every concurrency of every row there would cost hundreds of script
// evaluations for nothing.
func everyConc(ch *checks.Change, a *Analysis, changed map[*Row]bool) concScope {
	launchers, labels, _ := a.changedLaunchers()
	return func(r *Row, l *Launch, script string) bool {
		if changed[r] || ch.File(script) != nil || slices.Contains(launchers, l.Launcher) {
			return true
		}
		_, ok := slices.BinarySearch(labels, r.Label())
		return ok
	}
}

// concScope says whether a row's run of a script (on a launch) is
// evaluated at every concurrency of the row or at its first only.
type concScope func(r *Row, l *Launch, script string) bool

// allConcs evaluates every run at every concurrency.
func allConcs(*Row, *Launch, string) bool { return true }

// failures evaluates the benchmark scripts a row's jobs start, once per
// run (a run per concurrency where wide says so, the first otherwise), and
// returns the runs that end in a failing exit whatever the row's env
// leaves undecided.
func failures(m *Model, r *Row, budget *int, wide concScope) []failure {
	var out []failure
	seen := map[string]bool{}
	runs := 0
	for _, l := range m.Resolve(r).Groups {
		if l.Result == nil {
			continue
		}
		exists := map[string]bool{}
		for _, t := range m.Outcome(l).Targets {
			if t.Exists && t.Run.Kind == RunScript {
				exists[t.Run.Path] = true
			}
		}
		for _, path := range l.Result.Paths {
			for _, first := range path.Runs {
				if !exists[first.Path] || !first.Certain {
					continue
				}
				runs1 := []Run{first}
				if wide(r, l, first.Path) {
					runs1 = concRuns(m, r, first)
				}
				for _, run := range runs1 {
					if runs >= maxFailureRuns || *budget <= 0 {
						break
					}
					runs++
					*budget--
					res, err := m.EvalScript(run)
					if err != nil || res == nil || res.Incomplete || len(res.Paths) == 0 {
						continue
					}
					x, ok := failing(res)
					if !ok || x.Exit == nil {
						continue
					}
					// A status is a number; anything else the script
					// computed is not repeated.
					if n, err := strconv.Atoi(x.Exit.Code); err != nil || n < 1 || n > 255 {
						continue
					}
					f := failure{script: run.Path, exit: *x.Exit, run: run}
					for _, d := range x.Decisions {
						f.decisions = append(f.decisions, d.Text())
						if d.At.Line > 0 {
							f.last, f.hasLast = d, true
						}
					}
					if v, ok := run.Env.Get("CONC"); ok {
						f.conc = v
					}
					if k := f.fp() + "|" + f.conc; !seen[k] {
						seen[k] = true
						out = append(out, f)
					}
				}
			}
		}
	}
	return out
}

// concRuns returns the run of a row's script for each of the row's
// concurrencies. A row's job is one per concurrency and the model's runs
// carry the first; when the script tests CONC and the run hands it the
// row's first concurrency unchanged, the other jobs differ from it only
// there.
func concRuns(m *Model, r *Row, run Run) []Run {
	out := []Run{run}
	v, ok := run.Env["CONC"]
	if len(r.Concs) < 2 || !ok || !v.Set || !v.Known || v.IsList || v.Str != strconv.Itoa(r.Concs[0]) || !testsConc(m, run.Path) {
		return out
	}
	for _, c := range r.Concs[1:] {
		env := run.Env.Clone()
		w := v
		w.Str = strconv.Itoa(c)
		env["CONC"] = w
		other := run
		other.Env = env
		out = append(out, other)
	}
	return out
}

// testsConc reports whether a script branches on CONC.
func testsConc(m *Model, p string) bool {
	f, err := m.Facts(p)
	if err != nil || f == nil {
		return false
	}
	for _, c := range allConds(f) {
		if c.Var == "CONC" {
			return true
		}
	}
	return false
}

// failing returns the path a run surely takes to a failing exit: the
// path the env decided entirely, or the first path when every path
// fails.
func failing(res *Result) (Path, bool) {
	all := true
	for _, p := range res.Paths {
		if p.Certain {
			return p, p.Exit != nil && len(p.Runs) == 0
		}
		if p.Exit == nil || len(p.Runs) > 0 {
			all = false
		}
	}
	if all {
		return res.Paths[0], true
	}
	return Path{}, false
}

// failureFPs returns the fingerprints of a row's failures at every
// concurrency, spending budget.
func failureFPs(budget *int) func(m *Model, r *Row) []string {
	return func(m *Model, r *Row) []string {
		var out []string
		for _, x := range failures(m, r, budget, allConcs) {
			out = append(out, x.fp())
		}
		return out
	}
}

func runPL010(p *checks.Pass) error {
	a, head, rows, err := subjects(p)
	if err != nil || a == nil {
		return err
	}
	changed, _ := a.ChangedRows()
	budget := maxFailureEvals
	wide := everyConc(p.Change, a, changed)
	// The base's runs are all evaluated: a failure the base has at any
	// concurrency is not the PR's.
	baseFPs := failureFPs(&budget)
	var hits []rowHit
	detail := map[string][]failure{}
	for _, r := range rows {
		byFP := map[string][]failure{}
		var order []string
		for _, x := range failures(head, r, &budget, wide) {
			if _, ok := byFP[x.fp()]; !ok {
				order = append(order, x.fp())
			}
			byFP[x.fp()] = append(byFP[x.fp()], x)
		}
		for _, fp := range order {
			if baseHas(a, r, baseFPs, fp) {
				continue
			}
			hits = append(hits, rowHit{row: r, fp: fp})
			detail[r.Key.Name+"\x00"+fp] = byFP[fp]
		}
	}
	if budget <= 0 {
		// Runs were left unevaluated, the base's among them: what is
		// new in the PR is not known.
		return nil
	}
	for _, g := range groupByKey(hits) {
		p.Report(pl010Finding(p.Change, changed, g, detail[g.key+"\x00"+g.fp]))
	}
	return nil
}

func pl010Finding(ch *checks.Change, changed map[*Row]bool, g *keyGroup, xs []failure) checks.Finding {
	x := xs[0]
	var concs []string
	for _, y := range xs {
		if y.conc != "" && !slices.Contains(concs, y.conc) {
			concs = append(concs, y.conc)
		}
	}
	sort.Slice(concs, func(i, j int) bool { return numLess(concs[i], concs[j]) })
	var related []checks.Location
	for _, h := range g.hits {
		if len(related) < maxRowsCited {
			related = append(related, rowLoc(h.row, "row of "+code(g.key)+" whose job runs "+code(x.script)))
		}
	}
	related = append(related, loc(x.exit.At, "exits with status "+x.exit.Code))
	at := Loc{File: x.exit.At.File, Line: x.exit.At.Line}
	file, line := primary(ch, changed, g.hits, []Loc{at})
	which := ""
	if len(concs) > 0 {
		which = " with " + prose.JoinAnd(codes("CONC=", concs))
	}
	via := ""
	if x.hasLast {
		if arm, ok := strings.CutPrefix(x.last.Text(), "case → "); ok {
			via = fmt.Sprintf(" takes the %s arm of line %d and", code(arm+")"), x.last.At.Line)
		} else {
			via = fmt.Sprintf(" passes %s (line %d) and", code(x.last.Text()), x.last.At.Line)
		}
	}
	body := fmt.Sprintf("For %s of %s, the job runs %s%s, and the script%s ends at line %d with %s: the env the job "+
		"hands it decides every branch on the way, so these points of the sweep fail before the benchmark starts. "+
		"Make the script handle these values, or remove them from the row.",
		rowNames(g.hits), code(g.key), code(x.script), which, via, x.exit.At.Line, code("exit "+x.exit.Code))
	ex := &checks.Explain{}
	ex.Problem()
	ex.Printf("%s exits with status %s (line %d) for the values %s's rows give it.", code(x.script), x.exit.Code, x.exit.At.Line, code(g.key))
	ex.Why()
	ex.Printf("A failing exit before the server starts makes the job fail: the sweep publishes nothing for these points, and a full sweep run stops on them.")
	ex.Evidence()
	ex.Printf("The rows and the exit they reach:")
	ex.Fix()
	ex.Printf("Add a branch for the values the rows declare (a `case` arm, a wider test), or drop them from the rows.")
	f := checks.Finding{
		Path:    file,
		Line:    line,
		Title:   fmt.Sprintf("%s exits with status %s for %s", code(x.script), x.exit.Code, code(g.key)),
		Body:    body,
		Related: sortedLocs(related),
		Key:     "PL010 " + g.key + " " + g.fp,
	}
	ex.Apply(&f)
	return f
}

func codes(prefix string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = code(prefix + x)
	}
	return out
}

// numLess orders numbers numerically, anything else after them by text.
func numLess(a, b string) bool {
	var x, y int
	_, ea := fmt.Sscan(a, &x)
	_, eb := fmt.Sscan(b, &y)
	switch {
	case ea == nil && eb == nil:
		return x < y
	case ea == nil:
		return true
	case eb == nil:
		return false
	}
	return a < b
}
