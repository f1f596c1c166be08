package changelog

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// Lines of baseLog: entries at 1-5, 7-11, 13-20 and 22-26.
var baseEntries = strings.SplitAfter(baseLog, "\n\n")

func TestCL002(t *testing.T) {
	newEntry := entry([]string{"dsv4-fp4-b300-vllm-agentic"}, "Add LMCache arm", "XXX")
	appended := baseLog + "\n" + newEntry
	correction := strings.Replace(baseLog, "pull/XXX", "pull/2150", 1)
	runCases(t, 0, []ruleCase{
		{name: "inserted above the last entry",
			base: withLog(baseLog), head: withLog(baseEntries[0] + baseEntries[1] + baseEntries[2] + newEntry + "\n" + baseEntries[3]),
			want: []string{"CL002 perf-changelog.yaml:22"},
			check: func(t *testing.T, r result) {
				f := r.get("CL002")
				if f.EndLine != 26 || !strings.Contains(f.Body, "above the entry for `kimik2.5-fp4-b200-vllm`") || !strings.Contains(f.Body, "below line 32") {
					t.Errorf("finding: %+v", f)
				}
			}},
		{name: "historical entry edited",
			base: withLog(baseLog), head: withLog(strings.Replace(baseLog, `"Add DEP8 arm"`, `"Add DEP8 and TP4 arms"`, 1)),
			want: []string{"CL002 perf-changelog.yaml:18"},
			check: func(t *testing.T, r result) {
				f := r.get("CL002")
				if f.Suggestion == nil || f.Suggestion.Replacement != `    - "Add DEP8 arm"` || f.Suggestion.Line != 18 {
					t.Errorf("suggestion: %+v", f.Suggestion)
				}
				if !strings.Contains(f.Body, "edits the historical entry for `dsv4-fp4-b300-vllm-agentic` (`pull/2190`)") {
					t.Errorf("message: %s", f.Body)
				}
			}},
		{name: "historical entry reformatted",
			base: withLog(baseLog), head: withLog(strings.Replace(baseLog, `"Nightly image"`, `'Nightly image'`, 1)),
			want: []string{"CL002 perf-changelog.yaml:25"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL002").Body; !strings.Contains(m, "reformats") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "entry deleted, reported where it belongs in the head",
			base: withLog(baseLog), head: withLog(baseEntries[0] + baseEntries[2] + baseEntries[3]),
			want: []string{"CL002 perf-changelog.yaml:5"},
			check: func(t *testing.T, r result) {
				f := r.get("CL002")
				if f.Side != checks.Head || f.EndLine != 0 || !strings.Contains(f.Body, "`dsv4-fp4-b200-vllm`") ||
					!strings.Contains(f.Body, "base lines 7-11") || len(f.Notes) != 1 || !strings.Contains(f.Notes[0].Text, "pull/XXX") {
					t.Errorf("finding: %+v", f)
				}
			}},
		{name: "first entry deleted, reported on the base side",
			base: withLog(baseLog), head: withLog(baseEntries[1] + baseEntries[2] + baseEntries[3]),
			want: []string{"CL002 perf-changelog.yaml:1(base)"},
			check: func(t *testing.T, r result) {
				if f := r.get("CL002"); f.EndLine != 5 || !strings.Contains(f.Body, "at the top of the file") {
					t.Errorf("finding: %+v", f)
				}
			}},
		{name: "entry moved",
			base: withLog(baseLog), head: withLog(baseEntries[1] + baseEntries[0] + baseEntries[2] + baseEntries[3]),
			want: []string{"CL002 perf-changelog.yaml:7"}},
		{name: "pr-link-only correction on its own is fine",
			base: withLog(baseLog), head: withLog(correction), want: []string{}},
		{name: "correction to a non-canonical link",
			base: withLog(baseLog), head: withLog(strings.Replace(baseLog, "pull/XXX", "pull/2150/changes", 1)),
			want: []string{"CL002 perf-changelog.yaml:11"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL002").Body; !strings.Contains(m, "not a canonical link") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "correction mixed with an addition",
			base: withLog(baseLog), head: withLog(correction + "\n" + newEntry),
			want: []string{"CL002 perf-changelog.yaml:11"},
			check: func(t *testing.T, r result) {
				f := r.get("CL002")
				if !strings.Contains(f.Body, "also adds new entries (line 28)") || f.Suggestion == nil || !strings.HasSuffix(f.Suggestion.Replacement, "pull/XXX") {
					t.Errorf("finding: %+v", f)
				}
			}},
		{name: "no blank line before the new entry",
			base: withLog(baseLog), head: withLog(baseLog + newEntry),
			want: []string{"CL002 perf-changelog.yaml:27"},
			check: func(t *testing.T, r result) {
				f := r.get("CL002")
				if f.Suggestion == nil || f.Suggestion.Replacement != "\n- config-keys:" {
					t.Errorf("suggestion: %+v", f.Suggestion)
				}
			}},
		{name: "two blank lines before the new entry",
			base: withLog(baseLog), head: withLog(baseLog + "\n\n" + newEntry),
			want: []string{"CL002 perf-changelog.yaml:27"},
			check: func(t *testing.T, r result) {
				f := r.get("CL002")
				if f.EndLine != 29 || f.Suggestion == nil || f.Suggestion.Line != 27 || f.Suggestion.EndLine != 29 {
					t.Errorf("finding: %+v", f)
				}
			}},
		{name: "whitespace-only separator added by the PR",
			base: withLog(baseLog), head: withLog(baseLog + "  \n" + newEntry),
			want: []string{"CL002 perf-changelog.yaml:27"}},
		{name: "whitespace-only line left by the base is not the separator",
			base: withLog(baseLog + "  \n"), head: withLog(baseLog + "  \n" + newEntry),
			want: []string{"CL002 perf-changelog.yaml:28"},
			check: func(t *testing.T, r result) {
				f := r.get("CL002")
				if !strings.Contains(f.Body, "holds 2 spaces") || f.Suggestion == nil || f.Suggestion.Replacement != "\n- config-keys:" || f.Suggestion.Line != 28 {
					t.Errorf("finding: %s %+v", f.Body, f.Suggestion)
				}
			}},
		{name: "base ending with an empty line takes the entry right after it",
			base: withLog(baseLog + "\n"), head: withLog(baseLog + "\n" + newEntry), want: []string{}},
		{name: "base ending with an empty line plus one the PR adds",
			base: withLog(baseLog + "\n"), head: withLog(baseLog + "\n\n" + newEntry),
			want: []string{"CL002 perf-changelog.yaml:28"},
			check: func(t *testing.T, r result) {
				f := r.get("CL002")
				if !strings.Contains(f.Body, "on top of the empty line the base already ends with (line 27)") || f.Suggestion == nil || f.Suggestion.Line != 28 || f.Suggestion.EndLine != 29 || f.Suggestion.Replacement != "- config-keys:" {
					t.Errorf("finding: %s %+v", f.Body, f.Suggestion)
				}
			}},
		{name: "whitespace-only last line of the base emptied",
			base: withLog(baseLog + "  \n"), head: withLog(baseLog + "\n" + newEntry),
			want: []string{"CL002 perf-changelog.yaml:27"},
			check: func(t *testing.T, r result) {
				f := r.get("CL002")
				if f.Title != "Whitespace after the last historical changelog entry changed" || !strings.Contains(f.Body, "line 27 held 2 spaces in the base and holds an empty line now") ||
					f.Suggestion == nil || f.Suggestion.Replacement != "  \n\n- config-keys:" {
					t.Errorf("finding: %s %+v", f.Body, f.Suggestion)
				}
			}},
		{name: "only a blank line added at the end",
			base: withLog(baseLog), head: withLog(baseLog + "\n"),
			want: []string{"CL002 perf-changelog.yaml:27"}},
		{name: "file ends with an empty line after the new entry",
			base: withLog(baseLog), head: withLog(appended + "\n"),
			want: []string{"CL002 perf-changelog.yaml:33"},
			check: func(t *testing.T, r result) {
				f := r.get("CL002")
				if f.Title != "Perf changelog ends with a blank line" || f.Suggestion == nil || f.Suggestion.Line != 32 || f.Suggestion.EndLine != 33 {
					t.Errorf("finding: %+v", f)
				}
			}},
		{name: "second new entry after a whitespace-only line and an empty one",
			base: withLog(baseLog), head: withLog(appended + "  \n\n" + entry([]string{"dsv4-fp4-b200-vllm"}, "x", "XXX")),
			want: []string{"CL007 perf-changelog.yaml:33"}},
		{name: "second new entry after a whitespace-only line only",
			base: withLog(baseLog), head: withLog(appended + "  \n" + entry([]string{"dsv4-fp4-b200-vllm"}, "x", "XXX")),
			want: []string{"CL002 perf-changelog.yaml:33"}},
		{name: "whitespace-only line left by the base plus one blank line is tolerated",
			base: withLog(baseLog + "  \n"), head: withLog(baseLog + "  \n\n" + newEntry), want: []string{}},
		{name: "two appended entries glued together",
			base: withLog(baseLog), head: withLog(appended + entry([]string{"dsv4-fp4-b200-vllm"}, "x", "XXX")),
			want: []string{"CL002 perf-changelog.yaml:33"}},
		{name: "blank line between historical entries removed",
			base: withLog(baseLog), head: withLog(strings.Replace(baseLog, "pull/2101\n\n", "pull/2101\n", 1)),
			want: []string{"CL002 perf-changelog.yaml:6"}},
		{name: "whole file re-saved with CRLF",
			base: withLog(baseLog), head: withLog(strings.ReplaceAll(baseLog, "\n", "\r\n")),
			want: []string{"CL002 perf-changelog.yaml:1", "CL002 perf-changelog.yaml:13", "CL002 perf-changelog.yaml:22", "CL002 perf-changelog.yaml:7", "CL005 perf-changelog.yaml:1"}},
		{name: "changelog deleted",
			base: withLog(baseLog), head: map[string]string{"configs/nvidia-master.yaml": masterCfg},
			want: []string{"CL002 perf-changelog.yaml:1(base)"}},
	})
}
