package changelog

import (
	"strings"
	"testing"
)

func TestCL006(t *testing.T) {
	runCases(t, 2301, []ruleCase{
		{name: "append-only mixed with a regular entry",
			base: withLog(baseLog), head: withLog(appendEntry([]string{"dsv4-fp4-b200-vllm"}, "  append-only: true\n\n"+entry([]string{"kimik2.5-fp4-b200-vllm"}, "y", "XXX"))),
			want: []string{"CL006 perf-changelog.yaml:33"},
			check: func(t *testing.T, r result) {
				if m := r.get("CL006").Body; !strings.Contains(m, "a regular entry: `kimik2.5-fp4-b200-vllm` (line 35)") {
					t.Errorf("message: %s", m)
				}
			}},
		{name: "append-only alone is fine",
			base: withLog(baseLog), head: withLog(appendEntry([]string{"dsv4-fp4-b200-vllm"}, "  append-only: true\n")), want: []string{}},
	})
}
