package pipeline

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/schema"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

var pl009 = &checks.Rule{
	ID:       "PL009",
	Severity: checks.Warning,
	Title:    "Row declares no expert parallelism, its script always turns it on",
	Doc: "A single-node row's `ep` (1 when the row leaves it out) is how its points are labelled. This rule reports " +
		"a row with `tp` above 1 and `ep` 1 whose script starts the server with expert parallelism on every path, " +
		"whatever `EP_SIZE` says: vLLM's and ATOM's `--enable-expert-parallel` outside any `EP_SIZE` test (the " +
		"experts are then spread over all TP×DP ranks), or SGLang's `--ep-size` / `--expert-parallel-size` with a " +
		"fixed value above 1. The points run expert-parallel and are published as `ep: 1`. Declare the `ep` the " +
		"server runs with, or turn the flag on only when `EP_SIZE` is above 1, as the sibling recipes do.",
	Run: runPL009,
}

// forcedEP returns the first server option of a script that turns expert
// parallelism on unconditionally, if any.
func forcedEP(f *script.Facts) (script.Flag, bool) {
	for _, srv := range f.Servers {
		for _, fl := range srv.Flags {
			if !fl.Branch.Unconditional() || strings.Contains(fl.Value, "EP_SIZE") {
				continue
			}
			switch script.NormFlag(fl.Name) {
			case "--enable-expert-parallel":
				if srv.Engine == script.VLLM || srv.Engine == script.ATOM {
					return fl, true
				}
			case "--ep-size", "--expert-parallel-size":
				if n, ok := schema.ToInt(fl.Value, false); srv.Engine == script.SGLang && fl.Static && ok && n > 1 {
					return fl, true
				}
			}
		}
	}
	return script.Flag{}, false
}

// rowScript is a script a row's jobs run, with its facts.
type rowScript struct {
	path  string
	facts *script.Facts
}

// rowScripts are the scripts a row's jobs run on the paths the model
// follows to an end (each once, in the order found), skipping outcomes it
// could not decide and scripts it could not read.
func rowScripts(m *Model, r *Row) []rowScript {
	var out []rowScript
	seen := map[string]bool{}
	for _, l := range m.Resolve(r).Groups {
		if l.Result == nil {
			continue
		}
		o := m.Outcome(l)
		if o.Unknown || o.Broken {
			continue
		}
		for _, t := range o.Targets {
			if !t.Exists || t.Run.Kind != RunScript || seen[t.Run.Path] {
				continue
			}
			seen[t.Run.Path] = true
			if f, err := m.Facts(t.Run.Path); err == nil && f != nil {
				out = append(out, rowScript{t.Run.Path, f})
			}
		}
	}
	return out
}

// epForced is a row's script that forces expert parallelism.
type epForced struct {
	script string
	flag   script.Flag
}

func forcedEPOf(m *Model, r *Row) []epForced {
	if r.Kind != SingleNode {
		return nil
	}
	if ep, ok := r.Row.Raw["ep"]; ok {
		if n, ok := schema.ToInt(ep, false); !ok || n > 1 {
			return nil
		}
	}
	if tp, ok := schema.ToInt(r.Row.Raw["tp"], false); !ok || tp <= 1 {
		return nil
	}
	var out []epForced
	for _, sc := range rowScripts(m, r) {
		if fl, ok := forcedEP(sc.facts); ok {
			out = append(out, epForced{script: sc.path, flag: fl})
		}
	}
	return out
}

func pl009FPs(m *Model, r *Row) []string {
	var out []string
	for _, e := range forcedEPOf(m, r) {
		out = append(out, e.script)
	}
	return out
}

func runPL009(p *checks.Pass) error {
	a, head, rows, err := subjects(p)
	if err != nil || a == nil {
		return err
	}
	changed, _ := a.ChangedRows()
	var hits []rowHit
	detail := map[string]epForced{}
	for _, r := range rows {
		for _, e := range forcedEPOf(head, r) {
			if baseHas(a, r, pl009FPs, e.script) {
				continue
			}
			hits = append(hits, rowHit{row: r, fp: e.script})
			detail[r.Key.Name+"\x00"+e.script] = e
		}
	}
	for _, g := range groupByKey(hits) {
		e := detail[g.key+"\x00"+g.fp]
		r := g.hits[0].row
		for _, h := range g.hits {
			if changed[h.row] {
				r = h.row
				break
			}
		}
		flag := e.flag.Name
		if e.flag.HasValue {
			flag += " " + e.flag.Value
		}
		body := fmt.Sprintf("%s declares no expert parallelism for %s (`ep` is 1 when a row leaves it out), but %s passes %s on every path (line %d), "+
			"whatever `EP_SIZE` is: the server runs expert-parallel and the points are published as `ep: 1`. Declare the `ep` the server "+
			"runs with, or pass the option only when `EP_SIZE` is above 1, as the sibling recipes do.",
			code(g.key), rowNames(g.hits), code(e.script), code(flag), e.flag.Line)
		f := checks.Finding{
			Path:  r.File,
			Line:  r.Row.Line,
			Title: fmt.Sprintf("%s: rows at `ep: 1` run %s", code(g.key), code(flag)),
			Body:  body,
			Related: []checks.Location{rowLoc(r, "declares no ep"),
				{Path: e.script, Line: e.flag.Line, Note: "passes " + e.flag.Name + " unconditionally"}},
			Key: "PL009 " + g.key + " " + g.fp,
		}
		p.Report(f)
	}
	return nil
}
