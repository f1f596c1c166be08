package recipe

import (
	"strings"
	"testing"
)

// TestSH025: an option the PR writes on every path of a recipe is held
// to the model's other recipes of the engine, in the scenario directories
// beside it, when all of them pass it only under a test of one matrix
// variable.
func TestSH025(t *testing.T) {
	const (
		dir   = "benchmarks/single_node/"
		mine  = dir + "agentic/dsv4_fp4_b200_vllm.sh"
		gated = "MOE_ARGS=()\nif [ \"$DP_ATTENTION\" = \"true\" ]; then\n    MOE_ARGS=(--moe-backend deep_gemm_mega_moe)\nfi\n"
		serve = "vllm serve \"$MODEL\" --tensor-parallel-size \"$TP\" \"${MOE_ARGS[@]}\"\n"
	)
	recipe := func(body string) string { return "#!/usr/bin/env bash\nset -euo pipefail\n" + body }
	sibling := recipe(gated + serve)
	siblings := func(paths ...string) map[string]string {
		m := map[string]string{}
		for _, p := range paths {
			m[p] = sibling
		}
		return m
	}
	three := []string{dir + "fixed_seq_len/dsv4_fp4_b200_vllm.sh", dir + "fixed_seq_len/dsv4_fp4_b300_vllm.sh", dir + "agentic/dsv4_fp4_b300_vllm.sh"}
	always := recipe("if [ \"$DP_ATTENTION\" = \"true\" ]; then echo dep; fi\nvllm serve \"$MODEL\" --tensor-parallel-size \"$TP\" --moe-backend deep_gemm_mega_moe\n")
	tests := []struct {
		name    string
		base    map[string]string // besides the siblings
		sibs    map[string]string
		head    string
		want    []string
		phrases []string
	}{
		{name: "added on every path, three others gate it on DP_ATTENTION", sibs: siblings(three...), head: always,
			want:    []string{"SH025 " + mine + ":4"},
			phrases: []string{"3 other `dsv4` vLLM recipes", "under a test of `DP_ATTENTION`", "dsv4_fp4_b200_vllm.sh:5"}},
		{name: "added under the same test", sibs: siblings(three...), head: sibling},
		{name: "only two others", sibs: siblings(three[:2]...), head: always},
		{name: "one other passes it on every path", sibs: func() map[string]string {
			m := siblings(three...)
			m[dir+"fixed_seq_len/dsv4_fp4_h200_vllm.sh"] = always
			return m
		}(), head: always},
		{name: "another GPU's recipe passes another value: no say", sibs: func() map[string]string {
			m := siblings(three...)
			m[dir+"fixed_seq_len/dsv4_fp4_mi355x_vllm.sh"] = recipe("vllm serve \"$MODEL\" --moe-backend aiter\n")
			return m
		}(), head: always, want: []string{"SH025 " + mine + ":4"}},
		{name: "the recipe never reads the variable: its rows may all want the option", sibs: siblings(three...),
			head: recipe("vllm serve \"$MODEL\" --tensor-parallel-size \"$TP\" --moe-backend deep_gemm_mega_moe\n")},
		{name: "a setting per layout, not a switch", sibs: func() map[string]string {
			m := map[string]string{}
			for _, p := range three {
				m[p] = recipe("if [ \"$DP_ATTENTION\" = \"true\" ]; then\n    A=(--moe-backend deep_gemm_mega_moe)\nelse\n    A=(--moe-backend cutlass)\nfi\nvllm serve \"$MODEL\" \"${A[@]}\"\n")
			}
			return m
		}(), head: always},
		{name: "the others test different variables", sibs: func() map[string]string {
			m := siblings(three[:2]...)
			m[three[2]] = recipe(strings.Replace(gated, "$DP_ATTENTION\" = \"true\"", "$SPEC_DECODING\" = \"mtp\"", 1) + serve)
			return m
		}(), head: always},
		{name: "other models' recipes do not count", sibs: map[string]string{
			dir + "fixed_seq_len/kimik3_fp4_b200_vllm.sh": sibling, dir + "fixed_seq_len/kimik3_fp4_b300_vllm.sh": sibling,
			dir + "fixed_seq_len/kimik3_fp4_h200_vllm.sh": sibling}, head: always},
		{name: "deprecated recipes do not count", sibs: siblings(dir+"deprecated/dsv4_fp4_b200_vllm.sh", dir+"deprecated/dsv4_fp4_b300_vllm.sh", dir+"deprecated/dsv4_fp4_h200_vllm.sh"), head: always},
		{name: "the recipe passed it so before the PR", sibs: siblings(three...),
			base: map[string]string{mine: always}, head: always + "echo done\n"},
		{name: "an expert-parallel switch is SH008's", sibs: func() map[string]string {
			m := map[string]string{}
			for _, p := range three {
				m[p] = recipe("A=()\nif [ \"$DP_ATTENTION\" = \"true\" ]; then\n    A=(--enable-expert-parallel)\nfi\nvllm serve \"$MODEL\" \"${A[@]}\"\n")
			}
			return m
		}(), head: recipe("vllm serve \"$MODEL\" --enable-expert-parallel\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := map[string]string{}
			for p, s := range tc.sibs {
				base[p] = s
			}
			for p, s := range tc.base {
				base[p] = s
			}
			head := map[string]string{}
			for p, s := range base {
				head[p] = s
			}
			head[mine] = tc.head
			fs := reviewRule(t, SH025, base, head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, tc.phrases...)
			}
		})
	}
}
