package masterconfig

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

var mc005 = &checks.Rule{
	ID:       "MC005",
	Severity: checks.Blocking,
	Title:    "Config for a model or scenario MODELS.md deprecates",
	Doc: "MODELS.md on the base branch lists the models, scenarios (Single-turn 8k1k/1k1k/1k8k, Agentic coding) and " +
		"precisions that are deprecated, each with its last day. A PR that adds or changes a master config for a " +
		"deprecated combination after that last day submits benchmarks that will not be run or published. The rule maps " +
		"each changed scenario block to its MODELS.md scenario (fixed-seq-len by ISL/OSL, agentic-coding to Agentic " +
		"coding) and checks the config's `model-prefix` and `precision`. Drop the change, or land the MODELS.md update " +
		"that extends the deadline first. Speculative-decoding A/B arm retirements that MODELS.md marks as not yet " +
		"enacted are not enforced.",
	Run: runMC005,
}

func runMC005(p *checks.Pass) error {
	a, err := load(p)
	if err != nil {
		return err
	}
	if len(a.files) == 0 {
		return nil
	}
	// MODELS.md comes from the base branch: a PR cannot lift a deprecation
	// it is judged by.
	pol, mdPath, err := loadPolicy(p)
	if err != nil || pol == nil {
		return err
	}
	today := p.Change.Today()
	for _, fs := range a.files {
		for _, ks := range fs.keys {
			if ks.key.Malformed || !ks.changed() {
				continue
			}
			if f, ok := deprecationFinding(fs, ks, pol, mdPath, today); ok {
				p.Report(f)
			}
		}
	}
	return nil
}

func deprecationFinding(fs *fileState, ks *keyState, pol *Policy, mdPath string, today time.Time) (checks.Finding, bool) {
	k := ks.key
	model := k.ModelPrefix.Value
	if model == "" {
		model = firstSegment(k.Name)
	}
	all := ks.isNew || ks.headerChanged
	var judged []*Scenario
	for _, s := range k.Scenarios {
		if all || ks.blocks[s] || blockHasChangedRow(ks, s) {
			judged = append(judged, s)
		}
	}
	hits, scenNames := deprecationHits(pol, model, k.Precision.Value, judged, all, today)
	if len(hits) == 0 {
		return checks.Finding{}, false
	}

	var stmts, ids []string
	var related []checks.Location
	for _, h := range hits {
		stmts = append(stmts, verdictText(h, model)+" "+lastDayText(h)+" ("+citeLines(mdPath, h.Lines)+")")
		ids = append(ids, verdictID(h))
		for _, l := range h.Lines {
			related = append(related, checks.Location{Path: mdPath, Line: l, Side: checks.Base,
				Note: verdictText(h, model) + " " + lastDayText(h)})
		}
	}
	sort.SliceStable(related, func(i, j int) bool { return related[i].Line < related[j].Line })
	related = dedupeLocations(related)
	sort.Strings(ids)

	f := checks.Finding{
		Path:    fs.path,
		Line:    deprecationLine(fs, k, judged, all),
		Title:   fmt.Sprintf("%s: %s", prose.Code(k.Name), shortVerdict(hits[0], model)),
		Body:    deprecationMessage(ks, model, scenNames, stmts, hits[0], today),
		Related: related,
		Key:     "MC005 " + k.Name + " " + strings.Join(ids, " "),
	}
	deprecationExplain(fs, ks, model, scenNames, hits, mdPath, today).Apply(&f)
	return f, true
}

// deprecationHits looks up each judged scenario block's MODELS.md
// scenario (all of the key when its header changed and it has no block)
// and returns the verdicts in force, each once, with the scenario names.
func deprecationHits(pol *Policy, model, precision string, judged []*Scenario, all bool, today time.Time) (hits []*Verdict, scenNames []string) {
	seen := map[*Verdict]bool{}
	scenNames = []string{}
	add := func(scen string) {
		for _, v := range pol.Lookup(model, scen, precision) {
			if v.InForce(today) && !seen[v] {
				seen[v] = true
				hits = append(hits, v)
			}
		}
	}
	for _, s := range judged {
		name := pol.ScenarioName(s.Kind, s.ISL, s.OSL)
		if name != "" && !containsStr(scenNames, name) {
			scenNames = append(scenNames, name)
		}
		add(name)
	}
	if len(judged) == 0 && all {
		add("")
	}
	return hits, scenNames
}

// deprecationLine is the first line the PR added in the key (when all of
// it is judged) or in a judged block, else the key's line.
func deprecationLine(fs *fileState, k *Key, judged []*Scenario, all bool) int {
	line := 0
	if all {
		line = firstAdded(fs.fc, k.Line, k.EndLine)
	}
	for _, s := range judged {
		if line != 0 {
			break
		}
		line = firstAdded(fs.fc, s.Line, s.EndLine)
	}
	if line == 0 {
		line = k.Line
	}
	return line
}

func deprecationMessage(ks *keyState, model string, scenNames, stmts []string, v0 *Verdict, today time.Time) string {
	k := ks.key
	what := "config"
	if len(scenNames) > 0 {
		what = prose.JoinAnd(scenNames) + " config"
	}
	verb := "changes"
	if ks.isNew {
		verb = "adds"
	}
	dayNote := fmt.Sprintf("The review date is %s", today.Format("2006-01-02"))
	if !v0.LastDay.IsZero() {
		dayNote += fmt.Sprintf(", after the last day %s", v0.LastDay.Format("2006-01-02"))
	}
	return fmt.Sprintf("This PR %s %s, a %s for %s (%s), but MODELS.md deprecates %s. %s, so this submits a "+
		"deprecated combination that will not be run or published. Fix: drop this change, or land the MODELS.md "+
		"update that extends the deadline first and re-run the review.",
		verb, prose.Code(k.Name), what, prose.Code(model), prose.Code(k.Precision.Value), prose.JoinAnd(stmts), dayNote)
}

// deprecationExplain quotes what MODELS.md says and how the date is read.
func deprecationExplain(fs *fileState, ks *keyState, model string, scenNames []string, hits []*Verdict, mdPath string, today time.Time) *checks.Explain {
	k := ks.key
	e := &checks.Explain{}
	w := e.Printf
	e.Problem()
	w("%s (%s) is %s by this PR. ", prose.Code(k.Name), prose.CodeAt(fs.path, k.Line), map[bool]string{true: "added", false: "changed"}[ks.isNew])
	if len(scenNames) > 0 {
		w("Its changed scenario blocks map to %s ", prose.JoinAnd(scenNames))
		w("(fixed-seq-len by ISL/OSL: 8192/1024 is Single-turn 8k1k, 1024/1024 is 1k1k, 1024/8192 is 1k8k; agentic-coding is Agentic coding). ")
	}
	w("Its model is %s and its precision %s.", prose.Code(model), prose.Code(k.Precision.Value))
	e.Note("What MODELS.md says")
	w("Base branch, %s:\n", prose.Code(mdPath))
	for _, h := range hits {
		w("- %s %s — %s (%s).\n", verdictText(h, model), lastDayText(h), strings.Join(h.Sources, "; "), citeLines(mdPath, h.Lines))
	}
	w("\nA date in MODELS.md is a last day: the item is still accepted on that day and deprecated from the next. ")
	w("The review date is %s.", today.Format("2006-01-02"))
	e.Fix()
	w("Deprecated configs are not run or published, so drop this change. If the deadline was extended, ")
	w("the extension has to land in MODELS.md first; this finding clears on the next review after it merges.")
	return e
}

func blockHasChangedRow(ks *keyState, s *Scenario) bool {
	for _, r := range s.Rows {
		if ks.rows[r] {
			return true
		}
	}
	return false
}

func firstSegment(name string) string {
	if i := strings.Index(name, "-"); i >= 0 {
		return name[:i]
	}
	return name
}

func verdictText(v *Verdict, model string) string {
	switch {
	case v.Precision != "":
		return fmt.Sprintf("all %s recipes of %s", v.Precision, prose.Code(model))
	case v.Scenario != "" && v.Model == "":
		return v.Scenario + " for every model"
	case v.Scenario != "":
		return fmt.Sprintf("%s for %s", v.Scenario, prose.Code(model))
	}
	return fmt.Sprintf("%s entirely (the model is retired)", prose.Code(model))
}

func shortVerdict(v *Verdict, model string) string {
	after := ""
	if !v.LastDay.IsZero() {
		after = " after " + v.LastDay.Format("2006-01-02")
	}
	switch {
	case v.Precision != "":
		return fmt.Sprintf("%s recipes of %s are deprecated%s", v.Precision, prose.Code(model), after)
	case v.Scenario != "" && v.Model == "":
		return fmt.Sprintf("%s is deprecated for every model%s", v.Scenario, after)
	case v.Scenario != "":
		return fmt.Sprintf("%s for %s is deprecated%s", v.Scenario, prose.Code(model), after)
	}
	return fmt.Sprintf("%s is retired%s", prose.Code(model), after)
}

func lastDayText(v *Verdict) string {
	if v.LastDay.IsZero() {
		return "with no end date"
	}
	return "after " + v.LastDay.Format("2006-01-02")
}

func verdictID(v *Verdict) string {
	return v.Model + "/" + v.Scenario + "/" + v.Precision
}

func citeLines(path string, lines []int) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = prose.CodeAt(path, l)
	}
	return strings.Join(parts, ", ")
}

func dedupeLocations(ls []checks.Location) []checks.Location {
	var out []checks.Location
	seen := map[int]bool{}
	for _, l := range ls {
		if !seen[l.Line] {
			seen[l.Line] = true
			out = append(out, l)
		}
	}
	return out
}
