package recipe

import (
	"strings"
	"testing"
)

const exportLine = "        export VLLM_USE_SIMPLE_KV_OFFLOAD=1\n"

// shortcutRecipe is a sibling whose vllm-simple arm uses the native
// backend shortcut with the switch, and whose native arm unsets it.
const shortcutRecipe = `#!/usr/bin/env bash
set -euo pipefail
OFFLOAD_ARGS=()
case "${KV_OFFLOAD_BACKEND:-}" in
    vllm-simple)
        export VLLM_USE_SIMPLE_KV_OFFLOAD=1
        OFFLOAD_ARGS=(--kv_offloading_backend native --kv_offloading_size "$TOTAL_CPU_DRAM_GB")
        ;;
    native)
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        OFFLOAD_ARGS=(--kv_offloading_backend native --kv_offloading_size "$TOTAL_CPU_DRAM_GB")
        ;;
esac
vllm serve "$MODEL" --tensor-parallel-size "$TP" "${OFFLOAD_ARGS[@]}"
`

func TestSH002(t *testing.T) {
	noExport := strings.Replace(kitRecipe, exportLine, "", 1)
	simpleJSON := `        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"SimpleCPUOffloadConnector"`
	tests := []struct {
		name     string
		base     string // target's base ("" = kitRecipe)
		head     string
		siblings map[string]string
		want     []string
		check    func(t *testing.T, msg string, sugLine int, sug string)
	}{
		{
			name: "export dropped from the arm",
			head: noExport,
			want: []string{"SH002 " + kitTarget + ":23"},
			check: func(t *testing.T, msg string, line int, sug string) {
				mustContain(t, "message", msg,
					"The `vllm-simple)` arm builds a `SimpleCPUOffloadConnector` transfer config (line 23)",
					"The base version of this branch exported it",
					"`a_b200_vllm.sh:23`, `b_b300_vllm.sh:23` and `c_h200_vllm.sh:23`",
					"including this file's own")
				if line != 23 || !strings.HasPrefix(sug, exportLine+simpleJSON) {
					t.Errorf("suggestion %d %q", line, sug)
				}
			},
		},
		{
			name: "new arm without the export",
			base: strings.Replace(noExport, "    vllm-simple)\n", "    unused)\n", 1),
			head: noExport,
			want: []string{"SH002 " + kitTarget + ":23"},
			check: func(t *testing.T, msg string, _ int, _ string) {
				if !strings.Contains(msg, "Every sibling branch that selects this connector exports it first") {
					t.Errorf("message: %s", msg)
				}
			},
		},
		{
			name: "export at the top level",
			head: edit(t, noExport, "OFFLOAD_ARGS=()\n", "export VLLM_USE_SIMPLE_KV_OFFLOAD=1\nOFFLOAD_ARGS=()\n"),
		},
		{
			name: "export in an enclosing if on the same variable",
			head: edit(t, noExport, "OFFLOAD_ARGS=()\n", "if [ \"${KV_OFFLOAD_BACKEND:-}\" = \"vllm-simple\" ]; then\n    export VLLM_USE_SIMPLE_KV_OFFLOAD=1\nfi\nOFFLOAD_ARGS=()\n"),
		},
		{
			name: "export in a function the arm calls",
			head: edit(t, noExport, "OFFLOAD_ARGS=()\n", "simple_env() {\n    export VLLM_USE_SIMPLE_KV_OFFLOAD=1\n}\nOFFLOAD_ARGS=()\n",
				"    vllm-simple)\n", "    vllm-simple)\n        simple_env\n"),
		},
		{
			name: "env prefix on the server command",
			head: edit(t, noExport, `"${VLLM_CMD[@]}" >`, `VLLM_USE_SIMPLE_KV_OFFLOAD=1 "${VLLM_CMD[@]}" >`),
		},
		{
			name: "env prefix on another command does not count",
			head: edit(t, noExport, `OFFLOAD_ARGS=()`, `VLLM_USE_SIMPLE_KV_OFFLOAD=1 python3 -c 'print(1)'`+"\nOFFLOAD_ARGS=()"),
			want: []string{"SH002 " + kitTarget + ":24"},
		},
		{
			name: "exported as 0",
			head: edit(t, kitRecipe, exportLine, "        export VLLM_USE_SIMPLE_KV_OFFLOAD=0\n"),
			want: []string{"SH002 " + kitTarget + ":24"},
		},
		{
			name: "exported, then unset on the same path",
			head: edit(t, kitRecipe, exportLine, exportLine+"        unset VLLM_USE_SIMPLE_KV_OFFLOAD\n"),
			want: []string{"SH002 " + kitTarget + ":25"},
		},
		{
			name: "missing before this PR",
			base: noExport,
			head: edit(t, noExport, "MAX_NUM_SEQS=$((2 * CONC))", "MAX_NUM_SEQS=$((3 * CONC))"),
		},
		{
			name:     "siblings disagree and the base never had it",
			base:     strings.Replace(noExport, "    vllm-simple)\n", "    unused)\n", 1),
			head:     noExport,
			siblings: map[string]string{"a_b200_vllm.sh": noExport},
		},
		{
			name:     "shortcut arm without the switch",
			base:     strings.Replace(shortcutRecipe, exportLine, "", 1),
			head:     strings.Replace(strings.Replace(shortcutRecipe, exportLine, "", 1), "--tensor-parallel-size", "--tensor_parallel_size", 1),
			siblings: map[string]string{"a_b200_vllm.sh": shortcutRecipe},
			want:     []string{},
		},
		{
			name:     "new shortcut arm without the switch",
			base:     strings.Replace(strings.Replace(shortcutRecipe, exportLine, "", 1), "    vllm-simple)\n", "    unused)\n", 1),
			head:     strings.Replace(shortcutRecipe, exportLine, "", 1),
			siblings: map[string]string{"a_b200_vllm.sh": shortcutRecipe},
			want:     []string{"SH002 " + kitTarget + ":6"},
			check: func(t *testing.T, msg string, line int, sug string) {
				if !strings.Contains(msg, "through the `--kv_offloading_backend native` shortcut (line 6)") || !strings.Contains(msg, "`a_b200_vllm.sh:6`") {
					t.Errorf("message: %s", msg)
				}
				if line != 6 || !strings.HasPrefix(sug, exportLine+"        OFFLOAD_ARGS=(--kv_offloading_backend") {
					t.Errorf("suggestion %d %q", line, sug)
				}
			},
		},
		{
			name:     "shortcut in a native arm is the OffloadingConnector baseline",
			base:     strings.Replace(shortcutRecipe, "    native)\n", "    unused)\n", 1),
			head:     strings.Replace(shortcutRecipe, "        unset VLLM_USE_SIMPLE_KV_OFFLOAD\n", "", 1),
			siblings: map[string]string{"a_b200_vllm.sh": shortcutRecipe},
		},
		{
			name: "not a vLLM recipe",
			head: strings.Replace(strings.Replace(noExport, "vllm serve", "python3 -m sglang.launch_server --model-path", 1), "--tensor-parallel-size", "--tp", 1),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewKit(t, SH002, "", tc.base, tc.head, tc.siblings)
			wantLocs(t, fs, tc.want)
			if tc.check != nil && len(fs) == 1 {
				f := fs[0]
				line, sug := suggested(f)
				tc.check(t, f.Body, line, sug)
				if f.Key == "" || len(f.Facts) == 0 || len(f.Related) == 0 || f.Reasoning() == "" {
					t.Errorf("finding lacks key, facts, evidence or details: %+v", f)
				}
			}
		})
	}
}
