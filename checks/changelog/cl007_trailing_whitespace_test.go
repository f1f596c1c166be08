package changelog

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func TestCL007(t *testing.T) {
	newEntry := entry([]string{"dsv4-fp4-b300-vllm-agentic"}, "Add LMCache arm", "XXX")
	appended := baseLog + "\n" + newEntry
	runCases(t, 2301, []ruleCase{
		{name: "trailing spaces on an added line",
			base: withLog(baseLog), head: withLog(strings.Replace(appended, "pr-link: XXX", "pr-link: XXX  ", 1)),
			want: []string{"CL007 perf-changelog.yaml:32"},
			check: func(t *testing.T, r result) {
				f := r.get("CL007")
				if f.Severity != checks.Warning || f.Suggestion == nil || f.Suggestion.Replacement != "  pr-link: XXX" {
					t.Errorf("finding: %+v", f)
				}
			}},
		{name: "file ends with a whitespace-only line",
			base: withLog(baseLog), head: withLog(appended + "  \n"),
			want: []string{"CL007 perf-changelog.yaml:33"},
			check: func(t *testing.T, r result) {
				f := r.get("CL007")
				if f.Title != "Perf changelog ends with a whitespace-only line" || !strings.Contains(f.Body, "the next PR that appends must add an empty line") ||
					f.Suggestion == nil || f.Suggestion.Line != 32 || f.Suggestion.EndLine != 33 || f.Suggestion.Replacement != "  pr-link: XXX" {
					t.Errorf("finding: %s %+v", f.Body, f.Suggestion)
				}
			}},
		{name: "whitespace-only line inside the additions: delete, do not empty",
			base: withLog(baseLog), head: withLog(appended + "  \n\n" + entry([]string{"dsv4-fp4-b200-vllm"}, "x", "XXX")),
			want: []string{"CL007 perf-changelog.yaml:33"},
			check: func(t *testing.T, r result) {
				f := r.get("CL007")
				if !strings.Contains(f.Body, "Delete the line (emptying it would add a blank line)") || f.Suggestion == nil || f.Suggestion.Line != 32 || f.Suggestion.EndLine != 33 {
					t.Errorf("finding: %s %+v", f.Body, f.Suggestion)
				}
			}},
		{name: "whitespace-only separator is CL002's",
			base: withLog(baseLog), head: withLog(baseLog + "  \n" + newEntry),
			want: []string{"CL002 perf-changelog.yaml:27"}},
		{name: "trailing spaces already in the history",
			base: withLog(strings.Replace(baseLog, "pull/2222", "pull/2222 ", 1)),
			head: withLog(strings.Replace(baseLog, "pull/2222", "pull/2222 ", 1) + "\n" + newEntry),
			want: []string{}},
		{name: "spaces inside a quoted value are content",
			base: withLog(baseLog), head: withLog(baseLog + "\n" + entry([]string{"dsv4-fp4-b300-vllm-agentic"}, "Add LMCache arm  ", "XXX")),
			want: []string{}},
	})
}
