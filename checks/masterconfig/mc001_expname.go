package masterconfig

import (
	"fmt"
	"sort"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var mc001 = &checks.Rule{
	ID:       "MC001",
	Severity: checks.Warning,
	Title:    "Two search-space rows of one agentic config get the same exp-name",
	Doc: "The sweep generator names every single-node agentic-coding point " +
		"`{model-prefix}_tp{tp}_conc{conc}_{kv}` (plus `_spec-{spec}` when speculative decoding is on), " +
		"where `{kv}` is `kvnone` or `kv{kv-offloading}-{backend}`. `ep` and `dp-attn` are not part of the name, " +
		"so two rows of one config key that share tp, a concurrency, the KV setting and spec-decoding " +
		"(for example a TP4 arm and a DEP4 arm) produce the same exp-name for two different deployments, " +
		"and selecting a point by exp-name matches both rows. The rule reports a row this PR adds or changes " +
		"and names the other row. Fix it by giving one row different concurrencies or a different tp. " +
		"Fixed-seq-len and multinode rows are not judged: their points are not named by this formula.",
	Run: runMC001,
}

func runMC001(p *checks.Pass) error {
	return eachKey(p, func(fs *fileState, ks *keyState) {
		reportCollisions(p, fs, ks)
	})
}

type namedRow struct {
	row     *Row
	changed bool
}

func reportCollisions(p *checks.Pass, fs *fileState, ks *keyState) {
	k := ks.key
	prefix := k.ModelPrefix.Value
	// The repository fixes the naming of single-node agentic points only (MC001
	// was made for a DEP arm named like a TP arm): guessing the fixed-seq-len form would
	// produce findings nobody can verify, and multinode points are named
	// after their prefill/decode pools.
	if k.Malformed || k.Multinode || prefix == "" {
		return
	}
	anyChanged := false
	var rows []namedRow
	for _, s := range k.Scenarios {
		if s.Kind != AgenticCoding {
			continue
		}
		for _, r := range s.Rows {
			if r.TP == "" || len(r.Conc) == 0 || r.Prefill != nil || r.Decode != nil {
				continue
			}
			rows = append(rows, namedRow{r, ks.rows[r]})
			anyChanged = anyChanged || ks.rows[r]
		}
	}
	if !anyChanged {
		return
	}
	byName := map[string][]int{}
	var order []string
	for i, nr := range rows {
		for _, c := range nr.row.Conc {
			n := ExpName(prefix, nr.row, c)
			if len(byName[n]) == 0 {
				order = append(order, n)
			}
			if l := byName[n]; len(l) == 0 || l[len(l)-1] != i {
				byName[n] = append(l, i)
			}
		}
	}
	type pair struct{ a, b int }
	shared := map[pair][]string{}
	var pairs []pair
	for _, n := range order {
		idx := byName[n]
		for x := 0; x < len(idx); x++ {
			for y := x + 1; y < len(idx); y++ {
				pr := pair{idx[x], idx[y]}
				if !rows[pr.a].changed && !rows[pr.b].changed {
					continue
				}
				if _, ok := shared[pr]; !ok {
					pairs = append(pairs, pr)
				}
				shared[pr] = append(shared[pr], n)
			}
		}
	}
	for _, pr := range pairs {
		// Report on the changed row; when both changed, on the later one.
		at, other := rows[pr.b], rows[pr.a]
		if !at.changed {
			at, other = other, at
		}
		names := shared[pr]
		p.Report(collisionFinding(fs, k, at.row, other.row, names))
	}
}

func collisionFinding(fs *fileState, k *Key, at, other *Row, names []string) checks.Finding {
	var concs []int
	for _, c := range at.Conc {
		for _, n := range names {
			if n == ExpName(k.ModelPrefix.Value, at, c) {
				concs = append(concs, c)
			}
		}
	}
	sort.Ints(concs)
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = prose.Code(n)
	}
	what := "exp-name " + quoted[0]
	if len(names) > 1 {
		what = "exp-names " + prose.JoinAnd(quoted)
	}
	kv := "no KV offload"
	if off := at.KVOffloading; off != "" && !strings.EqualFold(off, "none") {
		kv = "KV offload " + prose.Code(off+"/"+at.KVBackend)
	}
	spec := "no speculative decoding"
	if s := at.SpecDecoding; s != "" && !strings.EqualFold(s, "none") {
		spec = "spec-decoding " + prose.Code(s)
	}
	msg := fmt.Sprintf("This row of %s (%s, %s) and the row at %s (%s) share tp %s, concurrency %s, %s and %s, "+
		"so both produce the %s. The sweep generator builds an agentic exp-name from model-prefix, tp, conc, KV offload and "+
		"spec-decoding only — ep and dp-attn are not part of it — so these two different deployments get one name and "+
		"targeted selection by exp-name breaks: selecting either point matches both rows. Fix: change one row's concurrencies or tp so the names differ.",
		prose.Code(k.Name), describeRow(at), prose.CodeAt(fs.path, at.Line), prose.CodeAt(fs.path, other.Line), describeRow(other),
		prose.Code(at.TP), prose.JoinAnd(intStrings(concs)), kv, spec, what)

	e := &checks.Explain{}
	w := e.Printf
	e.Why()
	w("For a single-node agentic-coding point the sweep generator's exp-name is ")
	w("`{model-prefix}_tp{tp}_conc{conc}_{kv}` plus `_spec-{spec}` when spec-decoding is not `none`, where `{kv}` is ")
	w("`kvnone` or `kv{kv-offloading}-{backend name}`. Two rows that differ only in `ep`, `dp-attn`, the router or other ")
	w("settings outside that formula are two deployments with one name.")
	e.Step()
	w("%s expands to conc %s.", prose.CodeAt(fs.path, other.Line), concSummary(other.Conc))
	e.Step()
	w("%s expands to conc %s.", prose.CodeAt(fs.path, at.Line), concSummary(at.Conc))
	e.Step()
	w("Both rows have tp %s, %s and %s, so at conc %s both are named:\n", prose.Code(at.TP), kv, spec, prose.JoinAnd(intStrings(concs)))
	for _, n := range names {
		w("   - %s\n", prose.Code(n))
	}
	e.Step()
	w("Selecting one of these points by exp-name matches two rows, so targeted selection by exp-name breaks for them, ")
	w("and results filed under the name cannot be told apart.")
	e.Fix()
	w("Give one of the two rows concurrencies the other does not use, or a different tp, so every ")
	w("point of the key has its own name.")

	f := checks.Finding{
		Path:    fs.path,
		Line:    at.Line,
		EndLine: at.EndLine,
		Title:   fmt.Sprintf("exp-name collision in %s: %s", prose.Code(k.Name), collisionTitle(names)),
		Body:    msg,
		Related: []checks.Location{{Path: fs.path, Line: other.Line, EndLine: other.EndLine,
			Note: "row with the same exp-names: " + describeRow(other)}},
		Key: "MC001 " + k.Name + " " + strings.Join(names, " "),
	}
	e.Apply(&f)
	return f
}

func collisionTitle(names []string) string {
	if len(names) == 1 {
		return prose.Code(names[0])
	}
	return fmt.Sprintf("%s and %d more", prose.Code(names[0]), len(names)-1)
}

// describeRow summarizes a row by the settings that tell arms apart.
func describeRow(r *Row) string {
	parts := []string{"tp " + prose.Code(r.TP)}
	if r.EP != "" {
		parts = append(parts, "ep "+prose.Code(r.EP))
	}
	if r.DPAttn != "" {
		parts = append(parts, "dp-attn "+prose.Code(r.DPAttn))
	}
	if r.KVOffloading != "" {
		kv := "kv-offloading " + prose.Code(r.KVOffloading)
		if r.KVBackend != "" {
			kv += " (" + prose.Code(r.KVBackend) + ")"
		}
		parts = append(parts, kv)
	}
	if r.SpecDecoding != "" {
		parts = append(parts, "spec-decoding "+prose.Code(r.SpecDecoding))
	}
	parts = append(parts, "conc "+concSummary(r.Conc))
	return strings.Join(parts, ", ")
}

func concSummary(c []int) string {
	if len(c) <= 8 {
		return "[" + strings.Join(intStrings(c), ", ") + "]"
	}
	return fmt.Sprintf("[%d, %d, …, %d] (%d points)", c[0], c[1], c[len(c)-1], len(c))
}

func intStrings(c []int) []string {
	out := make([]string, len(c))
	for i, v := range c {
		out[i] = itoa(v)
	}
	return out
}
