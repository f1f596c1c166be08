package changelog

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

func TestCL001(t *testing.T) {
	appended := func(link string) string {
		return baseLog + "\n" + entry([]string{"dsv4-fp4-b300-vllm-agentic"}, "Add LMCache arm", link)
	}
	// The PR is #2225.
	runCases(t, 2225, []ruleCase{
		{name: "no change", base: withLog(baseLog), head: withLog(baseLog), want: []string{}},
		{name: "placeholder XXX", base: withLog(baseLog), head: withLog(appended("XXX")), want: []string{}},
		{name: "placeholder pull/XXX", base: withLog(baseLog), head: withLog(appended(testSlug + "XXX")), want: []string{}},
		{name: "own link", base: withLog(baseLog), head: withLog(appended(testSlug + "2225")), want: []string{}},
		{name: "another PR's number", base: withLog(baseLog), head: withLog(appended(testSlug + "2202")),
			want: []string{"CL001 perf-changelog.yaml:32"},
			check: func(t *testing.T, r result) {
				f := r.get("CL001")
				for _, s := range []string{"`pull/2202`", "PR #2225", testSlug + "2225", "`XXX`"} {
					if !strings.Contains(f.Body, s) {
						t.Errorf("message lacks %q: %s", s, f.Body)
					}
				}
				if f.Suggestion == nil || f.Suggestion.Replacement != "  pr-link: "+testSlug+"2225" || f.Suggestion.Line != 32 {
					t.Errorf("suggestion = %+v", f.Suggestion)
				}
				if len(f.Related) != 2 || f.Related[0].Line != 26 || f.Related[1].Line != 11 {
					t.Errorf("related = %+v", f.Related)
				}
				if f.Key != "pr-link:"+testSlug+"2202" {
					t.Errorf("key = %q", f.Key)
				}
			}},
	})
	// The PR is #2232.
	runCases(t, 2232, []ruleCase{
		{name: "four X", base: withLog(baseLog), head: withLog(appended(testSlug + "XXXX")), want: []string{"CL001 perf-changelog.yaml:32"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL001").Body; !strings.Contains(m, "four X's") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "TBD", base: withLog(baseLog), head: withLog(appended(testSlug + "TBD")), want: []string{"CL001 perf-changelog.yaml:32"}},
		{name: "bare XXXX", base: withLog(baseLog), head: withLog(appended("XXXX")), want: []string{"CL001 perf-changelog.yaml:32"}},
		{name: "changes suffix", base: withLog(baseLog), head: withLog(appended(testSlug + "2232/changes")), want: []string{"CL001 perf-changelog.yaml:32"}},
		{name: "http", base: withLog(baseLog), head: withLog(appended("http://github.com/SemiAnalysisAI/InferenceX/pull/2232")), want: []string{"CL001 perf-changelog.yaml:32"}},
		{name: "other repository", base: withLog(baseLog), head: withLog(appended("https://github.com/someone/InferenceX/pull/2232")), want: []string{"CL001 perf-changelog.yaml:32"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL001").Body; !strings.Contains(m, "`someone/InferenceX`") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "empty link", base: withLog(baseLog), head: withLog(appended(`""`)), want: []string{"CL001 perf-changelog.yaml:32"}},
		{name: "missing link", base: withLog(baseLog), head: withLog(appended("")), want: []string{"CL001 perf-changelog.yaml:28"},
			check: func(t *testing.T, r result) {
				f := r.get("CL001")
				if f.Suggestion == nil || f.Suggestion.Line != 31 || !strings.HasSuffix(f.Suggestion.Replacement, "\n  pr-link: "+testSlug+"2232") {
					t.Errorf("suggestion = %+v", f.Suggestion)
				}
			}},
	})
	// The PR number is unknown.
	runCases(t, 0, []ruleCase{
		{name: "no PR number: other canonical number is fine", base: withLog(baseLog), head: withLog(appended(testSlug + "2202")), want: []string{}},
		{name: "no PR number: TBD still wrong", base: withLog(baseLog), head: withLog(appended(testSlug + "TBD")), want: []string{"CL001 perf-changelog.yaml:32"},
			check: func(t *testing.T, r result) {
				f := r.get("CL001")
				if f.Suggestion == nil || !strings.HasSuffix(f.Suggestion.Replacement, "pull/XXX") {
					t.Errorf("suggestion = %+v", f.Suggestion)
				}
			}},
	})
}

// Without the PR number a canonical link of some PR passes, and CL001 says
// it could only check the link's shape; the placeholder and a known number
// leave nothing unjudged.
func TestCL001UnknownNumberIsInconclusive(t *testing.T) {
	for _, tc := range []struct {
		name   string
		link   string
		number int
		want   string
	}{
		{"unknown number", testSlug + "2202", 0, "CL001 perf-changelog.yaml: line 32 links " + testSlug + "2202: the PR number is unknown, so only the link's shape was checked, not that it is this PR's"},
		{"placeholder", "XXX", 0, ""},
		{"known number", testSlug + "2202", 2202, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head := withLog(baseLog + "\n" + entry([]string{"dsv4-fp4-b300-vllm-agentic"}, "Add LMCache arm", tc.link))
			ch := checktest.Change(t, checks.NewMemTree(withLog(baseLog)), checks.NewMemTree(head))
			ch.PR = checks.PRInfo{Number: tc.number, Owner: "SemiAnalysisAI", Repo: "InferenceX"}
			res := checktest.Review(t, ch, CL001)
			var got []string
			for _, n := range res.Stats.Inconclusive {
				got = append(got, n.Rule+" "+n.Path+": "+n.Reason)
			}
			if len(res.Findings) != 0 || strings.Join(got, "|") != tc.want {
				t.Errorf("inconclusive %q, want %q (findings %v)", got, tc.want, res.Findings)
			}
		})
	}
}
