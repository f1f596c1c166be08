package pipeline

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/schema"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var pl004 = &checks.Rule{
	ID:       "PL004",
	Severity: checks.Warning,
	Title:    "Row declares a setting its script never uses",
	Doc: "A single-node row's `ep`, `dp-attn`, `kv-offloading` and `spec-decoding` reach the job as `EP_SIZE`, " +
		"`DP_ATTENTION`, `KV_OFFLOADING`/`KV_OFFLOAD_BACKEND` and `SPEC_DECODING`. This rule reports a row that turns " +
		"such a feature on (`ep` above 1, `dp-attn: true`, KV offloading, speculative decoding) while nothing the " +
		"row runs uses the variable: the launcher does not pick the script by it, and the script neither tests it " +
		"nor passes it to a program (printing it does not count) nor hard-codes the feature. The row is then " +
		"benchmarked without the feature but published as having it. Either the script needs the feature (an " +
		"`EP_SIZE`-guarded `--enable-expert-parallel`, a DP-attention branch, ...), or the row should not declare it.",
	Run: runPL004,
}

// feature is a declarable setting and how a pipeline can honour it.
type feature struct {
	field  string
	active func(any) bool
	vars   []string
	// hard are spellings of the feature a script may hard-code.
	hard []string
}

var features = []feature{
	{"ep", func(v any) bool { n, ok := schema.ToInt(v, false); return ok && n > 1 }, []string{"EP_SIZE"},
		[]string{"expert-parallel", "expert_parallel", "--ep-size", "--ep_size", "--ep ", "ep_size", "enable_expert_parallel"}},
	{"dp-attn", func(v any) bool { return norm(v) == "true" }, []string{"DP_ATTENTION"},
		[]string{"dp-attention", "dp_attention", "attention_dp", "data-parallel", "data_parallel", "--dp-size", "--dp "}},
	{"kv-offloading", func(v any) bool { s := norm(v); return s != "false" && s != "none" }, []string{"KV_OFFLOADING", "KV_OFFLOAD_BACKEND", "TOTAL_CPU_DRAM_GB"},
		[]string{"kv-transfer-config", "kv_transfer_config", "hierarchical-cache", "hicache", "host_cache_size", "OffloadingConnector"}},
	{"spec-decoding", func(v any) bool { s := norm(v); return s != "false" && s != "none" }, []string{"SPEC_DECODING"},
		[]string{"speculative", "SPECULATIVE", "num_speculative_tokens", "--mtp"}},
}

// usesVar reports whether an evaluation depends on a variable through its
// value (a test, a case, a run's or a program's words), not just on
// whether it is set.
func usesVar(res *Result, name string) bool {
	if res == nil {
		return false
	}
	for k := range res.Reads {
		if k == name || strings.HasPrefix(k, name+"%") || strings.HasPrefix(k, name+"#") {
			return true
		}
	}
	for k := range res.Effects {
		if k == name || strings.HasPrefix(k, name+"%") || strings.HasPrefix(k, name+"#") {
			return true
		}
	}
	return false
}

// unused is a declared feature a launch never uses.
type unused struct {
	f      feature
	script string
	launch *Launch
}

func unusedFeatures(m *Model, r *Row) []unused {
	if r.Kind != SingleNode {
		return nil
	}
	var out []unused
	for _, l := range m.Resolve(r).Groups {
		if l.Result == nil || l.Result.Incomplete {
			continue
		}
		o := m.Outcome(l)
		if o.Unknown || o.Broken {
			continue
		}
		for _, t := range o.Targets {
			if !t.Exists || t.Run.Kind != RunScript {
				continue
			}
			// The script is evaluated only for a feature the launcher,
			// the script's text and its name leave unexplained: most rows
			// declare none, or hard-code what they declare.
			var res *Result
			evaluated := false
			src := m.text(t.Run.Path)
			for _, f := range features {
				v, ok := r.Row.Raw[f.field]
				if !ok || !f.active(v) {
					continue
				}
				used := strings.Contains(t.Run.Path, "_"+norm(v))
				for _, name := range f.vars {
					used = used || usesVar(l.Result, name)
				}
				for _, h := range f.hard {
					used = used || strings.Contains(src, h)
				}
				if used {
					continue
				}
				if !evaluated {
					evaluated = true
					var err error
					if res, err = m.EvalScript(t.Run); err != nil || res != nil && res.Incomplete {
						res = nil
					}
				}
				if res == nil {
					break // what the script does is not known
				}
				for _, name := range f.vars {
					used = used || usesVar(res, name)
				}
				if !used {
					out = append(out, unused{f: f, script: t.Run.Path, launch: l})
				}
			}
		}
	}
	return out
}

// text is a file's content ("" when unreadable).
func (m *Model) text(p string) string {
	b, err := m.tree.ReadFile(m.ctx, p)
	if err != nil {
		return ""
	}
	return string(b)
}

func pl004FPs(m *Model, r *Row) []string {
	var out []string
	for _, u := range unusedFeatures(m, r) {
		out = append(out, u.f.field+"|"+u.script)
	}
	return out
}

func runPL004(p *checks.Pass) error {
	a, head, rows, err := subjects(p)
	if err != nil || a == nil {
		return err
	}
	changed, _ := a.ChangedRows()
	var hits []rowHit
	detail := map[string]unused{}
	for _, r := range rows {
		for _, u := range unusedFeatures(head, r) {
			fp := u.f.field + "|" + u.script
			if baseHas(a, r, pl004FPs, fp) {
				continue
			}
			hits = append(hits, rowHit{row: r, fp: fp})
			detail[r.Key.Name+"\x00"+fp] = u
		}
	}
	for _, g := range groupByKey(hits) {
		u := detail[g.key+"\x00"+g.fp]
		r := g.hits[0].row
		file, line := r.File, lineOr(r.Row.LineOf(u.f.field), r.Row.Line)
		for _, h := range g.hits {
			if changed[h.row] {
				file, line = h.row.File, lineOr(h.row.Row.LineOf(u.f.field), h.row.Row.Line)
				break
			}
		}
		declared := fmt.Sprint(r.Row.Raw[u.f.field])
		vars := make([]string, len(u.f.vars))
		for i, v := range u.f.vars {
			vars[i] = code(v)
		}
		body := fmt.Sprintf("%s declares %s, but nothing the row runs uses %s: %s does not choose the script by it, and %s neither tests it nor passes it to a program. The points of %s run without the feature and are published with it. Use the variable in the script (as the sibling recipes do), or drop the setting from the row.",
			code(g.key), code(u.f.field+": "+declared), prose.JoinOr(vars), code(u.launch.Launcher), code(u.script), rowNames(g.hits))
		ex := &checks.Explain{}
		ex.Problem()
		ex.Printf("%s of %s %s %s, which reaches the job as %s. Neither %s nor %s reads it to decide anything or passes it to a program.",
			strings.ToUpper(rowNames(g.hits)[:1])+rowNames(g.hits)[1:], code(g.key), pick(len(g.hits), "declares", "declare"), code(u.f.field+": "+declared), prose.JoinOr(vars), code(u.launch.Launcher), code(u.script))
		ex.Why()
		ex.Printf("The declared value is part of how the points are labelled and compared; a server started without the feature measures another configuration.")
		ex.Note("How it was decided")
		ex.Printf("Both files were evaluated over the row's env; a variable counts as used when a test, a case, a run or the arguments of a program depend on its value (an `echo` does not), or when the script spells the feature out itself.")
		ex.Fix()
		ex.Printf("Make %s use %s, or remove %s from the row.", code(u.script), prose.JoinOr(vars), code(u.f.field))
		f := checks.Finding{
			Path:    file,
			Line:    line,
			Title:   fmt.Sprintf("%s: %s is never used by %s", code(g.key), code(u.f.field+": "+declared), code(u.script)),
			Body:    body,
			Related: []checks.Location{rowLoc(r, "declares "+code(u.f.field+": "+declared)), {Path: u.script, Line: 1, Note: "the script the row runs"}},
			Key:     "PL004 " + g.key + " " + g.fp,
		}
		ex.Apply(&f)
		p.Report(f)
	}
	return nil
}
