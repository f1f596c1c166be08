package masterconfig

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var mc011 = &checks.Rule{
	ID:       "MC011",
	Severity: checks.Warning,
	Title:    "Concurrency list skips a point its twin row in another sequence length runs",
	Doc: "Rows of one config key that differ only in their scenario block's sequence lengths (the 1k1k and the " +
		"8k1k arm of one topology: the same `tp`, `ep`, `dp-attn`, spec-decoding and worker pools) are usually " +
		"swept over the same concurrencies, so that the two curves can be read side by side. This rule reports a " +
		"`conc-list` the PR adds or changes that runs every concurrency of its twin's within its own range but one " +
		"or two, a gap in the curve that is most often a value lost while copying the list. The recipe selection " +
		"(`additional-settings`) is not compared: the twins name their own recipes. Add the point; if it is left out " +
		"on purpose (it fails, or is known to be off the Pareto front), say why with a `# reviewbot:ignore MC011 " +
		"<reason>` comment on the row.",
	Run: runMC011,
}

// twinID identifies a row's topology apart from its block's sequence
// lengths: the scenario kind and the row's settings other than its
// concurrencies and its pools' additional-settings.
func twinID(s *Scenario, r *Row) (string, bool) {
	rest := make(map[string]any, len(r.Raw))
	for k, v := range r.Raw {
		if concKeys[k] {
			continue
		}
		if pool, ok := v.(map[string]any); ok && (k == "prefill" || k == "decode") {
			p := make(map[string]any, len(pool))
			for pk, pv := range pool {
				if pk != "additional-settings" {
					p[pk] = pv
				}
			}
			v = p
		}
		rest[k] = v
	}
	b, err := json.Marshal([]any{s.Kind, rest})
	if err != nil {
		return "", false
	}
	return string(b), true
}

// maxTwinRows bounds the rows of one key compared pairwise.
const maxTwinRows = 256

// concGap is the concurrencies a row skips that its twin runs.
type concGap struct {
	row, twin *Row
	tb        *Scenario
	missing   []int
}

func concGaps(k *Key, changed map[*Row]bool) []concGap {
	type entry struct {
		s  *Scenario
		r  *Row
		id string
	}
	var rows []entry
	for _, s := range k.Scenarios {
		for _, r := range s.Rows {
			if len(rows) == maxTwinRows {
				return nil
			}
			if id, ok := twinID(s, r); ok && len(r.Conc) > 0 {
				rows = append(rows, entry{s, r, id})
			}
		}
	}
	var out []concGap
	for _, e := range rows {
		if !changed[e.r] || e.r.Raw["conc-list"] == nil || len(e.r.Conc) < 3 {
			continue
		}
		own := slices.Sorted(slices.Values(e.r.Conc))
		lo, hi := own[0], own[len(own)-1]
		for _, o := range rows {
			if o.s == e.s || o.id != e.id || o.s.ISL == e.s.ISL && o.s.OSL == e.s.OSL {
				continue
			}
			var missing []int
			covers := true
			for _, c := range own {
				if !slices.Contains(o.r.Conc, c) {
					covers = false
					break
				}
			}
			if !covers {
				continue
			}
			for _, c := range o.r.Conc {
				if c > lo && c < hi && !slices.Contains(own, c) && !slices.Contains(missing, c) {
					missing = append(missing, c)
				}
			}
			if len(missing) > 0 && len(missing) <= 2 {
				slices.Sort(missing)
				out = append(out, concGap{row: e.r, twin: o.r, tb: o.s, missing: missing})
				break
			}
		}
	}
	return out
}

func runMC011(p *checks.Pass) error {
	return eachKey(p, func(fs *fileState, ks *keyState) {
		k := ks.key
		if k.Malformed || !ks.changed() {
			return
		}
		for _, g := range concGaps(k, ks.rows) {
			p.Report(mc011Finding(fs, k, g))
		}
	})
}

func mc011Finding(fs *fileState, k *Key, g concGap) checks.Finding {
	miss := prose.JoinAnd(intStrings(g.missing))
	twin := fmt.Sprintf("%dk%dk", g.tb.ISL/1024, g.tb.OSL/1024)
	if g.tb.ISL%1024 != 0 || g.tb.OSL%1024 != 0 {
		twin = fmt.Sprintf("isl %d / osl %d", g.tb.ISL, g.tb.OSL)
	}
	line := g.row.LineOf("conc-list")
	if line == 0 {
		line = g.row.Line
	}
	msg := fmt.Sprintf("This `conc-list` of %s runs %s and skips conc %s, which its %s twin at %s (the same topology) "+
		"runs: the curve has a gap there. Add the point; if it is left out on purpose, say why in a "+
		"`# reviewbot:ignore MC011 <reason>` comment on the row.", prose.Code(k.Name), concSummary(g.row.Conc), miss, twin, prose.CodeAt(fs.path, g.twin.Line))
	f := checks.Finding{
		Path:    fs.path,
		Line:    line,
		Title:   fmt.Sprintf("%s skips conc %s that its %s twin runs", prose.Code(k.Name), miss, twin),
		Body:    msg,
		Related: []checks.Location{{Path: fs.path, Line: g.twin.Line, EndLine: g.twin.EndLine, Note: "twin row runs " + strings.ReplaceAll(concSummary(g.twin.Conc), "`", "")}},
		Key:     "MC011 " + k.Name + " " + strings.Join(intStrings(g.missing), ","),
	}
	return f
}
