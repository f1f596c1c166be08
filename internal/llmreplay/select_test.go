package llmreplay

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestEndOfDay(t *testing.T) {
	for in, want := range map[string]string{
		"2026-03-02T00:00:00Z":      "2026-03-02T23:59:59Z",
		"2026-03-02T23:59:59Z":      "2026-03-02T23:59:59Z",
		"2026-03-02T22:00:00-05:00": "2026-03-03T23:59:59Z", // the day is UTC's
	} {
		if got := EndOfDay(at(in)); !got.Equal(at(want)) {
			t.Errorf("EndOfDay(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestSelect(t *testing.T) {
	// In rev-list's order; c3's clock is behind its parent's.
	cands := []Candidate{
		{SHA: "c5", Date: at("2026-03-05T10:00:00Z"), Blob: "new"},
		{SHA: "c4", Date: at("2026-03-03T09:00:00Z"), Blob: ""},
		{SHA: "c3", Date: at("2026-03-02T08:00:00Z"), Blob: "old"},
		{SHA: "c2", Date: at("2026-03-02T23:59:59Z"), Blob: "old"},
		{SHA: "c1", Date: at("2026-03-01T10:00:00Z"), Blob: "first"},
	}
	holding := func(blobs ...string) func(string) (bool, error) {
		return func(b string) (bool, error) {
			for _, x := range blobs {
				if b == x {
					return true, nil
				}
			}
			return false, nil
		}
	}
	tests := []struct {
		name   string
		cutoff string
		holds  func(string) (bool, error)
		want   string
	}{
		{"newest that holds", "2026-03-09T23:59:59Z", holding("new", "old"), "c5"},
		{"newer ones are after the day", "2026-03-02T23:59:59Z", holding("new", "old", "first"), "c2"},
		{"by date, not by rev-list order", "2026-03-03T23:59:59Z", holding("old"), "c2"},
		{"a commit without the file never holds", "2026-03-03T23:59:59Z", holding("", "first"), "c1"},
		{"none before the day", "2026-02-28T23:59:59Z", holding("new", "old", "first"), ""},
		{"none holds", "2026-03-09T23:59:59Z", holding(), ""},
		{"no cutoff", "", holding("new"), "c5"},
	}
	for _, tt := range tests {
		var cutoff time.Time
		if tt.cutoff != "" {
			cutoff = at(tt.cutoff)
		}
		asked := map[string]int{}
		i, err := Select(cands, cutoff, func(b string) (bool, error) {
			asked[b]++
			return tt.holds(b)
		})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if i >= 0 {
			got = cands[i].SHA
		}
		if got != tt.want {
			t.Errorf("%s: Select = %q, want %q", tt.name, got, tt.want)
		}
		for b, n := range asked {
			if n > 1 || b == "" {
				t.Errorf("%s: blob %q asked %d times", tt.name, b, n)
			}
		}
	}
	boom := errors.New("boom")
	if _, err := Select(cands, time.Time{}, func(string) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("error = %v", err)
	}
}

func TestMatch(t *testing.T) {
	ours := []checks.Finding{
		{Rule: "A", Path: "p.yaml", Line: 10},
		{Rule: "B", Path: "p.yaml", Line: 20, EndLine: 30},
		{Rule: "C", Path: "p.yaml", Line: 50, Side: checks.Base},
		{Rule: "D", Path: "p.yaml", Line: 0},
		{Rule: "E", Path: "q.sh", Line: 12},
	}
	rules := func(fs []checks.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Rule)
		}
		return out
	}
	tests := []struct {
		name string
		path string
		span *Span
		want []string
	}{
		{"inside", "p.yaml", &Span{9, 11}, []string{"A"}},
		{"three lines above the span", "p.yaml", &Span{13, 13}, []string{"A"}},
		{"four lines above it", "p.yaml", &Span{14, 16}, nil},
		{"three lines below the span", "p.yaml", &Span{5, 7}, []string{"A"}},
		{"a range of ours meets the span", "p.yaml", &Span{25, 26}, []string{"B"}},
		{"past the end of the range by three", "p.yaml", &Span{33, 40}, []string{"B"}},
		{"both", "p.yaml", &Span{12, 17}, []string{"A", "B"}},
		{"base-side lines are no head lines", "p.yaml", &Span{50, 50}, nil},
		{"another path", "q.sh", &Span{10, 11}, []string{"E"}},
		{"no span: anything on the file", "p.yaml", nil, []string{"A", "B", "C", "D"}},
		{"no span, nothing on the file", "r.md", nil, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, rules(Match(tt.path, tt.span, ours))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
