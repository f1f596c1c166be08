package changelog

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func TestCL005(t *testing.T) {
	runCases(t, 2301, []ruleCase{
		{name: "tab, duplicate key, unknown key, bad shapes",
			base: withLog(baseLog),
			head: withLog(baseLog + "\n- config-keys: dsv4-fp4-b200-vllm\n  description:\n    - \"a\"\n    - 42\n  description:\n    - \"b\"\n  pr-link: XXX\n  append-only: false\n  pr_link: XXX\n"),
			// append-only: false is a valid boolean (the validator's model accepts it).
			want: []string{"CL005 perf-changelog.yaml:28", "CL005 perf-changelog.yaml:32", "CL005 perf-changelog.yaml:36"},
			check: func(t *testing.T, r result) {
				var msgs []string
				for _, f := range r.findings {
					msgs = append(msgs, f.Body)
					if strings.Contains(f.Body, "unknown key `pr_link`") && (f.Suggestion == nil || f.Suggestion.Replacement != "  pr-link: XXX") {
						t.Errorf("unknown-key suggestion: %+v", f.Suggestion)
					}
				}
				all := strings.Join(msgs, "\n")
				for _, s := range []string{"`config-keys` as `dsv4-fp4-b200-vllm` (a string), not a list", "defines `description` twice (lines 29 and 32)", "Did you mean `pr-link`?"} {
					if !strings.Contains(all, s) {
						t.Errorf("no message mentions %q:\n%s", s, all)
					}
				}
			}},
		{name: "tab, CR and missing final newline added by the PR",
			base: withLog(baseLog), head: withLog(baseLog + "\n- config-keys:\n    - dsv4-fp4-b200-vllm\n  description:\n    - \"a\tb\"\r\n  pr-link: XXX"),
			want: []string{"CL005 perf-changelog.yaml:31", "CL005 perf-changelog.yaml:31", "CL005 perf-changelog.yaml:32"}},
		{name: "NUL byte (git calls the file binary, so the diff has no hunks)",
			base: withLog(baseLog), head: withLog(baseLog + "\n" + entry([]string{"dsv4-fp4-b200-vllm"}, "a\x00b", "XXX")),
			want: []string{"CL005 perf-changelog.yaml:31"},
			check: func(t *testing.T, r result) {
				if f := r.get("CL005"); f.Title != "NUL byte in the perf changelog" {
					t.Errorf("finding: %+v", f)
				}
			}},
		{name: "invalid UTF-8",
			base: withLog(baseLog), head: withLog(baseLog + "\n" + entry([]string{"dsv4-fp4-b200-vllm"}, "a\xffb", "XXX")),
			want: []string{"CL005 perf-changelog.yaml:31"}},
		{name: "tab already in history is not this PR's problem",
			base: withLog(strings.Replace(baseLog, "Nightly image", "Nightly\timage", 1)),
			head: withLog(strings.Replace(baseLog, "Nightly image", "Nightly\timage", 1) + "\n" + entry([]string{"dsv4-fp4-b200-vllm"}, "x", "XXX")),
			want: []string{}},
		{name: "all-evals and eval-min-prefill-ep are valid keys",
			base: withLog(baseLog), head: withLog(baseLog + "\n" + strings.TrimSuffix(entry([]string{"dsv4-fp4-b200-vllm"}, "Re-run evals", "XXX"), "\n") + "\n  all-evals: true\n  eval-min-prefill-ep: 8\n"),
			want: []string{}},
		{name: "scenario-type value the validator does not know",
			base: withLog(baseLog), head: withLog(baseLog + "\n- config-keys:\n    - dsv4-fp4-b300-vllm-agentic\n  scenario-type:\n    - agentic\n  description:\n    - \"x\"\n  pr-link: XXX\n"),
			want: []string{"CL005 perf-changelog.yaml:31"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL005").Body; !strings.Contains(m, "lists `agentic` under `scenario-type`") || !strings.Contains(m, "Did you mean `agentic-coding`?") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "scenario type added in .github/reviewbot.yml",
			base: withLog(baseLog, ".github/reviewbot.yml", "changelog:\n  scenario-types: [agentic]\n  fields:\n    owner: string\n"),
			head: withLog(baseLog+"\n- config-keys:\n    - dsv4-fp4-b300-vllm-agentic\n  scenario-type:\n    - agentic\n  description:\n    - \"x\"\n  pr-link: XXX\n  owner: perf-team\n", ".github/reviewbot.yml", "changelog:\n  scenario-types: [agentic]\n  fields:\n    owner: string\n"),
			want: []string{}},
		{name: "append-only combined with an eval field",
			base: withLog(baseLog), head: withLog(baseLog + "\n" + strings.TrimSuffix(entry([]string{"dsv4-fp4-b200-vllm"}, "More points", "XXX"), "\n") + "\n  append-only: true\n  evals-only: true\n"),
			want: []string{"CL005 perf-changelog.yaml:34"}},
		{name: "entry that does not start with config-keys",
			base: withLog(baseLog), head: withLog(baseLog + "\n- description:\n    - \"x\"\n  config-keys:\n    - dsv4-fp4-b200-vllm\n  pr-link: XXX\n"),
			want: []string{"CL005 perf-changelog.yaml:28"}},
		{name: "empty description item is a warning",
			base: withLog(baseLog), head: withLog(baseLog + "\n" + entry([]string{"dsv4-fp4-b200-vllm"}, "", "XXX")),
			want: []string{"CL005 perf-changelog.yaml:31"},
			check: func(t *testing.T, r result) {
				if f := r.get("CL005"); f.Severity != checks.Warning {
					t.Errorf("severity %v", f.Severity)
				}
			}},
		{name: "unparsable entry: one finding, other entries still judged",
			base: withLog(baseLog),
			head: withLog(baseLog + "\n- config-keys:\n    - dsv4-fp4-b200-vllm\n  description: [\"unclosed\n  pr-link: XXX\n\n" + entry([]string{"dsv4-fp4-b200-vllm"}, "x", testSlug+"TBD")),
			want: []string{"CL001 perf-changelog.yaml:37", "CL005 perf-changelog.yaml:30"}},
	})
}
