package pipeline

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/schema"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

var pl014 = &checks.Rule{
	ID:       "PL014",
	Severity: checks.Warning,
	Title:    "DP-attention row leaves out `ep`, which its script passes to the server",
	Doc: "A single-node row without `ep` runs with `EP_SIZE=1`. When the row turns on DP attention (`dp-attn: " +
		"true`, `tp` above 1) and its script hands `EP_SIZE` to the server's expert-parallel size (SGLang's " +
		"`--ep-size \"$EP_SIZE\"`, or vLLM's `--enable-expert-parallel` only when `EP_SIZE` is above 1), the " +
		"attention runs data-parallel while the MoE layers stay tensor-parallel: a layout the sibling rows do not " +
		"publish. This rule reports such a row the PR adds or changes when every other DP-attention row of the " +
		"same master config (at least five of them, of other keys) declares its `ep`, citing the ones of the same " +
		"framework. A row that writes `ep: 1` says the layout is meant and is left alone. Declare the `ep` the row " +
		"is meant to run with (the sibling rows pair DP attention with `ep` equal to `tp`), or write `ep: 1`.",
	Run: runPL014,
}

// pl014MinDeclared is how many other DP-attention rows of the file must
// declare their ep for the omission to break a convention.
const pl014MinDeclared = 5

// pl014Cited bounds the sibling rows a finding cites.
const pl014Cited = 3

// epFollowsEnv returns the server option by which a script hands EP_SIZE
// to the server, if any: an expert-parallel size whose value expands
// EP_SIZE, or an expert-parallel switch on a path that tests it.
func epFollowsEnv(f *script.Facts) (script.Flag, bool) {
	for _, srv := range f.Servers {
		for _, fl := range srv.Flags {
			switch script.NormFlag(fl.Name) {
			case "--ep-size", "--expert-parallel-size", "--ep":
				if strings.Contains(fl.Value, "EP_SIZE") {
					return fl, true
				}
			case "--enable-expert-parallel":
				if strings.Contains(fl.Branch.String(), "EP_SIZE") {
					return fl, true
				}
			}
		}
	}
	return script.Flag{}, false
}

// dpAttnNoEP reports whether a row turns DP attention on over more than
// one GPU and leaves ep out.
func dpAttnNoEP(r *Row) bool {
	if r.Kind != SingleNode || !truthyValue(r.Row.Raw["dp-attn"]) {
		return false
	}
	if _, ok := r.Row.Raw["ep"]; ok {
		return false
	}
	tp, ok := schema.ToInt(r.Row.Raw["tp"], false)
	return ok && tp > 1
}

// epFromEnv is a row's script that passes EP_SIZE to its server.
type epFromEnv struct {
	script string
	flag   script.Flag
}

func epFromEnvOf(m *Model, r *Row) []epFromEnv {
	if !dpAttnNoEP(r) {
		return nil
	}
	var out []epFromEnv
	for _, sc := range rowScripts(m, r) {
		if fl, ok := epFollowsEnv(sc.facts); ok {
			out = append(out, epFromEnv{script: sc.path, flag: fl})
		}
	}
	return out
}

func pl014FPs(m *Model, r *Row) []string {
	var out []string
	for _, e := range epFromEnvOf(m, r) {
		out = append(out, e.script)
	}
	return out
}

// dpAttnSiblings are the other keys' DP-attention rows of a file: those
// that declare ep, those of the same framework first, and whether any
// leaves it out.
func dpAttnSiblings(m *Model, r *Row) (declared []*Row, anyOmits bool) {
	var same, other []*Row
	for _, s := range m.Rows {
		if s.File != r.File || s.Key.Name == r.Key.Name || s.Kind != SingleNode || !truthyValue(s.Row.Raw["dp-attn"]) {
			continue
		}
		if _, ok := s.Row.Raw["ep"]; !ok {
			if tp, ok := schema.ToInt(s.Row.Raw["tp"], false); ok && tp > 1 {
				anyOmits = true
			}
			continue
		}
		if s.Key.Framework.Value == r.Key.Framework.Value {
			same = append(same, s)
		} else {
			other = append(other, s)
		}
	}
	return append(same, other...), anyOmits
}

func runPL014(p *checks.Pass) error {
	a, head, rows, err := subjects(p)
	if err != nil || a == nil {
		return err
	}
	changed, _ := a.ChangedRows()
	var hits []rowHit
	detail := map[string]epFromEnv{}
	for _, r := range rows {
		if !changed[r] || !dpAttnNoEP(r) {
			continue
		}
		for _, e := range epFromEnvOf(head, r) {
			if baseHas(a, r, pl014FPs, e.script) {
				continue
			}
			hits = append(hits, rowHit{row: r, fp: e.script})
			detail[r.Key.Name+"\x00"+e.script] = e
		}
	}
	for _, g := range groupByKey(hits) {
		e := detail[g.key+"\x00"+g.fp]
		r := g.hits[0].row
		declared, anyOmits := dpAttnSiblings(head, r)
		if anyOmits || len(declared) < pl014MinDeclared {
			continue
		}
		flag := e.flag.Name
		if e.flag.HasValue {
			flag += " " + e.flag.Value
		}
		related := []checks.Location{{Path: e.script, Line: e.flag.Line, Note: "passes EP_SIZE to the server"}}
		var cited []string
		for i, s := range declared {
			if i == pl014Cited {
				break
			}
			ep := fmt.Sprint(s.Row.Raw["ep"])
			related = append(related, rowLoc(s, fmt.Sprintf("%s: dp-attn with %s", code(s.Key.Name), code("ep: "+ep))))
			cited = append(cited, fmt.Sprintf("%s (%s, %s)", code(s.Key.Name), code(fmt.Sprint("tp: ", s.Row.Raw["tp"])), code("ep: "+ep)))
		}
		tp := fmt.Sprint(r.Row.Raw["tp"])
		body := fmt.Sprintf("%s turns on DP attention at %s without `ep` for %s, so the job runs with `EP_SIZE=1`, and %s sizes the server's expert parallelism from it "+
			"(%s, line %d): the attention runs data-parallel while the MoE layers stay tensor-parallel. Every other DP-attention row of %s "+
			"(%d of them) declares its `ep`, e.g. %s. Add %s if the experts are meant to be spread as the sibling rows spread them, "+
			"or write `ep: 1` to say this layout is meant.",
			code(g.key), code("tp: "+tp), rowNames(g.hits), code(e.script), code(flag), e.flag.Line, code(r.File), len(declared),
			strings.Join(cited, ", "), code("ep: "+tp))
		p.Report(checks.Finding{
			Path:    r.File,
			Line:    r.Row.Line,
			Title:   fmt.Sprintf("%s: DP-attention row without `ep` runs its MoE at `EP_SIZE=1`", code(g.key)),
			Body:    body,
			Related: append([]checks.Location{rowLoc(r, "dp-attn without ep")}, related...),
			Key:     "PL014 " + g.key + " " + g.fp,
		})
	}
	return nil
}
