package recipe

import "testing"

const epRecipe = `#!/usr/bin/env bash
set -euo pipefail
VLLM_CMD=(
    vllm serve "$MODEL"
    --port "$PORT"
)

if [ "${EP_SIZE:-1}" -gt 1 ]; then
    VLLM_CMD+=(--enable-expert-parallel)
fi
"${VLLM_CMD[@]}" &
`

const sglangEP = `#!/usr/bin/env bash
EP_ARGS=()
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    EP_ARGS=(--ep-size "$EP_SIZE")
fi
python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    "${EP_ARGS[@]}" &
`

func TestSH008(t *testing.T) {
	const target = agenticDir + "t_b300_vllm.sh"
	tree := func(tgt string, extra ...string) map[string]string {
		return setFiles(map[string]string{
			agenticDir + "a_b200_vllm.sh":    epRecipe,
			agenticDir + "b_h200_vllm.sh":    epRecipe,
			agenticDir + "s1_b200_sglang.sh": sglangEP,
			agenticDir + "s2_b300_sglang.sh": sglangEP,
			target:                           tgt,
		}, extra...)
	}
	hardLast := edit(t, epRecipe,
		"    --port \"$PORT\"\n)\n\nif [ \"${EP_SIZE:-1}\" -gt 1 ]; then\n    VLLM_CMD+=(--enable-expert-parallel)\nfi\n",
		"    --port \"$PORT\"\n    --enable-expert-parallel\n)\n")
	hardMiddle := edit(t, epRecipe,
		"    vllm serve \"$MODEL\"\n", "    vllm serve \"$MODEL\"\n    --enable-expert-parallel\n",
		"if [ \"${EP_SIZE:-1}\" -gt 1 ]; then\n    VLLM_CMD+=(--enable-expert-parallel)\nfi\n", "")
	both := edit(t, epRecipe, "    vllm serve \"$MODEL\"\n", "    vllm serve \"$MODEL\"\n    --enable-expert-parallel\n")
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		sugLine    int
		sugEnd     int
		sug        string
	}{
		{
			name: "moved into the array literal",
			base: tree(epRecipe), head: tree(hardLast),
			want:    []string{"SH008 " + target + ":6"},
			sugLine: 6, sugEnd: 7,
			sug: ")\n\nif [ \"${EP_SIZE:-1}\" -gt 1 ]; then\n    VLLM_CMD+=(--enable-expert-parallel)\nfi",
		},
		{
			name: "in the middle of the array: no one-edit fix",
			base: tree(epRecipe), head: tree(hardMiddle),
			want: []string{"SH008 " + target + ":5"},
		},
		{
			name: "hard-coded and also guarded: delete the hard-coded one",
			base: tree(epRecipe), head: tree(both),
			want:    []string{"SH008 " + target + ":5"},
			sugLine: 5, sug: "",
		},
		{name: "guarded", base: tree(epRecipe), head: tree(edit(t, epRecipe, "--port \"$PORT\"", "--port 8000"))},
		{
			name: "a sibling hard-codes it too",
			base: tree(epRecipe, agenticDir+"c_x_vllm.sh", hardLast),
			head: tree(hardLast, agenticDir+"c_x_vllm.sh", hardLast),
		},
		{
			name: "already hard-coded before the PR",
			base: tree(hardLast),
			head: tree(edit(t, hardLast, "--port \"$PORT\"", "--port 8000")),
		},
		{
			name: "SGLang static --ep-size",
			base: tree(epRecipe),
			head: tree(epRecipe, agenticDir+"n_b200_sglang.sh", "#!/usr/bin/env bash\npython3 -m sglang.launch_server \\\n    --model-path \"$MODEL\" \\\n    --ep-size 8 &\n"),
			want: []string{"SH008 " + agenticDir + "n_b200_sglang.sh:4"},
		},
		{
			name: "SGLang --ep-size from EP_SIZE",
			base: tree(epRecipe),
			head: tree(epRecipe, agenticDir+"n_b200_sglang.sh", "#!/usr/bin/env bash\npython3 -m sglang.launch_server \\\n    --model-path \"$MODEL\" \\\n    --ep-size \"${EP_SIZE:-1}\" &\n"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH008, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			if len(fs) == 0 {
				return
			}
			f := fs[0]
			mustContain(t, "message", f.Body, "unconditionally", "EP_SIZE")
			if tc.sugLine == 0 {
				if f.Suggestion != nil && f.Path == target {
					t.Errorf("unexpected suggestion %+v", f.Suggestion)
				}
				return
			}
			if f.Suggestion == nil || f.Suggestion.Line != tc.sugLine || f.Suggestion.EndLine != tc.sugEnd || f.Suggestion.Replacement != tc.sug {
				t.Errorf("suggestion %+v", f.Suggestion)
			}
			if len(f.Related) != 2 {
				t.Errorf("evidence %+v", f.Related)
			}
		})
	}
}
