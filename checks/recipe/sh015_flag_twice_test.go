package recipe

import "testing"

const evalCtx = `#!/usr/bin/env bash
set -euo pipefail
CONTEXT_LENGTH=$((ISL + OSL + 32))
EVAL_CONTEXT_ARGS=""
if [ "${EVAL_ONLY}" = "true" ]; then
    setup_eval_context
    EVAL_CONTEXT_ARGS="--context-length $EVAL_MAX_MODEL_LEN"
fi
python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    --port "$PORT" \
    $EVAL_CONTEXT_ARGS &
`

func TestSH015(t *testing.T) {
	const target = agenticDir + "t_b300_sglang.sh"
	tree := func(s string) map[string]string { return map[string]string{target: s} }
	explicit := edit(t, evalCtx, "    --port \"$PORT\" \\\n", "    --port \"$PORT\" \\\n    --context-length \"$CONTEXT_LENGTH\" \\\n")
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
	}{
		{name: "explicit option beside the eval splice", base: tree(evalCtx), head: tree(explicit),
			want: []string{"SH015 " + target + ":12"}},
		{name: "both written, different values", base: tree(evalCtx),
			head: tree(edit(t, evalCtx, "    --port \"$PORT\" \\\n", "    --port \"$PORT\" \\\n    --mem-fraction-static 0.8 \\\n    --mem-fraction-static 0.9 \\\n")),
			want: []string{"SH015 " + target + ":12"}},
		{name: "same value twice is not this rule's", base: tree(evalCtx),
			head: tree(edit(t, evalCtx, "    --port \"$PORT\" \\\n", "    --port \"$PORT\" \\\n    --mem-fraction-static 0.8 \\\n    --mem-fraction-static 0.8 \\\n"))},
		{name: "if and else exclude each other", base: tree(evalCtx),
			head: tree(edit(t, evalCtx, "fi\n", "else\n    EVAL_CONTEXT_ARGS=\"--context-length $CONTEXT_LENGTH\"\nfi\n"))},
		{name: "a repeatable option", base: tree(evalCtx),
			head: tree(edit(t, evalCtx, "    --port \"$PORT\" \\\n", "    --port \"$PORT\" \\\n    --api-key a \\\n    --api-key b \\\n"))},
		{name: "a variable reassigned on a branch holds one value", base: tree(evalCtx),
			head: tree(edit(t, evalCtx, "EVAL_CONTEXT_ARGS=\"\"\n", "EVAL_CONTEXT_ARGS=\"--context-length $CONTEXT_LENGTH\"\n"))},
		{name: "already twice before the PR", base: tree(explicit),
			head: tree(edit(t, explicit, "--port \"$PORT\"", "--port 8000"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH015, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, "twice", "keeps the last one")
			}
		})
	}
}
