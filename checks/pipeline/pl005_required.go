package pipeline

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var pl005 = &checks.Rule{
	ID:       "PL005",
	Severity: checks.Blocking,
	Title:    "Script requires a variable its job never sets",
	Doc: "A launcher or benchmark script that requires a variable (`${X:?}`, `check_env_vars X`, or a bare `$X` under " +
		"`set -u`) stops when it is unset. This rule follows each row's job with the env the workflow template gives " +
		"it, through the launcher (its exports, its `srun --export` and `docker run -e` lists) into the script, and " +
		"reports a variable that is required on the row's path and set by nothing: not the workflow, not the " +
		"launcher, not the row's `additional-settings`. Only variables the pipeline knows (those the templates, the " +
		"launchers or `.github/reviewbot.yml` set somewhere) are judged; a runner machine's own variables are " +
		"declared under `pipeline.runner-env`. Only paths the row's env decides are followed, so a requirement " +
		"behind a test the bot cannot decide is not reported.",
	Run: runPL005,
}

// missing is a requirement a row's job does not meet.
type missing struct {
	req    Req
	launch *Launch
	script string // "" for the launcher itself
}

func (x missing) fp() string { return x.req.Var + "|" + x.req.At.File }

// known are the variables the pipeline sets somewhere: the templates' env,
// the built-in table, the configuration, and every launcher's assignments.
func (m *Model) known() map[string]bool {
	m.st.mu.Lock()
	defer m.st.mu.Unlock()
	if m.st.vocab != nil {
		return m.st.vocab
	}
	v := map[string]bool{}
	for _, t := range append([]*Template{m.Templates[SingleNode], m.Templates[MultiNode]}, builtinTemplates[SingleNode], builtinTemplates[MultiNode]) {
		for _, d := range t.Env {
			v[d.Var] = true
		}
		if t.Launch != nil {
			for _, d := range t.Launch.Env {
				v[d.Var] = true
			}
		}
	}
	for _, l := range m.Launchers {
		f, err := m.files.Parse(l)
		if err != nil {
			continue
		}
		syntax.Walk(f, func(n syntax.Node) bool {
			if a, ok := n.(*syntax.Assign); ok && a.Name != nil {
				v[a.Name.Value] = true
			}
			return true
		})
	}
	for _, r := range m.Rows {
		for _, pool := range []string{"prefill", "decode"} {
			w, _ := r.Row.Raw[pool].(map[string]any)
			list, _ := w["additional-settings"].([]any)
			for _, s := range list {
				if k, _, ok := strings.Cut(fmt.Sprint(s), "="); ok {
					v[k] = true
				}
			}
		}
	}
	m.st.vocab = v
	return v
}

func requirements(m *Model, r *Row) []missing {
	known := m.known()
	var out []missing
	seen := map[string]bool{}
	add := func(x missing) {
		if !x.req.Certain || !known[x.req.Var] || seen[x.fp()] {
			return
		}
		seen[x.fp()] = true
		out = append(out, x)
	}
	for _, l := range m.Resolve(r).Groups {
		if l.Result == nil {
			continue
		}
		for _, p := range l.Result.Paths {
			for _, q := range p.Reqs {
				add(missing{req: q, launch: l})
			}
		}
		for _, t := range m.Outcome(l).Targets {
			if !t.Exists || t.Run.Kind != RunScript || !t.Run.Certain {
				continue
			}
			res, err := m.EvalScript(t.Run)
			if err != nil || res == nil {
				continue
			}
			for _, p := range res.Paths {
				for _, q := range p.Reqs {
					add(missing{req: q, launch: l, script: t.Run.Path})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].fp() < out[j].fp() })
	return out
}

// requiredRuns are the runs requirements evaluates for rows, in its
// order.
func requiredRuns(m *Model, rows []*Row) []Run {
	var out []Run
	for _, r := range rows {
		for _, l := range m.Resolve(r).Groups {
			if l.Result == nil {
				continue
			}
			for _, t := range m.Outcome(l).Targets {
				if t.Exists && t.Run.Kind == RunScript && t.Run.Certain {
					out = append(out, t.Run)
				}
			}
		}
	}
	return out
}

func pl005FPs(m *Model, r *Row) []string {
	var out []string
	for _, x := range requirements(m, r) {
		out = append(out, x.fp())
	}
	return out
}

func runPL005(p *checks.Pass) error {
	a, head, rows, err := subjects(p)
	if err != nil || a == nil {
		return err
	}
	changed, _ := a.ChangedRows()
	head.EvalScripts(requiredRuns(head, rows))
	var hits []rowHit
	detail := map[string]missing{}
	for _, r := range rows {
		for _, x := range requirements(head, r) {
			if baseHas(a, r, pl005FPs, x.fp()) {
				continue
			}
			hits = append(hits, rowHit{row: r, fp: x.fp()})
			detail[r.Key.Name+"\x00"+x.fp()] = x
		}
	}
	// One finding per requirement, citing the keys that miss it.
	byReq := map[string][]*keyGroup{}
	var order []string
	for _, g := range groupByKey(hits) {
		if _, ok := byReq[g.fp]; !ok {
			order = append(order, g.fp)
		}
		byReq[g.fp] = append(byReq[g.fp], g)
	}
	for _, fp := range order {
		gs := byReq[fp]
		x := detail[gs[0].key+"\x00"+fp]
		p.Report(pl005Finding(p.Change, changed, x, gs))
	}
	return nil
}

func pl005Finding(ch *checks.Change, changed map[*Row]bool, x missing, gs []*keyGroup) checks.Finding {
	var keys []string
	var related []checks.Location
	var allHits []rowHit
	for _, g := range gs {
		keys = append(keys, code(g.key))
		allHits = append(allHits, g.hits...)
		if len(related) < maxRowsCited {
			related = append(related, rowLoc(g.hits[0].row, "row of "+code(g.key)+", whose script does not get "+code(x.req.Var)))
		}
	}
	if len(keys) > maxRowsCited {
		keys = append(keys[:maxRowsCited], fmt.Sprintf("%d more", len(keys)-maxRowsCited))
	}
	file, line := x.req.At.File, x.req.At.Line
	if fc := changedFile(ch, file); fc == nil || !fc.IsAdded(line) {
		for _, h := range allHits {
			if changed[h.row] {
				file, line = h.row.File, h.row.Row.Line
				break
			}
		}
	}
	related = append(related, loc(x.req.At, "requires "+x.req.Var+" ("+x.req.How+")"))
	where := code(path.Base(x.req.At.File))
	if x.script != "" {
		related = append(related, loc(firstRunOf(x), "runs "+x.script))
	}
	body := fmt.Sprintf("%s requires `%s` (%s, line %d), but the job of %s never sets it: not the workflow, not %s, not the row's additional-settings. The run stops there, before the benchmark. Set `%s` for these jobs (in the workflow template, the launcher, or `additional-settings`), or give it a default (`${%s:-...}`).",
		where, x.req.Var, x.req.How, x.req.At.Line, prose.JoinAnd(keys), code(x.launch.Launcher), x.req.Var, x.req.Var)
	if v, ok := x.launch.LauncherEnv[x.req.Var]; ok && v.Set && x.script != "" {
		// The job has it; the launcher's container does not get it.
		if v.At.Line > 0 {
			related = append(related, loc(v.At, "sets "+x.req.Var+" for the job"))
		}
		body = fmt.Sprintf("%s requires `%s` (%s, line %d). The job of %s has it, but %s does not hand it to the script: the container it starts gets only the variables it passes (%s). The run stops there, before the benchmark. Pass `%s` into the container (`-e %s`), or give it a default in the script (`${%s:-...}`).",
			where, x.req.Var, x.req.How, x.req.At.Line, prose.JoinAnd(keys), code(x.launch.Launcher), passedSummary(x), x.req.Var, x.req.Var, x.req.Var)
	}
	ex := &checks.Explain{}
	ex.Problem()
	ex.Printf("%s line %d requires `%s` (%s). On the path the rows' env decides, nothing sets it before that line.", code(x.req.At.File), x.req.At.Line, x.req.Var, x.req.How)
	ex.Why()
	ex.Printf("`${X:?}`, `check_env_vars` and `set -u` stop the script when the variable is unset: every point of these rows fails on %s.", code(x.launch.Group.Label))
	ex.Evidence()
	ex.Printf("The rows, the requirement and the launch that hands over the env:")
	ex.Note("Where a job's variables come from")
	ex.Printf("The workflow template's env block and its launch step (read from the tree, or the built-in table), the row's `additional-settings`, the launcher's exports on the row's path, and what `srun --export` or `docker run -e` pass into the container. %s passes: %s.", code(x.launch.Launcher), passedSummary(x))
	ex.Fix()
	ex.Printf("Set `%s` where the job gets its env, or make the script default it.", x.req.Var)
	f := checks.Finding{
		Path:    file,
		Line:    line,
		Title:   fmt.Sprintf("%s requires %s, which its job does not get", code(path.Base(x.req.At.File)), code(x.req.Var)),
		Body:    body,
		Related: sortedLocs(related),
		Key:     "PL005 " + x.fp(),
	}
	ex.Apply(&f)
	return f
}

// firstRunOf is where the launcher runs the requirement's script.
func firstRunOf(x missing) Loc {
	if x.launch.Result != nil {
		for _, p := range x.launch.Result.Paths {
			for _, r := range p.Runs {
				if r.Path == x.script {
					return r.At
				}
			}
		}
	}
	return Loc{File: x.launch.Launcher}
}

// passedSummary names a few of the variables the run gets.
func passedSummary(x missing) string {
	if x.script == "" || x.launch.Result == nil {
		return "the job's env"
	}
	for _, p := range x.launch.Result.Paths {
		for _, r := range p.Runs {
			if r.Path == x.script {
				names := r.Env.Names()
				if len(names) > 12 {
					return fmt.Sprintf("%d variables, not %s", len(names), x.req.Var)
				}
				quoted := slices.Clone(names)
				for i := range quoted {
					quoted[i] = code(quoted[i])
				}
				return prose.JoinAnd(quoted)
			}
		}
	}
	return "the job's env"
}
