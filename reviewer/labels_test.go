package reviewer

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func TestSweepLabelProblem(t *testing.T) {
	tests := []struct {
		name    string
		s       SweepLabels
		want    []string // substrings; none means no problem
		notWant []string
	}{
		{name: "not applicable", s: SweepLabels{Applies: false}},
		{name: "one primary", s: SweepLabels{Applies: true, Labels: []string{"bug", "full-sweep-fail-fast"}}},
		{name: "primary and modifier", s: SweepLabels{Applies: true, Labels: []string{"evals-only", "full-sweep-enabled"}}},
		{name: "non-canary primary", s: SweepLabels{Applies: true, Labels: []string{"non-canary-full-sweep-enabled", "agentx-fast"}}},
		{
			name: "no label at all", s: SweepLabels{Applies: true},
			want: []string{"🟡 **Sweep labels:**", "no primary sweep label", "`full-sweep-fail-fast`, `full-sweep-enabled` or `non-canary-full-sweep-enabled`"},
		},
		{
			name: "modifiers only", s: SweepLabels{Applies: true, Labels: []string{"evals-only", "all-evals"}},
			want: []string{"`all-evals` and `evals-only` modify a sweep", "Add exactly one of"},
		},
		{
			name: "one modifier", s: SweepLabels{Applies: true, Labels: []string{"agentx-fast"}},
			want: []string{"`agentx-fast` modifies a sweep"},
		},
		{
			name: "two primaries", s: SweepLabels{Applies: true, Labels: []string{"full-sweep-fail-fast", "full-sweep-enabled"}},
			want:    []string{"carries `full-sweep-enabled` and `full-sweep-fail-fast`", "exactly one primary"},
			notWant: []string{"no primary"},
		},
		{name: "not applicable ignores violations", s: SweepLabels{Applies: false, Labels: []string{"evals-only"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.s.Problem()
			if len(tt.want) == 0 && got != "" {
				t.Fatalf("Problem() = %q, want none", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Problem() = %q, missing %q", got, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("Problem() = %q, should not contain %q", got, w)
				}
			}
		})
	}
}

func TestLabelSectionRoundTrip(t *testing.T) {
	plan := BuildPlan([]checks.Finding{prLinkFinding()}, nil, PlanOptions{
		SweepLabels: &SweepLabels{Applies: true, Labels: []string{"bug"}},
	})
	if !strings.HasPrefix(plan.Summary, "<!-- reviewbot:labels sweep=1 -->\n🟡 **Sweep labels:**") {
		t.Fatalf("summary does not open with the label section:\n%s", plan.Summary)
	}
	applies, found := ParseLabelSection(plan.Summary)
	if !found || !applies {
		t.Fatalf("ParseLabelSection = %v, %v; want true, true", applies, found)
	}

	fixed := UpdateLabelSection(plan.Summary, SweepLabels{Applies: applies, Labels: []string{"full-sweep-fail-fast"}})
	if strings.Contains(fixed, "Sweep labels") {
		t.Fatalf("fixed labels still warned:\n%s", fixed)
	}
	// Everything outside the section is kept byte for byte.
	_, restBefore, _ := strings.Cut(plan.Summary, labelSectionClose)
	_, restAfter, _ := strings.Cut(fixed, labelSectionClose)
	if restBefore != restAfter {
		t.Fatalf("UpdateLabelSection changed the rest of the summary:\n%s\n---\n%s", restBefore, restAfter)
	}
	if again := UpdateLabelSection(fixed, SweepLabels{Applies: true, Labels: []string{"full-sweep-fail-fast"}}); again != fixed {
		t.Fatalf("update is not idempotent:\n%s\n---\n%s", fixed, again)
	}
	if !ParseSummaryMarker(fixed) || len(ParseSummaryFindings(fixed)) != 1 {
		t.Fatalf("rewriting the labels lost the summary's markers:\n%s", fixed)
	}
}

func TestUpdateLabelSectionWithoutSection(t *testing.T) {
	old := BuildPlan(nil, nil, PlanOptions{}).Summary
	if _, found := ParseLabelSection(old); found {
		t.Fatal("a plan without SweepLabels has a label section")
	}
	got := UpdateLabelSection(old, SweepLabels{Applies: true})
	if !strings.HasSuffix(got, old) || !strings.Contains(got, "no primary sweep label") {
		t.Fatalf("section not prepended:\n%s", got)
	}
}

func TestSummaryNotes(t *testing.T) {
	note := "⚠️ GitHub lists at most 3,000 files of a pull request."
	clean := BuildPlan(nil, nil, PlanOptions{Notes: []string{note}}).Summary
	if clean != cleanSummary+"\n\n"+note+"\n\n"+summaryMarker {
		t.Fatalf("clean summary with a note:\n%s", clean)
	}
	withFinding := BuildPlan([]checks.Finding{prLinkFinding()}, nil, PlanOptions{Notes: []string{note}}).Summary
	head, _, _ := strings.Cut(withFinding, outsideHeading)
	if !strings.Contains(head, "**reviewbot** found") || !strings.HasSuffix(strings.TrimSpace(head), note) {
		t.Fatalf("note should follow the headline, before the findings:\n%s", withFinding)
	}
}

func TestReviewBodyMarker(t *testing.T) {
	plan := BuildPlan(nil, nil, PlanOptions{})
	sha := "0123456789abcdef0123456789abcdef01234567"
	body := plan.ReviewBody(sha)
	got, ok := ParseReviewMarker(body)
	if !ok || got != sha {
		t.Fatalf("ParseReviewMarker(%q) = %q, %v", body, got, ok)
	}
	if !strings.Contains(body, "reviewed 0123456789ab:") {
		t.Fatalf("review body does not name the short head: %q", body)
	}
	for _, bad := range []string{"", "no marker", "<!-- reviewbot:review sha= -->", "<!-- reviewbot:review sha=abc"} {
		if _, ok := ParseReviewMarker(bad); ok {
			t.Errorf("ParseReviewMarker(%q) accepted", bad)
		}
	}
}

func TestWelcomeComment(t *testing.T) {
	body := WelcomeComment()
	golden(t, "welcome.golden", body)
	if !HasWelcomeMarker(body) || !strings.HasSuffix(body, WelcomeMarker) {
		t.Fatal("welcome comment lacks its marker")
	}
	en, zh, ok := strings.Cut(body, "\n---\n")
	if !ok || !strings.Contains(en, SignoffPhrase) || !strings.Contains(zh, SignoffPhrase) {
		t.Fatal("both languages must quote the sign-off phrase verbatim")
	}
	if !strings.Contains(zh, "感谢") || strings.Contains(en, "感谢") {
		t.Fatal("English first, then Chinese")
	}
}
