package recipe

import (
	"slices"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

const mtpRecipe = `#!/usr/bin/env bash
set -euo pipefail
vllm serve "$MODEL" \
    --port "$PORT" \
    --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}' > "$LOG" 2>&1 &

# Draft heads are trained on chat-formatted text, so the prompts go
# through the chat template.
run_benchmark_serving \
    --model "$MODEL" \
    --port "$PORT" \
    --result-dir "$RESULT_DIR" \
    --use-chat-template
`

const plainRecipe = `#!/usr/bin/env bash
set -euo pipefail
vllm serve "$MODEL" \
    --port "$PORT" > "$LOG" 2>&1 &
run_benchmark_serving \
    --model "$MODEL" \
    --port "$PORT" \
    --result-dir "$RESULT_DIR"
`

// clientLib is a client wrapper whose --dsv4 turns the chat template on
// too, as the repository's benchmark_lib.sh does.
const clientLib = `run_benchmark_serving() {
    local use_chat_template=false dsv4=false trust=false
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --use-chat-template) use_chat_template=true; shift ;;
            --dsv4) dsv4=true; use_chat_template=true; shift ;;
            --trust-remote-code) trust=true; shift ;;
            *) shift ;;
        esac
    done
}
`

// withLib makes a recipe source the library beside it.
func withLib(recipe string) string {
	return strings.Replace(recipe, "set -euo pipefail\n", "set -euo pipefail\nsource \"$(dirname \"$0\")/../benchmark_lib.sh\"\n", 1)
}

func TestLibChatTemplateFlags(t *testing.T) {
	lib, err := script.Parse("benchmarks/benchmark_lib.sh", []byte(clientLib))
	if err != nil {
		t.Fatal(err)
	}
	if got := libChatTemplateFlags(lib); !slices.Equal(got, []string{"--dsv4"}) {
		t.Errorf("libChatTemplateFlags = %q, want [--dsv4]", got)
	}
	if got := libChatTemplateFlags(nil); got != nil {
		t.Errorf("no library: %q", got)
	}
}

func TestSH010(t *testing.T) {
	const dir = "benchmarks/single_node/"
	noFlag := edit(t, mtpRecipe, "    --result-dir \"$RESULT_DIR\" \\\n    --use-chat-template\n", "    --result-dir \"$RESULT_DIR\"\n")
	sglangMTP := `#!/usr/bin/env bash
SPEC_ARGS=(--speculative-algorithm EAGLE --speculative-num-steps 3)
python3 -m sglang.launch_server --model-path "$MODEL" "${SPEC_ARGS[@]}" &
run_benchmark_serving \
    --model "$MODEL" \
    --apply-chat-template
`
	tree := func(target string, extra ...string) map[string]string {
		return setFiles(map[string]string{
			dir + "a_vllm_mtp.sh":     mtpRecipe,
			dir + "b_vllm.sh":         plainRecipe,
			dir + "t_vllm_mtp.sh":     target,
			dir + "agentic/a_vllm.sh": plainRecipe,
		}, extra...)
	}
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		// lib: the recipe sources a library, one line lower than the others.
		lib bool
	}{
		{name: "flag dropped", base: tree(mtpRecipe), head: tree(noFlag), want: []string{"SH010 " + dir + "t_vllm_mtp.sh:9"}},
		{
			name: "new spec recipe without the flag",
			base: tree(mtpRecipe),
			head: tree(mtpRecipe, dir+"n_sglang.sh", edit(t, sglangMTP, "    --model \"$MODEL\" \\\n    --apply-chat-template\n", "    --model \"$MODEL\"\n")),
			want: []string{"SH010 " + dir + "n_sglang.sh:4"},
		},
		{name: "new spec recipe with --apply-chat-template", base: tree(mtpRecipe), head: tree(mtpRecipe, dir+"n_sglang.sh", sglangMTP)},
		{
			name: "spec config changed, flag missing before and after",
			base: tree(noFlag),
			head: tree(edit(t, noFlag, `"num_speculative_tokens": 3`, `"num_speculative_tokens": 2`)),
			want: []string{"SH010 " + dir + "t_vllm_mtp.sh:9"},
		},
		{
			name: "old recipe, untouched parts",
			base: tree(noFlag),
			head: tree("#!/usr/bin/env bash\n" + noFlag[len("#!/usr/bin/env bash\n"):] + "echo done\n"),
		},
		{name: "not speculative", base: tree(mtpRecipe), head: tree(mtpRecipe, dir+"b_vllm.sh", edit(t, plainRecipe, "--port \"$PORT\" >", "--port 8000 >"))},
		{
			name: "spec named by the file only",
			base: tree(mtpRecipe),
			head: tree(mtpRecipe, dir+"c_vllm_mtp.sh", plainRecipe),
			want: []string{"SH010 " + dir + "c_vllm_mtp.sh:5"},
		},
		{
			name: "an option the library takes as the chat template",
			base: tree(mtpRecipe, "benchmarks/benchmark_lib.sh", clientLib),
			head: tree(withLib(edit(t, mtpRecipe, "    --use-chat-template\n", "    --dsv4\n")), "benchmarks/benchmark_lib.sh", clientLib),
		},
		{
			name: "an option of the library that does not",
			base: tree(mtpRecipe, "benchmarks/benchmark_lib.sh", clientLib),
			head: tree(withLib(edit(t, mtpRecipe, "    --use-chat-template\n", "    --trust-remote-code\n")), "benchmarks/benchmark_lib.sh", clientLib),
			want: []string{"SH010 " + dir + "t_vllm_mtp.sh:10"},
			lib:  true,
		},
		{
			name: "agentic recipes are SH013's",
			base: tree(mtpRecipe),
			head: tree(mtpRecipe, dir+"agentic/a_vllm.sh", noFlag),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH010, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, "without the chat template", "Add `--use-chat-template`")
				if f.Path == dir+"t_vllm_mtp.sh" && !tc.lib {
					mustContain(t, "message", f.Body, "`--speculative-config` on line 5", "a_vllm_mtp.sh:13")
					if s := f.Suggestion; s == nil || s.Line != 12 || s.Replacement != "    --result-dir \"$RESULT_DIR\" \\\n    --use-chat-template" {
						t.Errorf("suggestion %+v", s)
					}
					if len(f.Related) != 2 || f.Related[1].Line != 7 || f.Related[1].EndLine != 8 {
						t.Errorf("evidence %+v", f.Related)
					}
				}
			}
		})
	}
}
