package changelog

import (
	"strings"
	"testing"
)

func TestCL004(t *testing.T) {
	runCases(t, 2301, []ruleCase{
		{name: "unknown key with a did-you-mean",
			base: withLog(baseLog), head: withLog(appendEntry([]string{"dsv4-fp4-b300-vllm-agentc"}, "")),
			want: []string{"CL004 perf-changelog.yaml:29"},
			check: func(t *testing.T, r result) {
				f := r.get("CL004")
				if !strings.Contains(f.Body, "Did you mean `dsv4-fp4-b300-vllm-agentic` (`configs/nvidia-master.yaml:18`)") ||
					f.Suggestion == nil || f.Suggestion.Replacement != "    - dsv4-fp4-b300-vllm-agentic" {
					t.Errorf("finding: %s %+v", f.Body, f.Suggestion)
				}
			}},
		{name: "glob matching nothing",
			base: withLog(baseLog), head: withLog(appendEntry([]string{"qwen3*"}, "")),
			want: []string{"CL004 perf-changelog.yaml:29"}},
		{name: "key only in the base's configs (retired by this PR)",
			base: withLog(baseLog), head: withLog(appendEntry([]string{"kimik2.5-fp4-b200-vllm"}, ""), nvCfg, masterCfg[:strings.Index(masterCfg, "kimik2.5")]), want: []string{}},
		{name: "key of an archived config",
			base: withLog(baseLog, "configs/deprecated/nvidia-master.yaml", "llama70b-fp8-h100-vllm:\n  image: x\n"),
			head: withLog(appendEntry([]string{"llama70b-fp8-h100-vllm"}, ""), "configs/deprecated/nvidia-master.yaml", "llama70b-fp8-h100-vllm:\n  image: x\n"), want: []string{}},
		{name: "unparsable master config keeps CL004 quiet",
			base: withLog(baseLog, nvCfg, "a: 1\n\tb: [\n"), head: withLog(appendEntry([]string{"nope"}, ""), nvCfg, "a: 1\n\tb: [\n"), want: []string{}},
	})
}
