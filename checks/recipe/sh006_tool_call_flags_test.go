package recipe

import (
	"strings"
	"testing"
)

// toolRecipe is an agentic vLLM recipe whose array-built command passes
// the tool-calling flags on lines 7-8.
const toolRecipe = `#!/usr/bin/env bash
set -euo pipefail
VLLM_CMD=(
    vllm serve "$MODEL"
    --port "$PORT"
    --tokenizer-mode deepseek_v4
    --tool-call-parser deepseek_v4
    --enable-auto-tool-choice
    --reasoning-parser deepseek_v4
)
"${VLLM_CMD[@]}" > "$RESULT_DIR/server.log" 2>&1 &
`

// opaqueSGLang starts SGLang with options from an array of another file.
const opaqueSGLang = `#!/usr/bin/env bash
set -euo pipefail
source "$SGLANG_ARGS_FILE"
python3 -m sglang.launch_server "${SGLANG_ARGS[@]}" > "$LOG" 2>&1 &
`

const sglangTool = `#!/usr/bin/env bash
set -euo pipefail
python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    --tool-call-parser glm47 \
    --reasoning-parser glm45 > "$LOG" 2>&1 &
`

func toolTree(target string) map[string]string {
	return map[string]string{
		agenticDir + "a_b200_vllm.sh":            toolRecipe,
		agenticDir + "b_h200_vllm.sh":            toolRecipe,
		agenticDir + "t_b300_vllm.sh":            target,
		agenticDir + "glm5.2_fp4_b300_sglang.sh": sglangTool,
		agenticDir + "x_b300_sglang.sh":          sglangTool,
		"benchmarks/single_node/fixed_vllm.sh":   toolRecipe,
	}
}

func TestSH006(t *testing.T) {
	const target = agenticDir + "t_b300_vllm.sh"
	dropped := edit(t, toolRecipe, "    --tool-call-parser deepseek_v4\n    --enable-auto-tool-choice\n", "")
	continued := `#!/usr/bin/env bash
set -euo pipefail
vllm serve "$MODEL" \
    --port "$PORT" \
    --tool-call-parser deepseek_v4 \
    --enable-auto-tool-choice \
    --reasoning-parser deepseek_v4 > "$RESULT_DIR/server.log" 2>&1 &
`
	toolArgs := edit(t, toolRecipe,
		"VLLM_CMD=(\n", "TOOL_ARGS=(--tool-call-parser deepseek_v4 --enable-auto-tool-choice)\nVLLM_CMD=(\n",
		"    --tool-call-parser deepseek_v4\n    --enable-auto-tool-choice\n", "    \"${TOOL_ARGS[@]}\"\n")
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		check      func(t *testing.T, msg, details string, sug string, sugLine int)
	}{
		{
			name: "flags dropped from the array",
			base: toolTree(toolRecipe), head: toolTree(dropped),
			want: []string{"SH006 " + target + ":7"},
			check: func(t *testing.T, msg, details, sug string, line int) {
				mustContain(t, "message", msg, "no longer passes `--tool-call-parser deepseek_v4` and `--enable-auto-tool-choice`",
					"the base version of this file did (lines 7-8)", "every other agentic vLLM recipe in this directory (2 of 2)",
					"`tool_choice: \"auto\"`", "Restore the flags.")
				if line != 7 || sug != "    --tool-call-parser deepseek_v4\n    --enable-auto-tool-choice\n    --reasoning-parser deepseek_v4" {
					t.Errorf("suggestion at %d: %q", line, sug)
				}
			},
		},
		{
			name: "dropped while rewriting a continued command into an array",
			base: toolTree(continued), head: toolTree(dropped),
			want: []string{"SH006 " + target + ":3"},
			check: func(t *testing.T, msg, details, sug string, line int) {
				// The suggestion follows the head's style: array elements, no backslashes.
				if line != 7 || strings.Contains(sug, `\`) || !strings.HasPrefix(sug, "    --tool-call-parser deepseek_v4\n") {
					t.Errorf("suggestion at %d: %q", line, sug)
				}
			},
		},
		{
			name: "only one flag dropped",
			base: toolTree(toolRecipe), head: toolTree(edit(t, toolRecipe, "    --enable-auto-tool-choice\n", "")),
			want: []string{"SH006 " + target + ":8"},
			check: func(t *testing.T, msg, details, sug string, line int) {
				mustContain(t, "message", msg, "no longer passes `--enable-auto-tool-choice`", "Restore the flag.")
			},
		},
		{name: "moved into a spliced array", base: toolTree(toolRecipe), head: toolTree(toolArgs)},
		{name: "unchanged flags, other edit", base: toolTree(toolRecipe), head: toolTree(edit(t, toolRecipe, `--port "$PORT"`, "--port 8000"))},
		{
			name: "not agentic",
			base: toolTree(toolRecipe),
			head: withFile(toolTree(toolRecipe), "benchmarks/single_node/fixed_vllm.sh", dropped),
		},
		{
			name: "new agentic SGLang recipe without a parser",
			base: toolTree(toolRecipe),
			head: withFile(toolTree(toolRecipe), agenticDir+"glm5.2_fp4_b200_sglang.sh", edit(t, sglangTool, "    --tool-call-parser glm47 \\\n", "")),
			want: []string{"SH006 " + agenticDir + "glm5.2_fp4_b200_sglang.sh:3"},
			check: func(t *testing.T, msg, details, sug string, line int) {
				mustContain(t, "message", msg, "new agentic recipe", "every other agentic SGLang recipe in this directory (2 of 2) passes it", "Add it.")
				mustContain(t, "details", details, "glm5.2_fp4_b300_sglang.sh:5, the same model, uses `--tool-call-parser glm47`")
				if sug != "" {
					t.Errorf("no suggestion for a new file, got %q", sug)
				}
			},
		},
		{
			name: "a sibling whose options sit in an array it cannot see neither keeps nor lacks them",
			base: withFile(toolTree(toolRecipe), agenticDir+"y_b300_sglang.sh", opaqueSGLang),
			head: withFile(withFile(toolTree(toolRecipe), agenticDir+"y_b300_sglang.sh", opaqueSGLang),
				agenticDir+"glm5.2_fp4_b200_sglang.sh", edit(t, sglangTool, "    --tool-call-parser glm47 \\\n", "")),
			want: []string{"SH006 " + agenticDir + "glm5.2_fp4_b200_sglang.sh:3"},
			check: func(t *testing.T, msg, details, sug string, line int) {
				mustContain(t, "message", msg, "2 of the 3 other agentic SGLang recipes in this directory still pass it")
			},
		},
		{
			name: "new agentic SGLang recipe with a parser",
			base: toolTree(toolRecipe),
			head: withFile(toolTree(toolRecipe), agenticDir+"glm5.2_fp4_b200_sglang.sh", sglangTool),
		},
		{
			name: "new recipe with a single sibling is not judged",
			base: map[string]string{agenticDir + "a_b200_vllm.sh": toolRecipe},
			head: map[string]string{agenticDir + "a_b200_vllm.sh": toolRecipe, target: dropped},
		},
		{
			name: "flags may come from an array defined elsewhere",
			base: toolTree(toolRecipe),
			head: toolTree(edit(t, dropped, "    --reasoning-parser deepseek_v4\n", "    --reasoning-parser deepseek_v4\n    \"${SITE_TOOL_ARGS[@]}\"\n")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH006, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			if tc.check != nil && len(fs) > 0 {
				sug, line := "", 0
				if fs[0].Suggestion != nil {
					sug, line = fs[0].Suggestion.Replacement, fs[0].Suggestion.Line
				}
				tc.check(t, fs[0].Body, fs[0].Reasoning(), sug, line)
			}
		})
	}
}
