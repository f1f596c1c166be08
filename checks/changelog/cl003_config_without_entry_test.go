package changelog

import (
	"fmt"
	"strings"
	"testing"
)

func TestCL003(t *testing.T) {
	bumped := strings.Replace(masterCfg, "vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:v0.12.0", 1) // kimik2.5 at line 30
	agenticBump := strings.Replace(masterCfg, "{tp: 4, conc-list: [1, 2]}", "{tp: 4, conc-list: [1, 2, 4]}", 1)
	runCases(t, 2301, []ruleCase{
		{name: "config changed without an entry",
			base: withLog(baseLog), head: withLog(baseLog, nvCfg, bumped),
			want: []string{"CL003 configs/nvidia-master.yaml:27"},
			check: func(t *testing.T, r result) {
				f := r.get("CL003")
				if !strings.Contains(f.Body, "`kimik2.5-fp4-b200-vllm` (line 26)") || !strings.Contains(f.Reasoning(), "    - kimik2.5-fp4-b200-vllm\n") || strings.Contains(f.Reasoning(), "scenario-type") {
					t.Errorf("finding: %s\n%s", f.Body, f.Reasoning())
				}
				if len(f.Related) == 0 || f.Related[0].Line != 26 || f.Related[0].Side != "base" {
					t.Errorf("related: %+v", f.Related)
				}
			}},
		{name: "agentic config changed without an entry suggests scenario-type",
			base: withLog(baseLog), head: withLog(baseLog, nvCfg, agenticBump),
			want: []string{"CL003 configs/nvidia-master.yaml:24"},
			check: func(t *testing.T, r result) {
				if d := r.get("CL003").Reasoning(); !strings.Contains(d, "  scenario-type:\n    - agentic-coding\n") {
					t.Errorf("details: %s", d)
				}
			}},
		{name: "config changed with an exact entry",
			base: withLog(baseLog), head: withLog(appendEntry([]string{"kimik2.5-fp4-b200-vllm"}, ""), nvCfg, bumped), want: []string{}},
		{name: "config changed with a glob entry",
			base: withLog(baseLog), head: withLog(appendEntry([]string{"kimik2.5*"}, ""), nvCfg, bumped), want: []string{}},
		{name: "config changed with an entry for another key",
			base: withLog(baseLog), head: withLog(appendEntry([]string{"dsv4-fp4-b200-vllm"}, ""), nvCfg, bumped),
			want: []string{"CL003 configs/nvidia-master.yaml:27"},
			check: func(t *testing.T, r result) {
				if d := r.get("CL003").Reasoning(); !strings.Contains(d, "perf-changelog.yaml:28`: `dsv4-fp4-b200-vllm`") {
					t.Errorf("details: %s", d)
				}
			}},
		{name: "comment-only and formatting-only config change",
			base: withLog(baseLog), head: withLog(baseLog, nvCfg, strings.NewReplacer(
				"# agentic\n", "# agentic configs\n",
				"  image: lmsysorg/sglang:v0.5.5\n", "  image: 'lmsysorg/sglang:v0.5.5'   # pinned\n",
				"{tp: 8, conc-list: [4, 8]}", "{conc-list: [4, 8], tp: 8}",
			).Replace(masterCfg)), want: []string{}},
		{name: "a dropped concurrency row is a change (the master-config model's removed rows)",
			base: withLog(baseLog), head: withLog(baseLog, nvCfg, strings.Replace(masterCfg,
				"      search-space:\n      - {tp: 8, conc-list: [4, 8]}\n", "      search-space: []\n", 1)),
			want: []string{"CL003 configs/nvidia-master.yaml:7"}},
		{name: "the key's last row dropped is a change",
			base: withLog(baseLog), head: withLog(baseLog, nvCfg, strings.Replace(masterCfg, "      - {tp: 4, conc-list: [1, 2]}\n", "", 1)),
			want: []string{"CL003 configs/nvidia-master.yaml:18"}},
		{name: "rows reordered within a block is no change",
			base: withLog(baseLog, nvCfg, strings.Replace(masterCfg, "      - {tp: 4, conc-list: [1, 2]}\n", "      - {tp: 4, conc-list: [1, 2]}\n      - {tp: 8, conc-list: [1]}\n", 1)),
			head: withLog(baseLog, nvCfg, strings.Replace(masterCfg, "      - {tp: 4, conc-list: [1, 2]}\n", "      - {tp: 8, conc-list: [1]}\n      - {tp: 4, conc-list: [1, 2]}\n", 1)),
			want: []string{}},
		{name: "a number quoted is a change",
			base: withLog(baseLog), head: withLog(baseLog, nvCfg, strings.Replace(masterCfg, "{tp: 4, conc-list: [1, 2]}", "{tp: \"4\", conc-list: [1, 2]}", 1)),
			want: []string{"CL003 configs/nvidia-master.yaml:24"}},
		{name: "rewritten with an anchor and a merge key is no change",
			base: withLog(baseLog), head: withLog(baseLog, nvCfg, strings.Replace(masterCfg,
				"  image: vllm/vllm-openai:v0.12.0\n  model-prefix: dsv4\n  scenarios:\n    agentic-coding:",
				"  <<: &common\n    image: vllm/vllm-openai:v0.12.0\n    model-prefix: dsv4\n  scenarios:\n    agentic-coding:", 1)),
			want: []string{}},
		{name: "alias bomb shared by every key: bounded work, every key counts as changed",
			base: withLog(baseLog, nvCfg, aliasBombCfg("v1")), head: withLog(baseLog, nvCfg, aliasBombCfg("v2")),
			want: []string{"CL003 configs/nvidia-master.yaml:43"}, // the anchors (lines 1-41) are untouched
			check: func(t *testing.T, r result) {
				if m := r.get("CL003").Body; !strings.Contains(m, "`k0-fp4-b200-vllm` (line 42)") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "key removed needs no entry",
			base: withLog(baseLog), head: withLog(baseLog, nvCfg, masterCfg[:strings.Index(masterCfg, "kimik2.5")]), want: []string{}},
		{name: "new key without an entry",
			base: withLog(baseLog), head: withLog(baseLog, nvCfg, masterCfg+"\ndsr1-fp4-b200-sglang:\n  image: lmsysorg/sglang:v0.5.5\n"),
			want: []string{"CL003 configs/nvidia-master.yaml:33"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL003").Body; !strings.Contains(m, "(new, line 33)") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "key moved to another master config unchanged",
			base: withLog(baseLog, "configs/amd-master.yaml", "dsr1-fp8-mi355x-sglang:\n  image: rocm/sgl-dev:v0.5.5\n"),
			head: withLog(baseLog, nvCfg, masterCfg+"\ndsr1-fp8-mi355x-sglang:\n  image: rocm/sgl-dev:v0.5.5   # moved here\n", "configs/amd-master.yaml", "{}\n"),
			want: []string{}},
		{name: "key moved to another master config and changed",
			base: withLog(baseLog, "configs/amd-master.yaml", "dsr1-fp8-mi355x-sglang:\n  image: rocm/sgl-dev:v0.5.5\n"),
			head: withLog(baseLog, nvCfg, masterCfg+"\ndsr1-fp8-mi355x-sglang:\n  image: rocm/sgl-dev:v0.5.6\n", "configs/amd-master.yaml", "{}\n"),
			want: []string{"CL003 configs/nvidia-master.yaml:33"},
			check: func(t *testing.T, r result) {
				f := r.get("CL003")
				if !strings.Contains(f.Body, "changed on its way from `configs/amd-master.yaml:1`") || strings.Contains(f.Body, "remove it instead") {
					t.Errorf("message: %s", f.Body)
				}
			}},
		{name: "key defined unchanged in another master config of the base",
			base: withLog(baseLog, "configs/amd-master.yaml", "dsr1-fp8-mi355x-sglang:\n  image: rocm/sgl-dev:v0.5.5\n"),
			head: withLog(baseLog, nvCfg, masterCfg+"\ndsr1-fp8-mi355x-sglang:\n  image: rocm/sgl-dev:v0.5.5\n", "configs/amd-master.yaml", "dsr1-fp8-mi355x-sglang:\n  image: rocm/sgl-dev:v0.5.5\n"),
			want: []string{}},
		{name: "key restored unchanged from the deprecated configs",
			base: withLog(baseLog, "configs/deprecated/nvidia-kimik2.5-master.yaml", "kimik2.5-int4-h200-vllm:\n  image: vllm/vllm-openai:v0.11.0\n"),
			head: withLog(baseLog, nvCfg, masterCfg+"\nkimik2.5-int4-h200-vllm:\n  image: vllm/vllm-openai:v0.11.0\n"),
			want: []string{}},
		{name: "new key: the fix also offers removing it",
			base: withLog(baseLog), head: withLog(baseLog, nvCfg, masterCfg+"\ndsr1-fp4-b200-sglang:\n  image: lmsysorg/sglang:v0.5.5\n"),
			want: []string{"CL003 configs/nvidia-master.yaml:33"},
			check: func(t *testing.T, r result) {
				f := r.get("CL003")
				if !strings.Contains(f.Body, "If `dsr1-fp4-b200-sglang` is not meant to be added by this PR") || strings.Contains(f.Reasoning(), "PR template") {
					t.Errorf("finding: %s\n%s", f.Body, f.Reasoning())
				}
			}},
		{name: "the base's own PR template is quoted",
			base: withLog(baseLog, ".github/PULL_REQUEST_TEMPLATE/pull_request_template.md", "## Checklist\n\n- [ ] Tested\n- [ ] **Every benchmark-affecting change has a new entry at the end of `perf-changelog.yaml`**\n"),
			head: withLog(baseLog, nvCfg, bumped, ".github/PULL_REQUEST_TEMPLATE/pull_request_template.md", "## Checklist\n\n- [ ] Tested\n- [ ] **Every benchmark-affecting change has a new entry at the end of `perf-changelog.yaml`**\n"),
			want: []string{"CL003 configs/nvidia-master.yaml:27"},
			check: func(t *testing.T, r result) {
				f := r.get("CL003")
				if !strings.Contains(f.Reasoning(), "(`.github/PULL_REQUEST_TEMPLATE/pull_request_template.md:4`: `` Every benchmark-affecting change has a new entry at the end of `perf-changelog.yaml` ``)") {
					t.Errorf("details: %s", f.Reasoning())
				}
				last := f.Related[len(f.Related)-1]
				if last.Path != ".github/PULL_REQUEST_TEMPLATE/pull_request_template.md" || last.Line != 4 || last.Side != "base" {
					t.Errorf("related: %+v", f.Related)
				}
			}},
		{name: "a single template file at the root, any case",
			base: withLog(baseLog, "PULL_REQUEST_TEMPLATE.md", "* [x] I updated perf-changelog.yaml\n"),
			head: withLog(baseLog, nvCfg, bumped, "PULL_REQUEST_TEMPLATE.md", "* [x] I updated perf-changelog.yaml\n"),
			want: []string{"CL003 configs/nvidia-master.yaml:27"},
			check: func(t *testing.T, r result) {
				if d := r.get("CL003").Reasoning(); !strings.Contains(d, "(`PULL_REQUEST_TEMPLATE.md:1`: `I updated perf-changelog.yaml`)") {
					t.Errorf("details: %s", d)
				}
			}},
		{name: "newer layout config without an entry",
			base: map[string]string{"inferencex-e2e/perf-changelog.yaml": baseLog, "inferencex-e2e/configs/nvidia-master.yaml": masterCfg},
			head: map[string]string{"inferencex-e2e/perf-changelog.yaml": baseLog, "inferencex-e2e/configs/nvidia-master.yaml": bumped},
			want: []string{"CL003 inferencex-e2e/configs/nvidia-master.yaml:27"}},
	})
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
