package changelog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConfigAndShapeRules(t *testing.T) {
	app := func(keys []string, extra string) string {
		return baseLog + "\n" + entry(keys, "Retune", "XXX") + extra
	}
	bumped := strings.Replace(masterCfg, "vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.12.0", 1) // kimik2.5 at line 30
	agenticBump := strings.Replace(masterCfg, "{tp: 4, conc-list: [1, 2]}", "{tp: 4, conc-list: [1, 2, 4]}", 1)
	cfg := "configs/nvidia-master.yaml"
	for _, tc := range []struct {
		name  string
		base  map[string]string
		head  map[string]string
		want  []string
		check func(t *testing.T, r result)
	}{
		{name: "config changed without an entry",
			base: withLog(baseLog), head: withLog(baseLog, cfg, bumped),
			want: []string{"CL003 configs/nvidia-master.yaml:26"},
			check: func(t *testing.T, r result) {
				f := r.get("CL003")
				if !strings.Contains(f.Message, "`kimik2.5-fp4-b200-vllm` (line 26)") || !strings.Contains(f.Details, "    - kimik2.5-fp4-b200-vllm\n") || strings.Contains(f.Details, "scenario-type") {
					t.Errorf("finding: %s\n%s", f.Message, f.Details)
				}
				if len(f.Related) == 0 || f.Related[0].Line != 26 || f.Related[0].Side != "base" {
					t.Errorf("related: %+v", f.Related)
				}
			}},
		{name: "agentic config changed without an entry suggests scenario-type",
			base: withLog(baseLog), head: withLog(baseLog, cfg, agenticBump),
			want: []string{"CL003 configs/nvidia-master.yaml:18"},
			check: func(t *testing.T, r result) {
				if d := r.get("CL003").Details; !strings.Contains(d, "  scenario-type:\n    - agentic-coding\n") {
					t.Errorf("details: %s", d)
				}
			}},
		{name: "config changed with an exact entry",
			base: withLog(baseLog), head: withLog(app([]string{"kimik2.5-fp4-b200-vllm"}, ""), cfg, bumped), want: []string{}},
		{name: "config changed with a glob entry",
			base: withLog(baseLog), head: withLog(app([]string{"kimik2.5*"}, ""), cfg, bumped), want: []string{}},
		{name: "config changed with an entry for another key",
			base: withLog(baseLog), head: withLog(app([]string{"dsv4-fp4-b200-vllm"}, ""), cfg, bumped),
			want: []string{"CL003 configs/nvidia-master.yaml:26"},
			check: func(t *testing.T, r result) {
				if d := r.get("CL003").Details; !strings.Contains(d, "perf-changelog.yaml:28`: `dsv4-fp4-b200-vllm`") {
					t.Errorf("details: %s", d)
				}
			}},
		{name: "comment-only and formatting-only config change",
			base: withLog(baseLog), head: withLog(baseLog, cfg, strings.NewReplacer(
				"# agentic\n", "# agentic configs\n",
				"  image: lmsysorg/sglang:v0.5.5\n", "  image: 'lmsysorg/sglang:v0.5.5'   # pinned\n",
				"{tp: 8, conc-list: [4, 8]}", "{conc-list: [4, 8], tp: 8}",
			).Replace(masterCfg)), want: []string{}},
		{name: "a number quoted is a change",
			base: withLog(baseLog), head: withLog(baseLog, cfg, strings.Replace(masterCfg, "{tp: 4, conc-list: [1, 2]}", "{tp: \"4\", conc-list: [1, 2]}", 1)),
			want: []string{"CL003 configs/nvidia-master.yaml:18"}},
		{name: "rewritten with an anchor and a merge key is no change",
			base: withLog(baseLog), head: withLog(baseLog, cfg, strings.Replace(masterCfg,
				"  image: vllm/vllm-openai:v0.12.0\n  model-prefix: dsv4\n  scenarios:\n    agentic-coding:",
				"  <<: &common\n    image: vllm/vllm-openai:v0.12.0\n    model-prefix: dsv4\n  scenarios:\n    agentic-coding:", 1)),
			want: []string{}},
		{name: "alias bomb shared by every key: bounded work, every key counts as changed",
			base: withLog(baseLog, cfg, aliasBombCfg("v1")), head: withLog(baseLog, cfg, aliasBombCfg("v2")),
			want: []string{"CL003 configs/nvidia-master.yaml:1"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL003").Message; !strings.Contains(m, "`k0-fp4-b200-vllm` (line 42)") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "key removed needs no entry",
			base: withLog(baseLog), head: withLog(baseLog, cfg, masterCfg[:strings.Index(masterCfg, "kimik2.5")]), want: []string{}},
		{name: "new key without an entry",
			base: withLog(baseLog), head: withLog(baseLog, cfg, masterCfg+"\ndsr1-fp4-b200-sglang:\n  image: lmsysorg/sglang:v0.5.5\n"),
			want: []string{"CL003 configs/nvidia-master.yaml:33"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL003").Message; !strings.Contains(m, "(new, line 33)") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "newer layout config without an entry",
			base: map[string]string{"inferencex-e2e/perf-changelog.yaml": baseLog, "inferencex-e2e/configs/nvidia-master.yaml": masterCfg},
			head: map[string]string{"inferencex-e2e/perf-changelog.yaml": baseLog, "inferencex-e2e/configs/nvidia-master.yaml": bumped},
			want: []string{"CL003 inferencex-e2e/configs/nvidia-master.yaml:26"}},
		{name: "unknown key with a did-you-mean",
			base: withLog(baseLog), head: withLog(app([]string{"dsv4-fp4-b300-vllm-agentc"}, "")),
			want: []string{"CL004 perf-changelog.yaml:29"},
			check: func(t *testing.T, r result) {
				f := r.get("CL004")
				if !strings.Contains(f.Message, "Did you mean `dsv4-fp4-b300-vllm-agentic` (`configs/nvidia-master.yaml:18`)") ||
					f.Suggestion == nil || f.Suggestion.Replacement != "    - dsv4-fp4-b300-vllm-agentic" {
					t.Errorf("finding: %s %+v", f.Message, f.Suggestion)
				}
			}},
		{name: "glob matching nothing",
			base: withLog(baseLog), head: withLog(app([]string{"qwen3*"}, "")),
			want: []string{"CL004 perf-changelog.yaml:29"}},
		{name: "key only in the base's configs (retired by this PR)",
			base: withLog(baseLog), head: withLog(app([]string{"kimik2.5-fp4-b200-vllm"}, ""), cfg, masterCfg[:strings.Index(masterCfg, "kimik2.5")]), want: []string{}},
		{name: "key of an archived config",
			base: withLog(baseLog, "configs/deprecated/nvidia-master.yaml", "llama70b-fp8-h100-vllm:\n  image: x\n"),
			head: withLog(app([]string{"llama70b-fp8-h100-vllm"}, ""), "configs/deprecated/nvidia-master.yaml", "llama70b-fp8-h100-vllm:\n  image: x\n"), want: []string{}},
		{name: "unparsable master config keeps CL004 quiet",
			base: withLog(baseLog, cfg, "a: 1\n\tb: [\n"), head: withLog(app([]string{"nope"}, ""), cfg, "a: 1\n\tb: [\n"), want: []string{}},
		{name: "tab, duplicate key, unknown key, bad shapes",
			base: withLog(baseLog),
			head: withLog(baseLog + "\n- config-keys: dsv4-fp4-b200-vllm\n  description:\n    - \"a\"\n    - 42\n  description:\n    - \"b\"\n  pr-link: XXX\n  append-only: false\n  pr_link: XXX\n"),
			want: []string{"CL005 perf-changelog.yaml:28", "CL005 perf-changelog.yaml:32", "CL005 perf-changelog.yaml:35", "CL005 perf-changelog.yaml:36"},
			check: func(t *testing.T, r result) {
				var msgs []string
				for _, f := range r.findings {
					msgs = append(msgs, f.Message)
					if strings.Contains(f.Message, "unknown key `pr_link`") && (f.Suggestion == nil || f.Suggestion.Replacement != "  pr-link: XXX") {
						t.Errorf("unknown-key suggestion: %+v", f.Suggestion)
					}
				}
				all := strings.Join(msgs, "\n")
				for _, s := range []string{"`config-keys` as a single value", "defines `description` twice (lines 29 and 32)", "`append-only: false`", "Did you mean `pr-link`?"} {
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
		{name: "unparsable entry: one finding, other entries still judged",
			base: withLog(baseLog),
			head: withLog(baseLog + "\n- config-keys:\n    - dsv4-fp4-b200-vllm\n  description: [\"unclosed\n  pr-link: XXX\n\n" + entry([]string{"dsv4-fp4-b200-vllm"}, "x", testSlug+"TBD")),
			want: []string{"CL001 perf-changelog.yaml:37", "CL005 perf-changelog.yaml:30"}},
		{name: "append-only mixed with a regular entry",
			base: withLog(baseLog), head: withLog(app([]string{"dsv4-fp4-b200-vllm"}, "  append-only: true\n\n"+entry([]string{"kimik2.5-fp4-b200-vllm"}, "y", "XXX"))),
			want: []string{"CL006 perf-changelog.yaml:33"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL006").Message; !strings.Contains(m, "a regular entry: `kimik2.5-fp4-b200-vllm` (line 35)") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "append-only alone is fine",
			base: withLog(baseLog), head: withLog(app([]string{"dsv4-fp4-b200-vllm"}, "  append-only: true\n")), want: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runReview(t, tc.base, tc.head, 2301)
			if d := cmp.Diff(tc.want, r.ids()); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
				for _, f := range r.findings {
					t.Logf("%s:%d %s", f.Rule, f.Line, f.Message)
				}
			}
			if tc.check != nil && len(r.findings) > 0 {
				tc.check(t, r)
			}
		})
	}
}

// aliasBombCfg is a master config whose keys all refer to a value that
// expands to 2^41 nodes ("billion laughs"); the keys reach other keys'
// anchors, so it cannot be split into keys and is compared whole.
func aliasBombCfg(image string) string {
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x]\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [*l%d, *l%d]\n", i, i, i-1, i-1)
	}
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "k%d-fp4-b200-vllm:\n  image: %s\n  bomb: *l40\n", i, image)
	}
	return b.String()
}
