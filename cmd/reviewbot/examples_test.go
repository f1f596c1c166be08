package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
)

// buildRuleExamples picks, for every rule, one finding from the fixture
// goldens: preferably from a fixture named after the rule (a rule that
// reports on every recipe change also shows in the fixtures of the
// others), then from a fixture about that rule alone, then one made
// from a real review thread (a "seed" fixture), then the fixture with the
// fewest findings, then by name, so the choice is stable.
func buildRuleExamples(t *testing.T, prsDir string) map[string]*ruleExample {
	t.Helper()
	goldens, err := filepath.Glob(filepath.Join(prsDir, "*", "expected.json"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no fixture goldens under %s (%v)", prsDir, err)
	}
	sort.Strings(goldens)
	type cand struct {
		fixture string
		f       checks.Finding
		named   bool
		alone   bool
		seed    bool
		count   int
	}
	best := map[string]cand{}
	better := func(a, b cand) bool {
		switch {
		case a.named != b.named:
			return a.named
		case a.alone != b.alone:
			return a.alone
		case a.seed != b.seed:
			return a.seed
		case a.count != b.count:
			return a.count < b.count
		}
		return a.fixture < b.fixture
	}
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		var fs []checks.Finding
		if err := json.Unmarshal(b, &fs); err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		name := filepath.Base(filepath.Dir(g))
		rules := map[string]bool{}
		for _, f := range fs {
			rules[f.Rule] = true
		}
		for _, f := range fs {
			c := cand{fixture: name, f: f, named: strings.HasPrefix(name, strings.ToLower(f.Rule)+"-"), alone: len(rules) == 1, seed: strings.Contains(name, "seed"), count: len(fs)}
			if old, ok := best[f.Rule]; !ok || better(c, old) {
				best[f.Rule] = c
			}
		}
	}
	out := map[string]*ruleExample{}
	for id, c := range best {
		f := c.f
		// The extended reasoning is for the PR author; the example shows
		// what a finding looks like.
		f.Problem, f.Why, f.Evidence, f.Notes, f.Steps, f.Fix = "", "", "", nil, nil, ""
		out[id] = &ruleExample{Fixture: c.fixture, Finding: f}
	}
	return out
}

// TestRuleExamples keeps the embedded examples equal to what the fixture
// goldens say, and requires an example for every rule.
func TestRuleExamples(t *testing.T) {
	want := buildRuleExamples(t, fixtures)
	b, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *update {
		if err := os.WriteFile("rule_examples.json", b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(b, ruleExamplesJSON) {
		t.Errorf("rule_examples.json is stale (run go test ./cmd/reviewbot -run TestRuleExamples -update):\n%s",
			cmp.Diff(string(ruleExamplesJSON), string(b)))
	}
	reg, err := all.Registry()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ruleExamples()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reg.Rules() {
		ex := got[r.ID]
		if ex == nil {
			t.Errorf("rule %s has no finding in any fixture's expected.json: add a fixture PR for it", r.ID)
			continue
		}
		if ex.Finding.Rule != r.ID || ex.Finding.Body == "" {
			t.Errorf("example for %s: %+v", r.ID, ex)
		}
		if _, err := os.Stat(filepath.Join(fixtures, ex.Fixture, "pr.json")); err != nil {
			t.Errorf("example for %s names fixture %s: %v", r.ID, ex.Fixture, err)
		}
	}
	for id := range got {
		if reg.Lookup(id) == nil {
			t.Errorf("example for %s, which is not a rule", id)
		}
	}
}
