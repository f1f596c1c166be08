package all

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe"
)

// headingLike is a bold label ending in a period or colon ("**Fix.**",
// "**Evidence:**"): the reviewer writes those, a rule must not.
var headingLike = regexp.MustCompile(`\*\*[^*\n]+[.:]\*\*`)

// numbered is a step that numbers itself; the reviewer numbers the steps.
var numbered = regexp.MustCompile(`^\d+[.)] `)

// TestReasoningInParts checks, over every fixture, that the rules which
// give their reasoning in parts leave the layout to the reviewer: no
// free-form Details, no heading-like labels in any part, no self-numbered
// steps, and a problem statement whenever there is reasoning at all.
func TestReasoningInParts(t *testing.T) {
	inParts := map[string]bool{}
	for _, r := range recipe.Rules() {
		inParts[r.ID] = true
	}
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "pr.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Skip("no fixture PRs yet")
	}
	seen := map[string]bool{}
	for _, prJSON := range dirs {
		dir := filepath.Dir(prJSON)
		_, res := runFixture(t, dir)
		for _, f := range res.Findings {
			if !inParts[f.Rule] {
				continue
			}
			seen[f.Rule] = true
			where := filepath.Base(dir) + ": " + f.Rule + " " + f.Path
			checkParts(t, where, f)
		}
	}
	// The guard is only as good as its coverage: every rule it names must
	// have been seen in some fixture.
	for id := range inParts {
		if !seen[id] {
			t.Errorf("no fixture produces a %s finding; the parts check does not cover it", id)
		}
	}
}

func checkParts(t *testing.T, where string, f checks.Finding) {
	t.Helper()
	if f.Details != "" {
		t.Errorf("%s: sets Details; give the reasoning in parts", where)
	}
	if f.Problem == "" {
		t.Errorf("%s: no Problem part", where)
	}
	parts := map[string]string{"problem": f.Problem, "why": f.Why, "evidence": f.Evidence, "fix": f.Fix}
	for _, n := range f.Notes {
		parts["note "+n.Title] = n.Text
		if headingLike.MatchString("**" + n.Title + "**") {
			t.Errorf("%s: note title %q carries its own punctuation", where, n.Title)
		}
	}
	for i, s := range f.Steps {
		parts["step "+strconv.Itoa(i+1)] = s
		if numbered.MatchString(s) {
			t.Errorf("%s: step %d numbers itself: %q", where, i+1, s)
		}
	}
	for name, text := range parts {
		if m := headingLike.FindString(text); m != "" {
			t.Errorf("%s: %s part writes a heading %q", where, name, m)
		}
	}
}
