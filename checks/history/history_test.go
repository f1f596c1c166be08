package history

import (
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func TestSummarize(t *testing.T) {
	ms := time.Millisecond
	recs := []*Record{
		{PR: 1, Source: PRHead, HeadSHA: "a", Elapsed: 10 * ms, Findings: []checks.Finding{
			{Rule: "CL001", Severity: checks.Blocking}, {Rule: "CL001", Severity: checks.Blocking}, {Rule: "SH004", Severity: checks.Warning}}},
		{PR: 2, Source: MergeCommit, HeadSHA: "b", Elapsed: 30 * ms, Findings: []checks.Finding{{Rule: "SH004", Severity: checks.Warning}}},
		{PR: 3, Source: PRHead, HeadSHA: "c", Elapsed: 20 * ms},
		{PR: 4, Source: PRHead, Error: "unknown revision"},
	}
	s := Summarize(recs)
	if s.PRs != 4 || s.Reviewed != 3 || s.Errors != 1 || s.BlockingPRs != 1 || s.WarningPRs != 1 || s.FromPRHeads != 3 || s.FromCommits != 1 {
		t.Errorf("summary %+v", s)
	}
	want := []RuleCount{{Rule: "CL001", Blocking: 2, PRs: 1}, {Rule: "SH004", Warning: 2, PRs: 2}}
	if len(s.Rules) != 2 || s.Rules[0] != want[0] || s.Rules[1] != want[1] {
		t.Errorf("rules %+v, want %+v", s.Rules, want)
	}
	if s.Median != 20*ms || s.P95 != 30*ms || s.BlockingRate != 0.25 {
		t.Errorf("median %v p95 %v rate %v", s.Median, s.P95, s.BlockingRate)
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i))
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 50}, {0.95, 95}, {1, 100}, {0, 1}} {
		if got := percentile(ds, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if percentile(nil, 0.5) != 0 {
		t.Error("empty input")
	}
}
