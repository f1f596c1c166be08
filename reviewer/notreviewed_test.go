package reviewer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// What the review did not judge is named in the summary, counted in the
// status, and printed by every CLI format: a review that quietly skipped
// a file would read as a clean one.
func TestNotReviewedIsSaid(t *testing.T) {
	nr := []checks.NotReviewed{
		{Path: "perf-changelog.yaml", Reason: "too large to review (90 MiB, over the 8 MiB a review reads of one file)"},
		{Path: "benchmarks/x.sh", Reason: "its patch does not parse: bad hunk header"},
	}
	clean := BuildPlan(nil, nil, PlanOptions{NotReviewed: nr})
	for _, want := range []string{partialSummary, notReviewedHead,
		"- `perf-changelog.yaml` — too large to review (90 MiB, over the 8 MiB a review reads of one file)",
		"- `benchmarks/x.sh` — its patch does not parse: bad hunk header"} {
		if !strings.Contains(clean.Summary, want) {
			t.Errorf("clean summary lacks %q:\n%s", want, clean.Summary)
		}
	}
	if strings.Contains(clean.Summary, cleanSummary) {
		t.Errorf("a partial review says it found no problems in the PR:\n%s", clean.Summary)
	}
	if clean.Status.State != "success" || clean.Status.Description != "No problems found; 2 files not reviewed" {
		t.Errorf("status %+v", clean.Status)
	}
	withFinding := BuildPlan([]checks.Finding{prLinkFinding()}, nil, PlanOptions{NotReviewed: nr[:1]})
	head, _, _ := strings.Cut(withFinding.Summary, outsideHeading)
	if !strings.Contains(head, "**reviewbot** found") || !strings.Contains(head, notReviewedHead) {
		t.Errorf("the section belongs above the findings:\n%s", withFinding.Summary)
	}
	if !strings.HasSuffix(withFinding.Status.Description, "; 1 file not reviewed") {
		t.Errorf("status %+v", withFinding.Status)
	}

	// Thousands of files: the first ones by name, then a count.
	var many []checks.NotReviewed
	for i := range 1200 {
		many = append(many, checks.NotReviewed{Path: fmt.Sprintf("benchmarks/new%04d.sh", i), Reason: "the review had read its budget of 3000 files before it"})
	}
	s := BuildPlan(nil, nil, PlanOptions{NotReviewed: many}).Summary
	if strings.Count(s, "\n- `benchmarks/new") != maxNotReviewed || !strings.Contains(s, "- … and 1150 more") {
		t.Errorf("long list:\n%.500s", s)
	}

	rep := &Report{NotReviewed: nr, Stats: checks.Stats{Files: 2, Rules: 3}}
	var text, js, gh, md bytes.Buffer
	if err := WriteText(&text, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "not reviewed: perf-changelog.yaml — too large to review") ||
		!strings.Contains(text.String(), "(3 rules run, 2 files not reviewed)") {
		t.Errorf("text:\n%s", text.String())
	}
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var out struct {
		NotReviewed []checks.NotReviewed `json:"not_reviewed"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil || len(out.NotReviewed) != 2 || out.NotReviewed[1].Path != "benchmarks/x.sh" {
		t.Errorf("json %s: %v", js.String(), err)
	}
	if err := WriteGitHub(&gh, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gh.String(), "::warning file=perf-changelog.yaml,title=reviewbot%3A not reviewed::not reviewed: perf-changelog.yaml") {
		t.Errorf("github:\n%s", gh.String())
	}
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), notReviewedHead) {
		t.Errorf("markdown:\n%s", md.String())
	}
}
