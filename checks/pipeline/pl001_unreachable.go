package pipeline

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var pl001 = &checks.Rule{
	ID:       "PL001",
	Severity: checks.Blocking,
	Title:    "Config row runs no benchmark script",
	Doc: "A master-config row becomes a job of the sweep: the workflow template gives it its env, the launch step " +
		"runs `runners/launch_<runner>.sh` for the runner machine it lands on, and the launcher computes the " +
		"benchmark script (`benchmarks/single_node/...`) or, for multi-node rows, hands the srt-slurm recipe named by " +
		"`CONFIG_FILE` to srtctl. This rule follows the row through every path of that launcher, for every group of " +
		"runner machines of its label, and reports a row for which every path fails before it runs an existing " +
		"benchmark: the script it computes does not exist (a model prefix or precision that spells another file, a " +
		"script moved, renamed or deleted by this PR, a launcher that now looks in another directory), the launcher " +
		"exits for the row's model or framework, the recipe is missing, or the runner has no launcher. The job would " +
		"fail on that runner every time. Only problems this PR brings are reported: a changed row, or a row whose " +
		"launcher, template or script the PR changed; the base branch's rows that were already broken are left alone.",
	Run: runPL001,
}

// brokenLaunches returns a row's launches that cannot run a benchmark,
// with a fingerprint each.
func brokenLaunches(m *Model, r *Row) []*Launch {
	var out []*Launch
	for _, l := range m.Resolve(r).Groups {
		if launchBroken(m, l) {
			out = append(out, l)
		}
	}
	return out
}

// LaunchBroken reports whether a launch fails on every path before it
// runs an existing benchmark (or has no launcher).
func LaunchBroken(m *Model, l *Launch) bool { return launchBroken(m, l) }

func launchBroken(m *Model, l *Launch) bool {
	if l.Launcher != "" && l.Err != nil && checks.IsNotExist(l.Err) {
		return true
	}
	return m.Outcome(l).Broken
}

// brokenFP identifies a broken launch: the runner group and what it
// failed on, without line numbers.
func brokenFP(m *Model, l *Launch) string {
	if l.Result == nil {
		return groupPrefix(l.Group) + "|no launcher " + l.Launcher
	}
	o := m.Outcome(l)
	var missing []string
	for _, t := range o.Targets {
		if !t.Exists {
			missing = append(missing, t.Run.Path)
		}
	}
	if len(missing) == 0 {
		return groupPrefix(l.Group) + "|exits"
	}
	return groupPrefix(l.Group) + "|missing " + strings.Join(missing, ",")
}

func pl001FPs(m *Model, r *Row) []string {
	var out []string
	for _, l := range brokenLaunches(m, r) {
		out = append(out, brokenFP(m, l))
	}
	return out
}

func runPL001(p *checks.Pass) error {
	a, head, rows, err := subjects(p)
	if err != nil || a == nil {
		return err
	}
	changed, _ := a.ChangedRows()
	var hits []rowHit
	launches := map[string]*Launch{}
	for _, r := range rows {
		for _, l := range brokenLaunches(head, r) {
			fp := brokenFP(head, l)
			if baseHas(a, r, pl001FPs, fp) {
				continue
			}
			hits = append(hits, rowHit{row: r, fp: fp})
			if _, ok := launches[r.Key.Name+"\x00"+fp]; !ok {
				launches[r.Key.Name+"\x00"+fp] = l
			}
		}
	}
	for _, g := range groupByKey(hits) {
		l := launches[g.key+"\x00"+g.fp]
		p.Report(pl001Finding(p.Change, head, changed, g, l))
	}
	return nil
}

func pl001Finding(ch *checks.Change, m *Model, changed map[*Row]bool, g *keyGroup, l *Launch) checks.Finding {
	ex := &checks.Explain{}
	var related []checks.Location
	var evidence []Loc
	for i, h := range g.hits {
		if i == maxRowsCited {
			break
		}
		related = append(related, rowLoc(h.row, "row of "+code(g.key)))
	}
	machines := fmt.Sprintf("runner %s (label %s)", code(l.Group.Name), code(l.Group.Label))
	if len(l.Group.Names) > 1 {
		machines = fmt.Sprintf("the %d runner machines %s… of label %s", len(l.Group.Names), code(l.Group.Names[0]), code(l.Group.Label))
	}
	var what, fix string
	// byRunner: the failure is the runner's (no launcher, or a launcher
	// with no branch for the key), not a path one row computes.
	byRunner := l.Result == nil
	switch {
	case l.Result == nil:
		what = fmt.Sprintf("the launch step runs %s, which does not exist", code(l.Launcher))
		fix = fmt.Sprintf("Add %s, or take the machines of %s out of label %s in the runner list.", code(l.Launcher), code(l.Group.Name), code(l.Group.Label))
	default:
		o := m.Outcome(l)
		var missing []Target
		for _, t := range o.Targets {
			if !t.Exists {
				missing = append(missing, t)
			}
		}
		switch {
		case len(missing) > 0:
			var names []string
			for _, t := range missing {
				names = append(names, code(t.Run.Path))
				related = append(related, loc(t.Run.At, fmt.Sprintf("runs %s", t.Run.Path)))
				evidence = append(evidence, t.Run.At)
				for _, f := range t.Run.From {
					related = append(related, loc(f, "computes the path"))
					evidence = append(evidence, f)
				}
				for _, in := range inputOrigins(l, t.Run) {
					related = append(related, loc(in.at, "sets "+in.name+", which the path is built from"))
					evidence = append(evidence, in.at)
				}
			}
			what = fmt.Sprintf("%s runs %s, which %s not exist", code(l.Launcher), prose.JoinAnd(names), pick(len(missing), "does", "do"))
			tried := triedPaths(l, missing)
			if len(tried) > 0 {
				what += fmt.Sprintf(" (it looked for %s first)", prose.JoinAnd(tried))
			}
			if alts := sameNamed(m, missing[0].Run.Path); len(alts) > 0 {
				fix = fmt.Sprintf("A file of that name exists at %s: move it back, or make the launcher look there.", prose.JoinAnd(alts))
			} else {
				fix = "Add the script at that path, or correct the row's `model-prefix`, `precision`, `framework` or `spec-decoding` so the launcher computes an existing one."
			}
		default:
			byRunner = true
			var lines []string
			for _, e := range o.Exits {
				if len(lines) < maxRowsCited {
					related = append(related, loc(e.At, "exits with status "+e.Code))
					lines = append(lines, fmt.Sprint(e.At.Line))
				}
				evidence = append(evidence, e.At)
			}
			what = fmt.Sprintf("every path of %s exits before it runs a benchmark (line %s)", code(l.Launcher), prose.JoinAnd(uniq(lines)))
			fix = "Give the launcher a branch for this row (its model prefix, precision and framework), or run the row on a runner whose launcher has one; for a multi-node row, name its recipe in `CONFIG_FILE=` of `additional-settings`."
			if tried := triedPaths(l, nil); len(tried) > 0 {
				what = fmt.Sprintf("%s looks for %s, which does not exist, and exits (line %s)", code(l.Launcher), prose.JoinOr(tried), prose.JoinAnd(uniq(lines)))
				fix = "Add the script at that path, or correct the row's `model-prefix`, `precision`, `framework` or `spec-decoding` so the launcher computes an existing one."
			}
		}
	}
	file, line := primary(ch, changed, g.hits, evidence)
	if byRunner {
		if f, ln, ok := runnerLine(ch, m, g); ok {
			file, line = f, ln
		}
	}
	rows := rowNames(g.hits)
	body := fmt.Sprintf("%s cannot run on %s: %s. The job of %s fails there every time, before the benchmark starts. %s",
		code(g.key), machines, what, rows, fix)
	ex.Problem()
	ex.Printf("For %s of %s, %s.", rows, code(g.key), what)
	ex.Why()
	ex.Printf("The sweep schedules the job on any machine of label %s, and the launch step runs the launcher named after the machine. A launcher that fails on every path fails the job, and the row's points are never measured.", code(l.Group.Label))
	ex.Evidence()
	ex.Printf("The bot followed the row's job through the workflow template's env and %s on every path; the row and the lines that decide the failure are listed.", code(l.Launcher))
	ex.Note("How the launcher was followed")
	ex.Printf("Nothing is executed: the launcher is parsed and its assignments, tests and cases are evaluated over the env the job gets (%s), deciding `[ -f ... ]` against this PR's tree. Branches that depend on something the bot cannot know are all followed, and a path that runs anything the bot cannot name is not counted as a failure.", envSummary(l.LauncherEnv))
	ex.Fix()
	ex.Printf("%s", fix)
	f := checks.Finding{
		Path:    file,
		Line:    line,
		Title:   fmt.Sprintf("%s runs no benchmark on %s", code(g.key), code(l.Group.Name)),
		Body:    body,
		Related: sortedLocs(related),
		Key:     "PL001 " + g.key + " " + g.fp,
	}
	ex.Apply(&f)
	return f
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func uniq(xs []string) []string {
	slices.Sort(xs)
	return slices.Compact(xs)
}

// triedPaths are benchmark paths the launcher tested and found absent on
// the way to the missing ones (a framework-tagged name it prefers).
func triedPaths(l *Launch, missing []Target) []string {
	var out []string
	for p, s := range l.Result.Queries {
		if s.Exists || !IsBenchmark(p) || slices.ContainsFunc(missing, func(t Target) bool { return t.Run.Path == p }) {
			continue
		}
		out = append(out, code(p))
	}
	sort.Strings(out)
	return out
}

// sameNamed lists benchmark files elsewhere in the tree with the base name
// of p (a script moved to another directory).
func sameNamed(m *Model, p string) []string {
	var out []string
	entries, err := checks.Walk(m.ctx, m.tree, "benchmarks")
	if err != nil {
		return nil
	}
	base := path.Base(p)
	for _, e := range entries {
		if path.Base(e.Path) == base && e.Path != p {
			out = append(out, code(e.Path))
			if len(out) == 3 {
				break
			}
		}
	}
	return out
}

// envSummary names the deciding variables of a launcher's env.
func envSummary(env Env) string {
	var parts []string
	for _, k := range []string{"MODEL_PREFIX", "PRECISION", "FRAMEWORK", "SPEC_DECODING", "SCENARIO_SUBDIR", "EXP_NAME", "IS_MULTINODE", "CONFIG_FILE"} {
		if v, ok := env[k]; ok && v.Set && v.Known {
			parts = append(parts, code(k+"="+v.Str))
		}
	}
	if len(parts) == 0 {
		return "the row's fields"
	}
	return strings.Join(parts, ", ")
}

type origin struct {
	name string
	at   Loc
}

// inputOrigins are where the job's env sets the variables a run's path
// was computed from (the workflow template's lines).
func inputOrigins(l *Launch, run Run) []origin {
	var out []origin
	seen := map[string]bool{}
	for _, in := range run.Inputs {
		name := in
		if i := strings.IndexAny(in, "%#:"); i >= 0 {
			name = in[:i]
		}
		v, ok := l.LauncherEnv[name]
		if !ok || v.At.Line <= 0 || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, origin{name, v.At})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// runnerLine is the line of the key's `runner:` setting when every row of
// the key fails on the runner and the PR wrote that line (a new key, or a
// key moved to this runner): the one setting that decides the failure.
func runnerLine(ch *checks.Change, m *Model, g *keyGroup) (string, int, bool) {
	rows := m.Key(g.key)
	if len(rows) == 0 || len(g.hits) != len(rows) {
		return "", 0, false
	}
	k := rows[0].Key
	fc := changedFile(ch, rows[0].File)
	if k.Runner.Line <= 0 || fc == nil || !fc.IsAdded(k.Runner.Line) {
		return "", 0, false
	}
	return rows[0].File, k.Runner.Line, true
}
