package masterconfig

import (
	"fmt"
	"strconv"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var mc008 = &checks.Rule{
	ID:       "MC008",
	Severity: checks.Blocking,
	Title:    "Single-node row with an expert-parallel size larger than its GPUs",
	Doc: "A single-node row runs its engine on `tp` GPUs of one machine; with `dp-attn: true` those GPUs become " +
		"data-parallel attention ranks, and the expert-parallel group is made of the same GPUs. An `ep` larger than " +
		"`tp` names more GPUs than the job has: the engine either refuses to start, or (when the recipe derives its " +
		"expert parallelism from `tp`, as the DP-attention recipes do) runs at `ep = tp` while the result is labelled " +
		"with the larger `ep`. This rule reports a single-node row the PR adds or changes whose `ep` exceeds its `tp`; " +
		"multi-node rows, whose workers size their own pools, are left alone.",
	Run: runMC008,
}

func runMC008(p *checks.Pass) error {
	return eachKey(p, func(fs *fileState, ks *keyState) {
		if ks.key.Multinode || !ks.changed() {
			return
		}
		for _, s := range ks.key.Scenarios {
			for _, r := range s.Rows {
				tp, tpOK := strconv.Atoi(r.TP)
				ep, epOK := strconv.Atoi(r.EP)
				if !ks.rows[r] || tpOK != nil || epOK != nil || tp <= 0 || ep <= tp {
					continue
				}
				p.Report(mc008Finding(fs, ks, r, tp, ep))
			}
		}
	})
}

func mc008Finding(fs *fileState, ks *keyState, r *Row, tp, ep int) checks.Finding {
	line := r.LineOf("ep")
	if line == 0 {
		line = r.Line
	}
	// The evidence: rows of the file that use expert parallelism, and
	// whose ep fits their tp.
	var related []checks.Location
	fits := 0
	for _, k := range fs.head.Keys {
		if k.Multinode {
			continue
		}
		for _, s := range k.Scenarios {
			for _, o := range s.Rows {
				t, err1 := strconv.Atoi(o.TP)
				e, err2 := strconv.Atoi(o.EP)
				if err1 != nil || err2 != nil || e <= 1 || e > t || o == r {
					continue
				}
				fits++
				if len(related) < 3 {
					related = append(related, checks.Location{Path: fs.path, Line: o.Line, Side: checks.Head,
						Note: fmt.Sprintf("%s: tp %d, ep %d", prose.Code(k.Name), t, e)})
				}
			}
		}
	}
	dp := ""
	if r.DPAttn == "true" {
		dp = fmt.Sprintf(" With `dp-attn: true` the %d GPUs become %d data-parallel attention ranks; the experts are still spread over those %d GPUs.", tp, tp, tp)
	}
	body := fmt.Sprintf("This single-node row of %s sets `ep: %d` with `tp: %d`: the job runs on %d GPUs, and an expert-parallel group of %d cannot be formed on them.%s "+
		"The engine either refuses the size, or runs at ep %d while the result is labelled ep %d. Set `ep` to %d (or 1), or raise `tp` to %d.",
		prose.Code(ks.key.Name), ep, tp, tp, ep, dp, tp, ep, tp, ep)
	ex := &checks.Explain{}
	ex.Problem()
	ex.Printf("%s asks for an expert-parallel size of %d on a single-node job of %d GPUs.%s", prose.Code(ks.key.Name), ep, tp, dp)
	ex.Why()
	ex.Printf("The sweep records the row's `ep` with its results. A job that cannot build the group fails at start-up; one whose recipe derives the expert-parallel size from `tp` (the DP-attention recipes pass `--data-parallel-size=$TP` with expert parallelism on) measures ep %d under an ep %d label, and the point compares against the wrong configuration.", tp, ep)
	if fits > 0 {
		ex.Evidence()
		ex.Printf("%s of %s use expert parallelism within their `tp`.", prose.Count(fits, "other single-node row", "other single-node rows"), prose.Code(fs.path))
	}
	ex.Fix()
	ex.Printf("Set `ep` to %d (or 1), or raise `tp` to %d if %d GPUs were meant.", tp, ep, ep)
	f := checks.Finding{
		Path:    fs.path,
		Line:    line,
		Title:   fmt.Sprintf("%s: `ep: %d` exceeds `tp: %d` on a single-node row", prose.Code(ks.key.Name), ep, tp),
		Body:    body,
		Related: related,
		Key:     fmt.Sprintf("MC008 %s tp%d ep%d dp%s", ks.key.Name, tp, ep, r.DPAttn),
	}
	ex.Apply(&f)
	return f
}
