package reviewer

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func TestRenderCommentGolden(t *testing.T) {
	golden(t, "comment_blocking.golden", RenderComment(prLinkFinding()))
	golden(t, "comment_warning.golden", RenderComment(strictModeFinding()))
}

func TestRenderCommentShape(t *testing.T) {
	tests := []struct {
		name    string
		f       checks.Finding
		want    []string
		notWant []string
	}{
		{
			name:    "nothing to extend",
			f:       checks.Finding{Rule: "SH009", Severity: checks.Warning, Path: "a.sh", Line: 4, Body: "All arguments of `vllm serve` are on one line."},
			want:    []string{"🟡 All arguments of `vllm serve` are on one line.\n\n<!-- reviewbot:finding rule=SH009 fp="},
			notWant: []string{"<details>", "**Evidence.**", "**Fix.**"},
		},
		{
			name: "evidence without details",
			f: checks.Finding{Rule: "SH003", Severity: checks.Blocking, Path: "a.sh", Line: 9, Body: "m",
				Related: []checks.Location{{Path: "b.sh", Line: 3}, {Path: "c.sh", Line: 5, EndLine: 7, Note: "wires the module path"}}},
			want: []string{
				"🔴 m\n\n" + detailsOpen + "\n\n**Evidence.**\n- `b.sh:3`\n- `c.sh:5-7` — wires the module path\n</details>\n<!-- reviewbot:finding rule=SH003 fp=",
			},
			notWant: []string{"**Fix.**"},
		},
		{
			name: "title stands in for an empty message",
			f:    checks.Finding{Rule: "MC002", Severity: checks.Blocking, Path: "c.yaml", Line: 1, Title: "image is a local path"},
			want: []string{"🔴 image is a local path\n"},
		},
		{
			name: "replacement containing a fence",
			f: checks.Finding{Rule: "SH011", Severity: checks.Blocking, Path: "a.md", Line: 2, Body: "m",
				Suggestion: &checks.Suggestion{Line: 2, Replacement: "```bash\necho hi\n```"}},
			want: []string{"**Fix.** Suggested change:\n````suggestion\n```bash\necho hi\n```\n````\n</details>"},
		},
		{
			name: "deleting lines",
			f: checks.Finding{Rule: "SH011", Severity: checks.Blocking, Path: "a.sh", Line: 2, Body: "m",
				Suggestion: &checks.Suggestion{Line: 2, Replacement: ""}},
			want: []string{"**Fix.** Delete the line:\n```suggestion\n```\n</details>"},
		},
		{
			name: "unclosed fence in the details is closed",
			f:    checks.Finding{Rule: "SH014", Severity: checks.Blocking, Path: "a.sh", Line: 2, Body: "m", Problem: "Parser says:\n```\n2:5: unclosed quote"},
			want: []string{"2:5: unclosed quote\n```\n</details>"},
		},
		{
			name: "every part under its one heading, in the seeds' order",
			f: checks.Finding{Rule: "SH002", Severity: checks.Blocking, Path: "a.sh", Line: 2, Body: "m",
				Problem: "P.", Why: "W.", Evidence: "The siblings export it:", Related: []checks.Location{{Path: "b.sh", Line: 3}},
				Notes: []checks.Note{{Title: "Why nothing else catches it", Text: "N."}}, Steps: []string{"one.", "two."},
				Fix: "Export it:", Suggestion: &checks.Suggestion{Line: 2, Replacement: "export X=1"}},
			want: []string{detailsOpen + "\n\n**The problem.** P.\n\n**Why it matters.** W.\n\n**Evidence.** The siblings export it:\n\n- `b.sh:3`\n\n" +
				"**Why nothing else catches it.** N.\n\n**Step by step.**\n\n1. one.\n2. two.\n\n**Fix.** Export it:\n\nSuggested change:\n```suggestion\nexport X=1\n```\n</details>"},
		},
		{
			name: "a part that opens with a block starts under its heading",
			f: checks.Finding{Rule: "CL005", Severity: checks.Blocking, Path: "p.yaml", Line: 1, Body: "m",
				Notes: []checks.Note{{Title: "Expected shape", Text: "```yaml\n- config-keys: []\n```"}}, Evidence: "- one\n- two", Why: "1. first"},
			want: []string{"**Expected shape.**\n\n```yaml\n- config-keys: []\n```", "**Evidence.**\n\n- one\n- two", "**Why it matters.**\n\n1. first"},
		},
		{
			name:    "a fix in prose alone",
			f:       checks.Finding{Rule: "MC002", Severity: checks.Blocking, Path: "c.yaml", Line: 1, Body: "m", Fix: "Push the image."},
			want:    []string{detailsOpen + "\n\n**Fix.** Push the image.\n</details>"},
			notWant: []string{"Suggested change", "**Evidence.**"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RenderComment(tt.f)
			checkText(t, "body", got, tt.want, tt.notWant)
			if !strings.HasSuffix(got, "fp="+Fingerprint(tt.f)+" -->") {
				t.Errorf("body does not end with its marker:\n%s", got)
			}
		})
	}
}

// checkText fails for each of want that text lacks and each of notWant
// it has.
func checkText(t *testing.T, what, text string, want, notWant []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
	for _, w := range notWant {
		if strings.Contains(text, w) {
			t.Errorf("%s has %q:\n%s", what, w, text)
		}
	}
}

func TestSuggestionNotApplicable(t *testing.T) {
	f := simpleOffloadFinding()
	got := renderInline(f, false)
	if strings.Contains(got, "```suggestion") {
		t.Errorf("a comment off the suggestion's lines offers to apply it:\n%s", got)
	}
	want := "Replace `" + b300Recipe + ":99` with:\n```\n  vllm-simple)\n    export VLLM_USE_SIMPLE_KV_OFFLOAD=1\n```"
	if !strings.Contains(got, want) {
		t.Errorf("body lacks %q:\n%s", want, got)
	}
}
