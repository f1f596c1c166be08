package changelog

import (
	"fmt"
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

const cl006Doc = "An entry with `append-only: true` declares that the PR only adds new points to an existing config's " +
	"curve and that nothing in the whole diff can change a point already published. A regular entry in the same " +
	"PR declares exactly such a change, so the two cannot share a PR: split the regular change into its own PR, " +
	"or drop `append-only: true` if existing points are affected."

// CL006 keeps append-only entries out of PRs that also add regular ones.
var CL006 = &checks.Rule{
	ID:       "CL006",
	Severity: checks.Blocking,
	Title:    "append-only entry mixed with regular entries in one PR",
	Doc:      cl006Doc,
	Run:      runCL006,
}

func runCL006(p *checks.Pass) error {
	a, err := Analyze(p)
	if err != nil || !a.Touched() {
		return err
	}
	var only, regular []*Entry
	for _, e := range a.NewEntries() {
		if e.Err != nil || e.Kind != yamlMapping {
			continue
		}
		if e.AppendOnly() {
			only = append(only, e)
		} else {
			regular = append(regular, e)
		}
	}
	if len(only) == 0 || len(regular) == 0 {
		return nil
	}
	first := only[0]
	line := first.Get(keyAppendOnly).KeyLine
	var regs []string
	var related []checks.Location
	for _, e := range regular {
		regs = append(regs, fmt.Sprintf("%s (line %d)", codeList(e.KeyNames(), 3), e.Start))
		related = append(related, checks.Location{Path: a.Path, Line: e.Start, Note: "a regular entry added by this PR"})
	}
	for _, e := range only[1:] {
		related = append(related, checks.Location{Path: a.Path, Line: e.Get(keyAppendOnly).KeyLine, Note: "another append-only entry of this PR"})
	}
	x := &checks.Explain{}
	x.Why()
	x.Printf("`append-only: true` is a promise about the whole PR: it only adds generated points or recipe variants inside an existing config and curve, every previously generated point stays present with the same recipe, and no change in the complete diff can affect an existing point. ")
	if loc, ok := checklistItem(p); ok {
		x.Printf("The review checklist spells this out (%s). ", prose.Code(loc.String()))
		related = append(related, loc)
	}
	x.Printf("A regular entry says the PR changes benchmark results of the configs it names, which is exactly what the append-only promise rules out, so the PR's results can be published neither as a pure extension of existing curves nor as a fresh measurement of them.")
	x.Fix()
	x.Printf("Move the regular change (and its entry) into a separate PR, or, if existing points really are affected, remove `append-only: true` so the whole config is re-measured.")
	regWord := "a regular entry"
	if len(regular) > 1 {
		regWord = "regular entries"
	}
	f := checks.Finding{
		Path: a.Path, Line: line,
		Title: "append-only entry mixed with regular entries",
		Body: fmt.Sprintf("The entry at line %d for %s is marked `append-only: true`, but this PR also adds %s: %s. An append-only PR may only add points to existing curves and must not affect any existing point, which a regular entry's change does; split them into separate PRs or drop `append-only: true`.",
			first.Start, codeList(first.KeyNames(), 3), regWord, strings.Join(regs, ", ")),
		Related: related,
		Key:     "append-only-mixed",
	}
	x.Apply(&f)
	p.Report(f)
	return nil
}

// checklistItem finds the append-only item of the review checklist in base.
func checklistItem(p *checks.Pass) (checks.Location, bool) {
	path := p.Config().Paths.Checklist
	b, err := p.Change.Base.ReadFile(p.Ctx, path)
	if err != nil {
		return checks.Location{}, false
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "append-only: true") {
			return checks.Location{Path: path, Line: i + 1, Side: checks.Base, Note: "the checklist's append-only item"}, true
		}
	}
	return checks.Location{}, false
}
