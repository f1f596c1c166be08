package reviewer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/reviewbot-dev/reviewbot/checks"
)

type anchor struct {
	Path            string
	StartLine, Line int
	Side            string
}

func TestPlacement(t *testing.T) {
	recipe := "benchmarks/single_node/agentic/glm5_fp8_h200.sh"
	modified := &checks.FileChange{Path: recipe, OldPath: recipe, Status: checks.Modified, Hunks: []checks.Hunk{
		// context 40-41, added 42-44, context 45, removed old 44, added 46, context 47
		hunk(40, 40, "  +++ -+ "),
	}}
	added := &checks.FileChange{Path: "benchmarks/single_node/agentic/new_recipe.sh", Status: checks.Added,
		Hunks: []checks.Hunk{hunk(0, 1, strings.Repeat("+", 30))}}
	deleted := &checks.FileChange{Path: "benchmarks/single_node/old_recipe.sh", OldPath: "benchmarks/single_node/old_recipe.sh",
		Status: checks.Deleted, Hunks: []checks.Hunk{hunk(1, 0, strings.Repeat("-", 12))}}
	renamed := &checks.FileChange{Path: "configs/amd-master.yaml", OldPath: "configs/amd-master-old.yaml", Status: checks.Renamed,
		Hunks: []checks.Hunk{hunk(7, 7, " -+ ")}}
	files := []*checks.FileChange{modified, added, deleted, renamed}

	tests := []struct {
		name string
		f    checks.Finding
		want *anchor // nil: outside the diff
	}{
		{"added line", checks.Finding{Path: recipe, Line: 43}, &anchor{recipe, 0, 43, SideRight}},
		{"context line", checks.Finding{Path: recipe, Line: 41}, nil},
		{"line after a removal", checks.Finding{Path: recipe, Line: 46}, &anchor{recipe, 0, 46, SideRight}},
		{"range fully added", checks.Finding{Path: recipe, Line: 42, EndLine: 44}, &anchor{recipe, 42, 44, SideRight}},
		{"range partially added, first line added", checks.Finding{Path: recipe, Line: 44, EndLine: 46}, &anchor{recipe, 0, 44, SideRight}},
		{"range partially added, first line context", checks.Finding{Path: recipe, Line: 40, EndLine: 43}, &anchor{recipe, 0, 42, SideRight}},
		{"range of context only", checks.Finding{Path: recipe, Line: 45, EndLine: 45}, nil},
		{"line outside every hunk", checks.Finding{Path: recipe, Line: 200}, nil},
		{"file-level finding", checks.Finding{Path: recipe}, nil},
		{"file not in the diff", checks.Finding{Path: "benchmarks/single_node/agentic/untouched.sh", Line: 3}, nil},
		{"added file, any line", checks.Finding{Path: added.Path, Line: 17, EndLine: 19}, &anchor{added.Path, 17, 19, SideRight}},
		{"deleted file, head side", checks.Finding{Path: deleted.Path, Line: 3}, nil},
		{"deleted file, base side", checks.Finding{Path: deleted.Path, Line: 3, Side: checks.Base}, &anchor{deleted.Path, 0, 3, SideLeft}},
		{"deleted file, base range", checks.Finding{Path: deleted.Path, Line: 3, EndLine: 5, Side: checks.Base}, &anchor{deleted.Path, 3, 5, SideLeft}},
		{"base side, line not removed", checks.Finding{Path: recipe, Line: 41, Side: checks.Base}, nil},
		{"base side, removed line", checks.Finding{Path: recipe, Line: 43, Side: checks.Base}, &anchor{recipe, 0, 43, SideLeft}},
		{"renamed file, base path", checks.Finding{Path: "configs/amd-master-old.yaml", Line: 8, Side: checks.Base}, &anchor{renamed.Path, 0, 8, SideLeft}},
		{"renamed file, head path", checks.Finding{Path: renamed.Path, Line: 8}, &anchor{renamed.Path, 0, 8, SideRight}},
		{"suggestion on added lines anchors the comment there",
			checks.Finding{Path: recipe, Line: 40, EndLine: 46, Suggestion: &checks.Suggestion{Line: 43, EndLine: 44, Replacement: "x\ny"}},
			&anchor{recipe, 43, 44, SideRight}},
		{"suggestion on context falls back to the finding's lines",
			checks.Finding{Path: recipe, Line: 42, Suggestion: &checks.Suggestion{Line: 41, Replacement: "x"}},
			&anchor{recipe, 0, 42, SideRight}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.Rule, tt.f.Severity, tt.f.Body = "SH008", checks.Warning, "m"
			plan := BuildPlan([]checks.Finding{tt.f}, files, PlanOptions{})
			var got *anchor
			switch {
			case len(plan.Inline) == 1 && len(plan.Outside) == 0:
				c := plan.Inline[0]
				got = &anchor{c.Path, c.StartLine, c.Line, c.Side}
				if c.Body == "" || !cmp.Equal(c.Finding, tt.f) {
					t.Errorf("comment carries body %q, finding %+v", c.Body, c.Finding)
				}
			case len(plan.Inline) == 0 && len(plan.Outside) == 1:
			default:
				t.Fatalf("finding placed %d times inline and %d times outside", len(plan.Inline), len(plan.Outside))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("anchor (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSuggestionApplicability(t *testing.T) {
	plan := BuildPlan(sampleFindings(), sampleFiles(), PlanOptions{})
	bodies := map[string]InlineComment{}
	for _, c := range plan.Inline {
		bodies[c.Finding.Rule] = c
	}
	// SH002 spans 98-116 but its fix replaces line 99: the comment sits on 99.
	if c := bodies["SH002"]; c.Line != 99 || c.StartLine != 0 || !strings.Contains(c.Body, "```suggestion\n") {
		t.Errorf("SH002 anchored at %d-%d, applicable suggestion: %v", c.StartLine, c.Line, strings.Contains(c.Body, "```suggestion"))
	}
	f := prLinkFinding()
	f.Suggestion.Line = 4790 // a context line: the fix cannot be offered inline
	plan = BuildPlan([]checks.Finding{f}, sampleFiles(), PlanOptions{})
	if len(plan.Inline) != 1 || strings.Contains(plan.Inline[0].Body, "```suggestion") {
		t.Errorf("a suggestion for lines the comment does not cover is offered for applying: %+v", plan.Inline)
	}
}

func TestPlanSample(t *testing.T) {
	plan := BuildPlan(sampleFindings(), sampleFiles(), PlanOptions{})
	var got []string
	for _, c := range plan.Inline {
		got = append(got, c.Finding.Rule)
	}
	if len(plan.Outside) != 1 || plan.Outside[0].Rule != "SH007" {
		t.Errorf("outside = %+v, want SH007 only", plan.Outside)
	}
	// Inline comments follow the sorted findings: by path, then line.
	if diff := cmp.Diff([]string{"SH001", "SH002", "CL001"}, got); diff != "" {
		t.Errorf("inline comments (-want +got):\n%s", diff)
	}
	if plan.Status != (Status{"failure", "2 blocking findings, 2 warnings"}) {
		t.Errorf("status = %+v", plan.Status)
	}
	if len(plan.AlreadyPosted) != 0 || len(plan.Resolved) != 0 {
		t.Errorf("first review has already-posted %v / resolved %v", plan.AlreadyPosted, plan.Resolved)
	}
	golden(t, "summary_outside.golden", plan.Summary)
}

func TestSummaryClean(t *testing.T) {
	plan := BuildPlan(nil, sampleFiles(), PlanOptions{})
	if plan.Summary != "✅ reviewbot found no problems in this PR.\n<!-- reviewbot:summary -->" {
		t.Errorf("clean summary = %q", plan.Summary)
	}
	if plan.Status != (Status{"success", "No problems found"}) {
		t.Errorf("status = %+v", plan.Status)
	}
	golden(t, "summary_clean.golden", plan.Summary)
}

func TestReReview(t *testing.T) {
	strict, offload, maxSeqs, prLink := strictModeFinding(), simpleOffloadFinding(), maxSeqsFinding(), prLinkFinding()
	previous := []PostedFinding{
		{Fingerprint: Fingerprint(strict), Rule: "SH001", Path: b300Recipe},
		{Fingerprint: Fingerprint(maxSeqs), Rule: "SH007", Path: b200Recipe, InSummary: true},
		{Fingerprint: "00c0ffee00c0ffee", Rule: "SH003", Path: b300Recipe},
		{Fingerprint: "0badcafe0badcafe", Rule: "CL004", Path: changelogPath, InSummary: true},
		{Fingerprint: "00c0ffee00c0ffee", Rule: "SH003", Path: b300Recipe, InSummary: true}, // listed twice
	}
	// The strict-mode line moved down one line after the push: same finding.
	strict.Line = 3
	files := sampleFiles()
	files[2].Hunks[0] = hunk(1, 1, " -++ ")
	plan := BuildPlan([]checks.Finding{strict, offload, maxSeqs, prLink}, files, PlanOptions{Previous: previous})

	var inline []string
	for _, c := range plan.Inline {
		inline = append(inline, c.Finding.Rule)
	}
	if diff := cmp.Diff([]string{"SH002", "CL001"}, inline); diff != "" {
		t.Errorf("new inline comments (-want +got):\n%s", diff)
	}
	var already []string
	for _, f := range plan.AlreadyPosted {
		already = append(already, f.Rule)
	}
	if diff := cmp.Diff([]string{"SH007", "SH001"}, already); diff != "" {
		t.Errorf("already posted (-want +got):\n%s", diff)
	}
	if len(plan.Outside) != 1 || plan.Outside[0].Rule != "SH007" {
		t.Errorf("outside = %+v; the summary-listed SH007 must be listed again", plan.Outside)
	}
	var resolved []string
	for _, r := range plan.Resolved {
		resolved = append(resolved, r.Rule+" "+r.Path)
	}
	if diff := cmp.Diff([]string{"SH003 " + b300Recipe, "CL004 " + changelogPath}, resolved); diff != "" {
		t.Errorf("resolved (-want +got):\n%s", diff)
	}
	if plan.Status.State != "failure" {
		t.Errorf("status = %+v", plan.Status)
	}
	golden(t, "summary_rereview.golden", plan.Summary)
}

func TestReReviewAllResolved(t *testing.T) {
	plan := BuildPlan(nil, sampleFiles(), PlanOptions{Previous: []PostedFinding{
		{Fingerprint: Fingerprint(prLinkFinding()), Rule: "CL001", Path: changelogPath},
	}})
	want := "✅ reviewbot found no remaining problems in this PR.\n\n**Resolved since last review:**\n- ✅ CL001 `" +
		changelogPath + "` — resolved\n\n<!-- reviewbot:summary -->"
	if plan.Summary != want {
		t.Errorf("summary = %q, want %q", plan.Summary, want)
	}
	if plan.Status.State != "success" {
		t.Errorf("status = %+v", plan.Status)
	}
}

func TestReReviewNothingNew(t *testing.T) {
	f := strictModeFinding()
	plan := BuildPlan([]checks.Finding{f}, sampleFiles(), PlanOptions{ReReview: true,
		Previous: []PostedFinding{{Fingerprint: Fingerprint(f), Rule: f.Rule, Path: f.Path}}})
	for _, want := range []string{
		"**reviewbot** found 1 🟡 warning: 1 finding already commented on in an earlier review.",
		optionalNote,
		"No new findings since the last review.",
	} {
		if !strings.Contains(plan.Summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, plan.Summary)
		}
	}
	if len(plan.Inline) != 0 {
		t.Errorf("re-posted %d comments", len(plan.Inline))
	}
	if plan.Status != (Status{"success", "No blocking findings; 1 optional warning"}) {
		t.Errorf("status = %+v", plan.Status)
	}
}

func TestMoveToSummary(t *testing.T) {
	plan := BuildPlan(sampleFindings(), sampleFiles(), PlanOptions{})
	n := len(plan.Inline)
	var moved checks.Finding
	for i, c := range plan.Inline {
		if c.Finding.Rule == "SH002" {
			moved = c.Finding
			plan.MoveToSummary(i, -1, 99)
			break
		}
	}
	if len(plan.Inline) != n-1 {
		t.Fatalf("inline comments: %d, want %d", len(plan.Inline), n-1)
	}
	if !strings.Contains(plan.Summary, "- 🔴 `"+b300Recipe+":98-116` — The new `vllm-simple` branch") {
		t.Errorf("moved finding missing from the summary:\n%s", plan.Summary)
	}
	for _, pf := range ParseSummaryFindings(plan.Summary) {
		if pf.Fingerprint == Fingerprint(moved) && !pf.InSummary {
			t.Error("state still records the moved finding as inline")
		}
	}
	if strings.Contains(plan.Summary, "```suggestion") {
		t.Error("the summary offers a suggestion block")
	}
}

func TestStatusCounts(t *testing.T) {
	var fs []checks.Finding
	for range 567 {
		fs = append(fs, prLinkFinding(), strictModeFinding())
	}
	st := BuildPlan(fs, nil, PlanOptions{}).Status
	if st.State != "failure" || runes(st.Description) > 140 || st.Description != "567 blocking findings, 567 warnings" {
		t.Errorf("status = %+v", st)
	}
}

func BenchmarkBuildPlan(b *testing.B) {
	var fs []checks.Finding
	for i := range 50 {
		for _, f := range sampleFindings() {
			f.Key += strings.Repeat("x", i)
			fs = append(fs, f)
		}
	}
	files := sampleFiles()
	b.ReportAllocs()
	for b.Loop() {
		BuildPlan(fs, files, PlanOptions{})
	}
}
