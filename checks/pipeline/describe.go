package pipeline

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// What `reviewbot pipeline` prints: for each row of a key, the job it
// becomes, the runners and launcher that run it, and the script or recipe
// it reaches with the values that flow in.

// RowReport describes one row's pipeline.
type RowReport struct {
	Key      string         `json:"key"`
	File     string         `json:"file"`
	Line     int            `json:"line"`
	Scenario string         `json:"scenario"`
	Fields   string         `json:"fields"`
	Job      string         `json:"job"`
	Template string         `json:"template"`
	Concs    []int          `json:"concurrencies"`
	Env      []VarReport    `json:"env"`
	Launches []LaunchReport `json:"launches"`
}

// VarReport is a variable the job gets and where it is set.
type VarReport struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	From  string `json:"from,omitempty"`
}

// LaunchReport is the row's job on a group of runner machines.
type LaunchReport struct {
	Label    string         `json:"label"`
	Runners  []string       `json:"runners"`
	Guessed  bool           `json:"guessed,omitempty"`
	Launcher string         `json:"launcher"`
	Error    string         `json:"error,omitempty"`
	Paths    int            `json:"paths"`
	Complete bool           `json:"complete"`
	Broken   bool           `json:"broken,omitempty"`
	Targets  []TargetReport `json:"targets"`
	Exits    []string       `json:"exits,omitempty"`
	Unknown  []string       `json:"unknown_runs,omitempty"`
	External []string       `json:"external_runs,omitempty"`
}

// TargetReport is a benchmark file a launch runs.
type TargetReport struct {
	Kind     string   `json:"kind"`
	Path     string   `json:"path"`
	Exists   bool     `json:"exists"`
	At       string   `json:"at"`
	From     []string `json:"computed_at,omitempty"`
	Gets     []string `json:"gets,omitempty"`
	Requires []string `json:"requires,omitempty"`
	Checks   []string `json:"checks,omitempty"`
	Uses     []string `json:"uses,omitempty"`
	Passes   []string `json:"passes,omitempty"`
	Recipe   []string `json:"recipe,omitempty"`
	// Commands are the servers and clients the script starts, with the
	// options it passes them (values as written).
	Commands []string `json:"commands,omitempty"`
	// Domain is, for the row variables that vary, the values they take
	// over every row that runs the file.
	Domain []string `json:"domain,omitempty"`
	Rows   int      `json:"rows_running_it,omitempty"`
}

// describedVars are the job variables a report lists (the ones a row's
// fields decide), in this order.
var describedVars = []string{"EXP_NAME", "MODEL", "MODEL_PREFIX", "IMAGE", "FRAMEWORK", "PRECISION", "SCENARIO_TYPE", "SCENARIO_SUBDIR",
	"TP", "EP_SIZE", "DP_ATTENTION", "SPEC_DECODING", "CONC", "CONC_LIST", "KV_OFFLOADING", "KV_OFFLOAD_BACKEND", "TOTAL_CPU_DRAM_GB",
	"PREFILL_NUM_WORKERS", "PREFILL_TP", "PREFILL_EP", "PREFILL_DP_ATTN", "DECODE_NUM_WORKERS", "DECODE_TP", "DECODE_EP", "DECODE_DP_ATTN",
	"CONFIG_FILE", "IS_MULTINODE"}

// Describe reports the rows of the keys matching pattern (a key or a
// shell glob), in file order.
func (m *Model) Describe(pattern string) []RowReport {
	var out []RowReport
	for _, r := range m.Rows {
		if ok, _ := path.Match(pattern, r.Key.Name); !ok && r.Key.Name != pattern {
			continue
		}
		out = append(out, m.describeRow(r))
	}
	return out
}

func (m *Model) describeRow(r *Row) RowReport {
	rep := RowReport{Key: r.Key.Name, File: r.File, Line: r.Row.Line, Scenario: r.Scenario.ID(), Concs: r.Concs,
		Template: m.Templates[r.Kind].Path, Fields: rowFields(r)}
	if r.Job != nil {
		rep.Job = fmt.Sprintf("%s (%s:%d)", r.Job.Name, SweepPath, r.Job.Line)
	} else {
		rep.Job = "(no sweep workflow: inputs are the matrix fields of the same names)"
	}
	res := m.Resolve(r)
	var env Env
	for _, l := range res.Groups {
		if l.LauncherEnv != nil {
			env = l.LauncherEnv
			break
		}
		if env == nil {
			env = l.Env
		}
	}
	for _, name := range describedVars {
		v, ok := env[name]
		if !ok || !v.Set {
			continue
		}
		rep.Env = append(rep.Env, VarReport{Name: name, Value: sheval.DescribeValue(v), From: v.At.String()})
	}
	for _, l := range res.Groups {
		rep.Launches = append(rep.Launches, m.describeLaunch(l))
	}
	return rep
}

// rowFields renders a row's own settings.
func rowFields(r *Row) string {
	var keys []string
	for k := range r.Row.Raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+": "+flat(r.Row.Raw[k]))
	}
	return strings.Join(parts, ", ")
}

func flat(v any) string {
	switch x := v.(type) {
	case map[string]any:
		var keys []string
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+": "+flat(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, flat(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func (m *Model) describeLaunch(l *Launch) LaunchReport {
	lr := LaunchReport{Label: l.Group.Label, Runners: l.Group.Names, Guessed: l.Group.Guessed, Launcher: l.Launcher}
	if l.Err != nil {
		lr.Error = l.Err.Error()
	}
	if l.Result == nil {
		if l.Launcher != "" && l.Err == nil {
			lr.Error = "not evaluated"
		}
		return lr
	}
	o := m.Outcome(l)
	lr.Paths, lr.Complete, lr.Broken = len(l.Result.Paths), !l.Result.Incomplete, launchBroken(m, l)
	for _, e := range o.Exits {
		lr.Exits = append(lr.Exits, fmt.Sprintf("%s (status %s)", e.At, e.Code))
	}
	lr.Exits = firstOfEach(lr.Exits)
	for _, p := range l.Result.Paths {
		for _, run := range p.Runs {
			switch {
			case run.External:
				lr.External = append(lr.External, fmt.Sprintf("%s %s at %s", run.Kind, run.Text, run.At))
			case run.Path == "" && !run.Known:
				lr.Unknown = append(lr.Unknown, fmt.Sprintf("%s at %s", run.Text, run.At))
			}
		}
	}
	lr.Unknown, lr.External = uniq(lr.Unknown), uniq(lr.External)
	for _, t := range o.Targets {
		tr := TargetReport{Kind: t.Run.Kind.String(), Path: t.Run.Path, Exists: t.Exists, At: t.Run.At.String()}
		for _, f := range t.Run.From {
			tr.From = append(tr.From, f.String())
		}
		for _, name := range describedVars {
			if v, ok := t.Run.Env[name]; ok && v.Set {
				tr.Gets = append(tr.Gets, name+"="+sheval.DescribeValue(v))
			}
		}
		if t.Exists && t.Run.Kind == RunScript {
			if res, err := m.EvalScript(t.Run); err == nil && res != nil {
				var reqs []string
				for _, p := range res.Paths {
					for _, q := range p.Reqs {
						reqs = append(reqs, fmt.Sprintf("%s missing (%s, %s)", q.Var, q.How, q.At))
					}
				}
				tr.Requires = uniq(reqs)
				var uses []string
				for _, name := range describedVars {
					if usesVar(res, name) {
						uses = append(uses, name)
					}
				}
				tr.Uses = uses
				// One line per check site: `check_env_vars A B C` at its line.
				sites := map[string][]string{}
				for name, q := range res.Checks {
					how := q.How
					if strings.HasPrefix(how, "${") {
						how = "${X:?}"
						if strings.HasSuffix(q.How, "?}") && !strings.HasSuffix(q.How, ":?}") {
							how = "${X?}"
						}
					}
					k := how + " at " + q.At.String()
					sites[k] = append(sites[k], name)
				}
				for k, names := range sites {
					sort.Strings(names)
					tr.Checks = append(tr.Checks, strings.Join(names, " ")+" ("+k+")")
				}
				sort.Strings(tr.Checks)
				for k := range res.Effects {
					if syntax.ValidName(k) {
						tr.Passes = append(tr.Passes, k)
					}
				}
				sort.Strings(tr.Passes)
			}
		}
		if t.Exists && t.Run.Kind == RunScript {
			if f, err := m.Facts(t.Run.Path); err == nil && f != nil {
				for _, c := range append(append([]*script.Command{}, f.Servers...), f.Clients...) {
					tr.Commands = append(tr.Commands, commandSummary(c))
				}
			}
			rows := m.Reachers(t.Run.Path)
			tr.Rows = len(rows)
			ds := domains(m, t.Run.Path, rows)
			// A row's job is one per concurrency; the runs carry the first.
			var concs []int
			for _, r := range rows {
				for _, c := range r.Concs {
					if !slices.Contains(concs, c) {
						concs = append(concs, c)
					}
				}
			}
			slices.Sort(concs)
			if len(concs) > 1 {
				var vals []string
				for _, c := range concs {
					vals = append(vals, fmt.Sprint(c))
				}
				ds["CONC"] = &domain{values: vals}
			}
			for _, name := range describedVars {
				if d := ds[name]; d != nil && len(d.values) > 1 && name != "EXP_NAME" {
					vals := d.values
					if len(vals) > 8 {
						vals = append(vals[:8:8], "…")
					}
					tr.Domain = append(tr.Domain, name+" {"+strings.Join(vals, ", ")+"}")
				}
			}
		}
		if t.Exists && t.Run.Kind == RunRecipe {
			if rec, err := m.Recipe(t.Run.Path); err == nil && rec != nil {
				tr.Recipe = recipeSummary(rec)
			}
		}
		lr.Targets = append(lr.Targets, tr)
	}
	return lr
}

func recipeSummary(rec *SrtRecipe) []string {
	var out []string
	var roles []string
	for n := range rec.Roles {
		roles = append(roles, n)
	}
	sort.Strings(roles)
	for _, n := range roles {
		r := rec.Roles[n]
		var parts []string
		add := func(label string, s Setting) {
			if s.Set() {
				parts = append(parts, fmt.Sprintf("%s %s", label, s.Value))
			}
		}
		add("workers", r.Workers)
		add("tp", r.TP)
		add("ep", r.EP)
		add("dp", r.DP)
		add("dp-attention", r.DPAttn)
		add("speculative", r.Spec)
		add("offload", r.Offload)
		out = append(out, n+": "+strings.Join(parts, ", "))
	}
	for _, s := range []struct {
		label string
		v     Setting
	}{{"model", rec.ModelPath}, {"container", rec.Container}, {"benchmark", rec.BenchType}, {"concurrencies", rec.Concurrencies}} {
		if s.v.Set() {
			out = append(out, fmt.Sprintf("%s: %s", s.label, s.v.Value))
		}
	}
	return out
}

// firstOfEach drops repeats, keeping the first of each in order.
func firstOfEach(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// commandSummary is a command with its options, each once, values cut
// short.
func commandSummary(c *script.Command) string {
	var parts []string
	seen := map[string]bool{}
	for _, f := range c.Flags {
		item := f.Name
		if f.HasValue {
			v := f.Value
			if len(v) > 48 {
				v = v[:45] + "…"
			}
			item += " " + v
		}
		if seen[item] {
			continue
		}
		seen[item] = true
		parts = append(parts, item)
	}
	line := c.Line
	if c.RunLine > 0 {
		line = c.RunLine
	}
	out := fmt.Sprintf("%s (line %d)", c.Program, line)
	if len(parts) > 0 {
		out += "; options over all its branches: " + strings.Join(parts, " ")
	}
	return out
}
