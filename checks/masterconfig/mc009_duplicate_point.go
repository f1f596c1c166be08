package masterconfig

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var mc009 = &checks.Rule{
	ID:       "MC009",
	Severity: checks.Warning,
	Title:    "Two search-space rows run the same benchmark point",
	Doc: "The sweep generator turns every concurrency of every search-space row into one benchmark job. Two rows " +
		"of one config key, in scenario blocks with the same settings (`isl`, `osl` and the rest), that are equal " +
		"in every setting but their concurrencies (`tp`, `ep`, `dp-attn`, spec-decoding, KV offload, the prefill " +
		"and decode pools and their `additional-settings`) run the same job at each concurrency they share: the " +
		"point is benchmarked twice and its two results are filed under one name. This rule reports a row the PR " +
		"adds or changes that repeats a point of another row of its key, usually a block copied to start a new " +
		"arm whose distinguishing setting was never changed. Single-node agentic rows are MC001's: their names " +
		"collide even when other settings differ. Change the setting that should tell the rows apart, or drop " +
		"the concurrencies the other row already runs.",
	Run: runMC009,
}

// concKeys are the row keys that say which concurrencies it runs.
var concKeys = map[string]bool{"conc-list": true, "conc-start": true, "conc-end": true}

// maxPointRows and maxPoints bound the rows of one key and the
// concurrencies of all of them that are compared: real keys have a few
// dozen rows of a few dozen points.
const (
	maxPointRows = 512
	maxPoints    = 1 << 16
)

func runMC009(p *checks.Pass) error {
	return eachKey(p, func(fs *fileState, ks *keyState) {
		k := ks.key
		if k.Malformed || !ks.changed() {
			return
		}
		// For each point (the row's settings and a concurrency), the
		// first row that runs it. Looking a row's concurrencies up costs
		// their number, whatever the number of rows.
		owner := map[string]map[int]*Row{}
		rows, points := 0, 0
		for _, s := range k.Scenarios {
			if s.Kind == AgenticCoding && !k.Multinode {
				continue
			}
			for _, r := range s.Rows {
				if rows++; rows > maxPointRows || len(r.Conc) == 0 || r.Raw == nil {
					continue
				}
				if points += len(r.Conc); points > maxPoints {
					return
				}
				id, ok := pointID(s, r)
				if !ok {
					continue
				}
				seen := owner[id]
				if seen == nil {
					seen = map[int]*Row{}
					owner[id] = seen
				}
				var other *Row
				var shared []int
				for _, c := range r.Conc {
					o, ok := seen[c]
					if !ok {
						seen[c] = r
						continue
					}
					if o == r || !ks.rows[r] && !ks.rows[o] || other != nil && o != other {
						continue
					}
					other = o
					if !slices.Contains(shared, c) {
						shared = append(shared, c)
					}
				}
				if other != nil {
					at := r
					if !ks.rows[at] {
						at, other = other, at
					}
					p.Report(mc009Finding(fs, k, at, other, shared))
				}
			}
		}
	})
}

// pointID identifies the job a row runs at one concurrency: the block's
// settings and the row's settings other than its concurrencies.
func pointID(s *Scenario, r *Row) (string, bool) {
	rest := make(map[string]any, len(r.Raw))
	for k, v := range r.Raw {
		if !concKeys[k] {
			rest[k] = v
		}
	}
	b, err := json.Marshal([]any{s.Kind, s.Raw, rest})
	if err != nil {
		return "", false // a value JSON cannot spell (NaN): not compared
	}
	return string(b), true
}

func mc009Finding(fs *fileState, k *Key, at, other *Row, shared []int) checks.Finding {
	concs := prose.JoinAnd(intStrings(shared))
	msg := fmt.Sprintf("This row of %s has the same settings as the row at %s apart from its concurrencies, so at "+
		"concurrency %s the two rows are one benchmark job, run twice, with both results filed under one name. If "+
		"this row is a new arm, change the setting that tells it apart; otherwise drop the concurrencies the other "+
		"row already runs.", prose.Code(k.Name), prose.CodeAt(fs.path, other.Line), concs)
	e := &checks.Explain{}
	e.Problem().Printf("%s expands to conc %s and %s to conc %s; they share %s, and every other setting of the rows "+
		"and of their scenario blocks is equal.", prose.CodeAt(fs.path, other.Line), concSummary(other.Conc),
		prose.CodeAt(fs.path, at.Line), concSummary(at.Conc), concs)
	e.Why().Printf("The sweep generator makes one job per row and concurrency; two equal jobs spend the runner twice " +
		"and their results collide.")
	e.Fix().Printf("Give the row the setting that makes it a different point, or remove the shared concurrencies.")
	f := checks.Finding{
		Path:    fs.path,
		Line:    at.Line,
		EndLine: at.EndLine,
		Title:   fmt.Sprintf("%s runs conc %s twice", prose.Code(k.Name), concs),
		Body:    msg,
		Related: []checks.Location{{Path: fs.path, Line: other.Line, EndLine: other.EndLine,
			Note: "row with the same point"}},
		Key: "MC009 " + k.Name + " " + strings.Join(intStrings(shared), ","),
	}
	e.Apply(&f)
	return f
}
