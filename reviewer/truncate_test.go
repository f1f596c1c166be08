package reviewer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reviewbot-dev/reviewbot/checks"
)

var noteRE = regexp.MustCompile(`… \(truncated: (\d+) characters omitted; run ` + "`reviewbot review`" + ` locally for the full text\)`)

func runes(s string) int { return utf8.RuneCountInString(s) }

func TestRenderCommentHugeDetails(t *testing.T) {
	f := prLinkFinding()

	// Multi-byte text: the limit is in characters, not bytes.
	para := "Die Prüfung schlägt fehl — 失败 — weil der Link nicht passt.\n"
	f.Problem = "The problem stays whole."
	f.Steps = []string{"First step.", strings.Repeat(para, 3000)}
	got := RenderComment(f)
	if n := runes(got); n > MaxBodyChars {
		t.Fatalf("body has %d characters, limit %d", n, MaxBodyChars)
	}
	if n := runes(got); n < MaxBodyChars-2000 {
		t.Errorf("body has %d characters; truncation threw away far more than needed", n)
	}
	for _, want := range []string{
		"🔴 The entry appended",
		"**The problem.** The problem stays whole.",
		"**Step by step.**\n\n1. First step.\n2. Die Prüfung",
		"**Evidence.**",
		"- `inferencex-e2e/perf-changelog.yaml:4795`",
		"```suggestion\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2225\n```\n</details>\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("truncated body lost %q", want)
		}
	}
	if !strings.HasSuffix(got, "</details>\n"+findingMarker("CL001", Fingerprint(f))) {
		t.Errorf("truncated body does not end with </details> and the marker:\n%s", got[len(got)-300:])
	}
	m := noteRE.FindStringSubmatch(got)
	if m == nil {
		t.Fatal("no truncation note")
	}
	// The note sits in the steps, and counts what they lost.
	steps := renderSteps(f.Steps)
	start := strings.Index(got, "**Step by step.**")
	kept := runes(strings.SplitN(got[start:], "\n\n…", 2)[0])
	if omitted, _ := strconv.Atoi(m[1]); omitted < runes(steps)-kept-1 || omitted > runes(steps)-kept+1 {
		t.Errorf("note says %d omitted; %d of %d characters of the steps were kept", omitted, kept, runes(steps))
	}
	if _, _, ok := ParseFindingMarker(got); !ok {
		t.Error("marker unreadable after truncation")
	}
}

func TestTruncate(t *testing.T) {
	marker := findingMarker("SH011", "0123456789abcdef")
	tests := []struct {
		name    string
		body    string
		max     int
		want    []string
		notWant []string
	}{
		{
			name: "short body untouched",
			body: "🔴 short\n" + marker,
			max:  100,
			want: []string{"🔴 short\n" + marker},
		},
		{
			name:    "cut inside a suggestion drops the whole block",
			body:    "🔴 m\n\n" + detailsOpen + "\n\nwhy\n\n**Suggested fix**\n```suggestion\n" + strings.Repeat("patched line\n", 500) + "```\n</details>\n" + marker,
			max:     1000,
			want:    []string{"why\n\n**Suggested fix**\n\n… (truncated:", "\n</details>\n" + marker},
			notWant: []string{"```suggestion", "patched line"},
		},
		{
			name: "cut inside another fence closes it",
			body: "🔴 m\n\n" + detailsOpen + "\n\n```bash\n" + strings.Repeat("echo one line\n", 500) + "```\n</details>\n" + marker,
			max:  1000,
			want: []string{"echo one line\n```\n\n… (truncated:", "\n</details>\n" + marker},
		},
		{
			name: "the kept closing tag closes the details the cut opened",
			body: "- 🟡 `a.sh:1` — m\n\n  " + detailsOpen + "\n\n" + strings.Repeat("  reasoning\n", 500) + "\n  </details>\n\n- 🔴 `b.sh:2` — n\n\n  " + detailsOpen + "\n\n  short\n\n  </details>\n\n" + summaryMarker,
			max:  800,
			want: []string{"reasoning\n\n… (truncated:", "for the full text)\n\n  </details>\n\n" + summaryMarker},
		},
		{
			name:    "details left open by the cut are closed before the marker",
			body:    detailsOpen + "\n\n" + strings.Repeat("reasoning\n", 500) + "</details>\n\nLast words.\n" + summaryMarker,
			max:     800,
			want:    []string{"reasoning\n\n… (truncated:", "for the full text)\n</details>\n" + summaryMarker},
			notWant: []string{"Last words"},
		},
		{
			name: "one long line is cut mid-line",
			body: strings.Repeat("é", 10000) + "\n" + marker,
			max:  5000,
			want: []string{"éé\n\n… (truncated:", marker},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.body, tt.max)
			if n := runes(got); n > tt.max {
				t.Errorf("%d characters, limit %d", n, tt.max)
			}
			checkText(t, "result", got, tt.want, tt.notWant)
			if runes(tt.body) > tt.max {
				m := noteRE.FindStringSubmatch(got)
				if m == nil {
					t.Fatalf("no truncation note:\n%s", got)
				}
			}
		})
	}
}

// The omitted count is exact when nothing had to be added to balance the cut.
func TestTruncateCountsOmitted(t *testing.T) {
	body := strings.Repeat("line of text\n", 1000) + "<!-- reviewbot:summary -->"
	got := Truncate(body, 2000)
	m := noteRE.FindStringSubmatch(got)
	if m == nil {
		t.Fatal("no note")
	}
	omitted, _ := strconv.Atoi(m[1])
	kept := runes(got[:strings.Index(got, "\n\n…")]) + runes(summaryMarker)
	if omitted != runes(body)-kept {
		t.Errorf("note says %d omitted, %d of %d characters kept", omitted, kept, runes(body))
	}
}

// Truncate never exceeds the limit nor panics, however small the limit.
func TestTruncateAnyLimit(t *testing.T) {
	bodies := []string{
		RenderComment(prLinkFinding()),
		BuildPlan(sampleFindings(), sampleFiles(), PlanOptions{}).Summary,
		strings.Repeat("<!-- reviewbot:posted rule=X fp=0123456789abcdef path=a where=inline -->\n", 40) + summaryMarker,
	}
	for bi, body := range bodies {
		for max := -1; max <= runes(body)+1; max += 7 {
			got := Truncate(body, max)
			if n := runes(got); n > max && !(max < 0 && n == 0) {
				t.Fatalf("body %d, max %d: got %d characters", bi, max, n)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("body %d, max %d: invalid UTF-8", bi, max)
			}
			// Once the limit leaves room for a note, the last marker survives.
			if max > 400 && max < runes(body) {
				last := body[strings.LastIndex(body, "<!--"):]
				if !strings.HasSuffix(got, last) {
					t.Errorf("body %d, max %d: lost its final marker", bi, max)
				}
			}
		}
	}
}

func TestSummaryWithManyHugeOutsideFindings(t *testing.T) {
	var fs []checks.Finding
	for i := range 60 {
		f := maxSeqsFinding()
		f.Path = fmt.Sprintf("benchmarks/single_node/agentic/recipe_%02d.sh", i)
		f.Why = strings.Repeat("A long argument about per-rank caps. ", 200)
		fs = append(fs, f)
	}
	plan := BuildPlan(fs, nil, PlanOptions{})
	if n := runes(plan.Summary); n > MaxBodyChars {
		t.Fatalf("summary has %d characters", n)
	}
	for _, f := range fs {
		if !strings.Contains(plan.Summary, "`"+f.Path+":206`") {
			t.Errorf("summary lost %s", f.Path)
		}
	}
	if got := len(ParseSummaryFindings(plan.Summary)); got != len(fs) {
		t.Errorf("summary state holds %d findings, want %d", got, len(fs))
	}
	if !strings.HasSuffix(plan.Summary, summaryMarker) {
		t.Error("summary does not end with its marker")
	}
}
