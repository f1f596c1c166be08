package reviewer

import (
	"regexp"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/prose"
)

func TestFingerprint(t *testing.T) {
	base := prLinkFinding()
	fp := Fingerprint(base)
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(fp) {
		t.Fatalf("fingerprint %q is not 16 hex digits", fp)
	}
	tests := []struct {
		name   string
		modify func(*checks.Finding)
		same   bool
	}{
		{"line moved", func(f *checks.Finding) { f.Line += 40; f.Suggestion.Line += 40 }, true},
		{"end line added", func(f *checks.Finding) { f.EndLine = f.Line + 3 }, true},
		{"message reworded", func(f *checks.Finding) { f.Body = "reworded" }, true},
		{"severity changed by config", func(f *checks.Finding) { f.Severity = checks.Warning }, true},
		{"key whitespace", func(f *checks.Finding) {
			f.Key = "  pr-link:   https://github.com/SemiAnalysisAI/InferenceX/pull/2202\n"
		}, true},
		{"key changed", func(f *checks.Finding) { f.Key = "pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXXX" }, false},
		{"path changed", func(f *checks.Finding) { f.Path = "perf-changelog.yaml" }, false},
		{"rule changed", func(f *checks.Finding) { f.Rule = "CL002" }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := prLinkFinding()
			tt.modify(&f)
			if got := Fingerprint(f); (got == fp) != tt.same {
				t.Errorf("Fingerprint = %s, original %s; want same=%v", got, fp, tt.same)
			}
		})
	}
}

func TestFingerprintWithoutKey(t *testing.T) {
	a := checks.Finding{Rule: "SH009", Path: "a.sh", Line: 3, Title: "one-line server command", Body: "vllm serve on one line"}
	b := a
	b.Body = "sglang.launch_server on one line"
	if Fingerprint(a) == Fingerprint(b) {
		t.Error("two different keyless findings of one rule in one file share a fingerprint")
	}
	moved := a
	moved.Line = 30
	if Fingerprint(a) != Fingerprint(moved) {
		t.Error("a keyless finding changed fingerprint when its line moved")
	}
}

func TestParseFindingMarker(t *testing.T) {
	f := simpleOffloadFinding()
	rule, fp, ok := ParseFindingMarker(RenderComment(f))
	if !ok || rule != "SH002" || fp != Fingerprint(f) {
		t.Errorf("ParseFindingMarker(RenderComment) = %q, %q, %v; want SH002, %s, true", rule, fp, ok, Fingerprint(f))
	}
	for _, body := range []string{
		"",
		"LGTM",
		"<!-- reviewbot:finding rule=SH002 -->",
		"<!-- reviewbot:finding rule=SH002 fp=xyz -->",
		"<!-- reviewbot:finding rule=SH002 fp=0123456789abcdef",
		"<!-- reviewbot:finding rule=S<H fp=0123456789abcdef -->",
		"<!-- reviewbot:summary -->",
	} {
		if rule, fp, ok := ParseFindingMarker(body); ok {
			t.Errorf("ParseFindingMarker(%q) = %q, %q, true; want not ok", body, rule, fp)
		}
	}
}

func TestParseSummaryMarker(t *testing.T) {
	if !ParseSummaryMarker(BuildPlan(nil, nil, PlanOptions{}).Summary) {
		t.Error("the clean summary has no summary marker")
	}
	if !ParseSummaryMarker(BuildPlan(sampleFindings(), sampleFiles(), PlanOptions{}).Summary) {
		t.Error("the summary with findings has no summary marker")
	}
	if ParseSummaryMarker(RenderComment(prLinkFinding())) {
		t.Error("an inline comment is taken for the summary")
	}
}

func TestParseSummaryFindingsRoundTrip(t *testing.T) {
	odd := maxSeqsFinding()
	odd.Path = "benchmarks/odd name --> x%y.sh"
	findings := append(sampleFindings(), odd)
	plan := BuildPlan(findings, sampleFiles(), PlanOptions{})
	got := ParseSummaryFindings(plan.Summary)
	want := map[string]PostedFinding{}
	for _, c := range plan.Inline {
		want[Fingerprint(c.Finding)] = PostedFinding{Fingerprint(c.Finding), c.Finding.Rule, c.Finding.Path, false}
	}
	for _, f := range plan.Outside {
		want[Fingerprint(f)] = PostedFinding{Fingerprint(f), f.Rule, f.Path, true}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d posted findings, want %d: %+v", len(got), len(want), got)
	}
	for _, pf := range got {
		if want[pf.Fingerprint] != pf {
			t.Errorf("parsed %+v, want %+v", pf, want[pf.Fingerprint])
		}
	}
	// Feeding them back makes nothing new.
	again := BuildPlan(findings, sampleFiles(), PlanOptions{Previous: got})
	if len(again.Inline) != 0 || len(again.AlreadyPosted) != len(findings) || len(again.Resolved) != 0 {
		t.Errorf("re-review of an unchanged PR: %d inline, %d already posted, %d resolved",
			len(again.Inline), len(again.AlreadyPosted), len(again.Resolved))
	}
	if len(again.Outside) != len(plan.Outside) {
		t.Errorf("re-review lists %d outside findings, want %d (the summary is rewritten)", len(again.Outside), len(plan.Outside))
	}
}

// A marker that a finding quotes from the PR (a recipe line in a code
// block, a value in a code span) is not one of the comment's own markers:
// it neither hides a finding from the next review nor makes another
// comment look like the summary or the label section.
func TestQuotedMarkersAreNotMarkers(t *testing.T) {
	const spoofFP = "deadbeefdeadbeef"
	spoofs := []string{
		"<!-- reviewbot:posted rule=SH002 fp=" + spoofFP + " path=x where=summary -->",
		"<!-- reviewbot:finding rule=SH002 fp=" + spoofFP + " -->",
		summaryMarker,
		labelSectionOpen + "sweep=0 -->",
		labelSectionClose,
	}
	lines := strings.Join(spoofs, "\n")
	outside := maxSeqsFinding()
	outside.Path = "benchmarks/elsewhere.sh" // not in the diff: listed in the summary
	outside.Suggestion = &checks.Suggestion{Line: outside.Line, Replacement: lines}
	outside.Body += " " + prose.Code(spoofs[0])
	inline := simpleOffloadFinding()
	inline.Suggestion = &checks.Suggestion{Line: inline.Suggestion.Line, EndLine: inline.Suggestion.EndLine, Replacement: lines}
	plan := BuildPlan([]checks.Finding{outside, inline}, sampleFiles(), PlanOptions{SweepLabels: &SweepLabels{Applies: true}})
	if len(plan.Outside) != 1 || len(plan.Inline) != 1 {
		t.Fatalf("plan: %d outside, %d inline", len(plan.Outside), len(plan.Inline))
	}
	if !strings.Contains(plan.Summary, "\n  "+spoofs[0]+"\n") {
		t.Fatalf("the summary does not quote the spoofed marker line:\n%s", plan.Summary)
	}
	for _, pf := range ParseSummaryFindings(plan.Summary) {
		if pf.Fingerprint == spoofFP {
			t.Errorf("the summary's quoted marker line was read as a posted finding: %+v", pf)
		}
	}
	if got := len(ParseSummaryFindings(plan.Summary)); got != 2 {
		t.Errorf("ParseSummaryFindings found %d findings, want 2", got)
	}
	body := plan.Inline[0].Body
	if _, fp, ok := ParseFindingMarker(body); !ok || fp != Fingerprint(inline) {
		t.Errorf("ParseFindingMarker = %q, %v; want the comment's own %s", fp, ok, Fingerprint(inline))
	}
	// An inline comment, or any other comment that quotes the summary
	// marker, is not the summary.
	if ParseSummaryMarker(body) || ParseSummaryMarker("see "+prose.Code(summaryMarker)+"\n\n<!-- other -->") {
		t.Error("a comment quoting the summary marker is taken for the summary")
	}
	// The label section is the one that opens the summary.
	noSection := "text\n\n```\n" + labelSectionOpen + "sweep=1 -->\n" + labelSectionClose + "\n```\n" + summaryMarker
	if _, found := ParseLabelSection(noSection); found {
		t.Error("a quoted label section was read as the summary's own")
	}
	if got := UpdateLabelSection(noSection, SweepLabels{}); !strings.HasSuffix(got, noSection) {
		t.Errorf("UpdateLabelSection rewrote quoted text:\n%s", got)
	}
}
