package recipe

import (
	"fmt"
	"strings"
	"testing"
)

// evalRecipe is a fixed-seq-len vLLM recipe with an eval-only path and an
// eval after the throughput run, both staged.
const evalRecipe = `#!/usr/bin/env bash
set -euo pipefail
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC RESULT_FILENAME
vllm serve "$MODEL" --tensor-parallel-size "$TP" > server.log 2>&1 &
SERVER_PID=$!
wait_for_server_ready --server-pid "$SERVER_PID"
if [[ "${EVAL_ONLY:-false}" == true ]]; then
    run_eval --framework lm-eval --port "$PORT"
    append_lm_eval_summary
    exit 0
fi
run_benchmark_serving --model "$MODEL" --port "$PORT"
if [ "${RUN_EVAL}" = "true" ]; then
    run_eval --framework lm-eval --port "$PORT"
    append_lm_eval_summary
fi
`

func TestSH020(t *testing.T) {
	const dir = "benchmarks/single_node/fixed_seq_len/"
	const target = dir + "qwen3.827b_bf16_mi300x_mtp.sh"
	sibs := map[string]string{}
	for i, m := range []string{"qwen3.5_fp8_mi300x", "glm5_fp8_mi355x", "dsr1_fp8_b200", "kimik2.5_fp4_b200"} {
		sibs[dir+m+".sh"] = strings.Replace(evalRecipe, "--port \"$PORT\"\n", fmt.Sprintf("--port \"$PORT\" --num-fewshot %d\n", i), 1)
	}
	unstagedOnly := edit(t, evalRecipe, "    append_lm_eval_summary\n    exit 0\n", "    exit 0\n")
	const evalOnlyLine = 9
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		suggestion string
	}{
		{name: "new recipe whose eval-only path does not stage", base: sibs, head: withFile(sibs, target, unstagedOnly),
			want:       []string{fmt.Sprintf("SH020 %s:%d", target, evalOnlyLine)},
			suggestion: "    run_eval --framework lm-eval --port \"$PORT\"\n    append_lm_eval_summary"},
		{name: "the PR deletes the staging", base: withFile(sibs, target, evalRecipe), head: withFile(sibs, target, unstagedOnly),
			want: []string{fmt.Sprintf("SH020 %s:%d", target, evalOnlyLine)}},
		{name: "staged on both paths", base: sibs, head: withFile(sibs, target, evalRecipe)},
		{name: "staged after the if, on every path",
			base: sibs, head: withFile(sibs, target, edit(t, evalRecipe,
				"    run_eval --framework lm-eval --port \"$PORT\"\n    append_lm_eval_summary\nfi\n",
				"    run_eval --framework lm-eval --port \"$PORT\"\nfi\nappend_lm_eval_summary\n"))},
		{name: "staging inside another branch does not cover the call",
			base: sibs, head: withFile(sibs, target, edit(t, evalRecipe,
				"    run_eval --framework lm-eval --port \"$PORT\"\n    append_lm_eval_summary\nfi\n",
				"    run_eval --framework lm-eval --port \"$PORT\"\nfi\nif [ -n \"${EVAL_RESULT_DIR:-}\" ]; then\n    append_lm_eval_summary\nfi\n")),
			want: []string{fmt.Sprintf("SH020 %s:%d", target, 15)}},
		{name: "unstaged before the PR too", base: withFile(sibs, target, unstagedOnly),
			head: withFile(sibs, target, edit(t, unstagedOnly, "--tensor-parallel-size \"$TP\"", "--tensor-parallel-size \"$TP\" --enforce-eager"))},
		{name: "siblings do not stage their evals either",
			base: map[string]string{dir + "a_fp8_b200.sh": unstagedOnly, dir + "b_fp8_b200.sh": unstagedOnly, dir + "c_fp8_b200.sh": unstagedOnly},
			head: map[string]string{dir + "a_fp8_b200.sh": unstagedOnly, dir + "b_fp8_b200.sh": unstagedOnly, dir + "c_fp8_b200.sh": unstagedOnly, target: unstagedOnly}},
		{name: "too few siblings", base: map[string]string{dir + "a_fp8_b200.sh": evalRecipe, dir + "b_fp8_b200.sh": evalRecipe},
			head: map[string]string{dir + "a_fp8_b200.sh": evalRecipe, dir + "b_fp8_b200.sh": evalRecipe, target: unstagedOnly}},
		{name: "a call continued on the next line gets no suggestion", base: sibs,
			head: withFile(sibs, target, edit(t, unstagedOnly, "    run_eval --framework lm-eval --port \"$PORT\"\n    exit 0\n", "    run_eval --framework lm-eval \\\n        --port \"$PORT\"\n    exit 0\n")),
			want: []string{fmt.Sprintf("SH020 %s:%d", target, evalOnlyLine)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH020, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, "append_lm_eval_summary", "4 of 4 sibling recipes")
				if len(f.Related) == 0 {
					t.Errorf("no sibling cited")
				}
				if strings.Contains(tc.name, "continued") {
					wantSuggestion(t, f, "")
				} else if tc.suggestion != "" {
					wantSuggestion(t, f, tc.suggestion)
				}
			}
		})
	}
}
