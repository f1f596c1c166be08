package pipeline

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var pl011 = &checks.Rule{
	ID:       "PL011",
	Severity: checks.Blocking,
	Title:    "Multi-node row's concurrencies are not the ones its recipe runs",
	Doc: "A multi-node row hands its srt-slurm recipe (`CONFIG_FILE=`) to srtctl, and the recipe's " +
		"`benchmark.concurrencies` decide which concurrencies the job benchmarks: the launchers pass the row's " +
		"`conc-list` (or `conc-start`..`conc-end`) nowhere else. This rule reports a row the PR adds or changes, or " +
		"whose recipe it changes, whose concurrencies differ from its recipe's. A concurrency the row declares " +
		"and the recipe does not run is a point that is never measured, while the job publishes another under the " +
		"row's name (and an agentic job fails its result count): 🔴. A recipe that only runs more " +
		"concurrencies than the row declares publishes points nobody asked for, often another row's: 🟡. Make the " +
		"recipe's `benchmark.concurrencies` and the row's list the same. Not judged: recipes selected with an " +
		"`:override` suffix, and concurrencies the bot cannot read as numbers.",
	Run: runPL011,
}

// concMismatch is a row whose recipe runs other concurrencies.
type concMismatch struct {
	recipe  string
	line    int // the recipe's benchmark.concurrencies line
	text    string
	run     []int // the recipe's concurrencies, sorted
	missing []int // declared, not run
	extra   []int // run, not declared
}

func (c concMismatch) fp() string {
	return fmt.Sprintf("concs|%v|%v|%s", c.missing, c.extra, path.Base(c.recipe))
}

// concMismatches compares a multi-node row's concurrencies with those of
// each recipe its launches run.
func concMismatches(m *Model, r *Row) []concMismatch {
	if r.Kind != MultiNode || len(r.Concs) == 0 {
		return nil
	}
	declared := sortedSet(r.Concs)
	var out []concMismatch
	seen := map[string]bool{}
	for _, l := range m.Resolve(r).Groups {
		for _, t := range m.Outcome(l).Targets {
			if t.Run.Kind != RunRecipe || !t.Exists || seen[t.Run.Path] || strings.Contains(t.Run.Text, ":") {
				continue
			}
			seen[t.Run.Path] = true
			rec, err := m.Recipe(t.Run.Path)
			if err != nil || rec == nil || len(rec.Concs) == 0 {
				continue
			}
			run := sortedSet(rec.Concs)
			c := concMismatch{recipe: rec.Path, line: rec.Concurrencies.Line, text: rec.Concurrencies.Value, run: run,
				missing: setMinus(declared, run), extra: setMinus(run, declared)}
			if len(c.missing)+len(c.extra) > 0 {
				out = append(out, c)
			}
		}
	}
	return out
}

func sortedSet(xs []int) []int {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

// setMinus is the values of a (sorted) not in b (sorted).
func setMinus(a, b []int) []int {
	var out []int
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			out = append(out, x)
		}
	}
	return out
}

func pl011FPs(m *Model, r *Row) []string {
	var out []string
	for _, c := range concMismatches(m, r) {
		out = append(out, c.fp())
	}
	return out
}

func runPL011(p *checks.Pass) error {
	a, head, rows, err := subjects(p)
	if err != nil || a == nil {
		return err
	}
	changed, _ := a.ChangedRows()
	for _, r := range rows {
		for _, c := range concMismatches(head, r) {
			if baseHas(a, r, pl011FPs, c.fp()) {
				continue
			}
			p.Report(pl011Finding(p.Change, changed, r, c))
		}
	}
	return nil
}

func concText(cs []int) string { return prose.JoinAnd(intsText(cs)) }

func pl011Finding(ch *checks.Change, changed map[*Row]bool, r *Row, c concMismatch) checks.Finding {
	file, line := r.File, r.Row.Line
	for _, k := range []string{"conc-list", "conc-start", "conc-end"} {
		if l := r.Row.LineOf(k); l > 0 {
			line = l
			break
		}
	}
	if !changed[r] {
		if fc := changedFile(ch, c.recipe); fc != nil && c.line > 0 && fc.IsAdded(c.line) {
			file, line = c.recipe, c.line
		}
	}
	declared := concText(sortedSet(r.Concs))
	sets := code("concurrencies: " + c.text)
	sev := checks.Blocking
	var body, title string
	if len(c.missing) > 0 {
		title = fmt.Sprintf("%s declares conc %s, its recipe never runs %s", code(r.Key.Name), concText(c.missing), them(c.missing))
		body = fmt.Sprintf("The row at %s of %s declares conc %s, but the recipe it runs, %s, sets %s: srtctl "+
			"benchmarks the recipe's concurrencies, so conc %s %s never measured and the job publishes what the "+
			"recipe ran under this row's name. Make the recipe's `benchmark.concurrencies` and the row's list the same.",
			code(fmt.Sprintf("%s:%d", r.File, r.Row.Line)), code(r.Key.Name), declared, code(c.recipe), sets, concText(c.missing), isAre(c.missing))
	} else {
		sev = checks.Warning
		title = fmt.Sprintf("%s's recipe also runs conc %s, which the row does not declare", code(r.Key.Name), concText(c.extra))
		body = fmt.Sprintf("The row at %s of %s declares conc %s, but the recipe it runs, %s, sets %s: the job also "+
			"benchmarks conc %s and publishes those points under this row's name. Make the recipe's "+
			"`benchmark.concurrencies` and the row's list the same.",
			code(fmt.Sprintf("%s:%d", r.File, r.Row.Line)), code(r.Key.Name), declared, code(c.recipe), sets, concText(c.extra))
	}
	ex := &checks.Explain{}
	ex.Problem()
	ex.Printf("The row declares conc %s; %s sets %s (conc %s).", declared, prose.CodeAt(c.recipe, c.line), sets, concText(c.run))
	ex.Why()
	ex.Printf("The launcher hands the recipe to srtctl as it is: the row's concurrencies reach the job's labels and " +
		"result checks, not the benchmark, which runs the recipe's. The published curve then misses the row's points " +
		"or holds points no row declares.")
	ex.Evidence()
	ex.Printf("The row and the recipe's concurrencies:")
	ex.Fix()
	ex.Printf("Set `benchmark.concurrencies` in the recipe to the row's concurrencies (`%s`), or change the row's list to what the recipe runs.", strings.Join(intsText(sortedSet(r.Concs)), "x"))
	f := checks.Finding{
		Severity: sev,
		Path:     file,
		Line:     line,
		Title:    title,
		Body:     body,
		Related: sortedLocs([]checks.Location{
			{Path: r.File, Line: r.Row.Line, Note: "the row declares conc " + strings.ReplaceAll(declared, "`", "")},
			{Path: c.recipe, Line: c.line, Note: "the recipe runs concurrencies " + c.text},
		}),
		Key: "PL011 " + r.Key.Name + " " + c.fp(),
	}
	ex.Apply(&f)
	return f
}

func them(cs []int) string {
	if len(cs) == 1 {
		return "it"
	}
	return "them"
}

func isAre(cs []int) string {
	if len(cs) == 1 {
		return "is"
	}
	return "are"
}

func intsText(cs []int) []string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = strconv.Itoa(c)
	}
	return s
}
