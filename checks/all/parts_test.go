package all

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// headingLike is a bold label ending in a period or colon ("**Fix.**",
// "**Evidence:**"): the reviewer writes those, a rule must not.
var headingLike = regexp.MustCompile(`\*\*[^*\n]+[.:]\*\*`)

// numbered is a step that numbers itself; the reviewer numbers the steps.
var numbered = regexp.MustCompile(`^\d+[.)] `)

// TestReasoningInParts checks, over every fixture, that every rule leaves
// the layout of its reasoning to the reviewer: no heading-like labels in
// any part or note title, no self-numbered steps.
func TestReasoningInParts(t *testing.T) {
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	inParts := map[string]bool{}
	for _, r := range reg.Rules() {
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
