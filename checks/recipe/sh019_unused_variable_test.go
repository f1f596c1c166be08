package recipe

import (
	"fmt"
	"strings"
	"testing"
)

// unusedRecipe is an SGLang recipe that computes its sizes and passes
// them on; the cases below break that in one place each.
const unusedRecipe = `#!/usr/bin/env bash
set -euo pipefail
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC RESULT_FILENAME
MAX_RUNNING=$(( CONC * 2 ))
export SGLANG_ENABLE_SPEC_V2=1
python3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" \
    --max-running-requests "$MAX_RUNNING" > server.log 2>&1 &
SERVER_PID=$!
wait_for_server_ready --server-pid "$SERVER_PID"
`

// unusedLib is a benchmark_lib.sh whose helper reads a global the
// recipes set.
const unusedLib = `#!/usr/bin/env bash
wait_for_server_ready() {
    echo "waiting for $1 $2"
    if [ -n "${SERVER_LOG_HINT:-}" ]; then tail "$SERVER_LOG_HINT"; fi
}
`

func TestSH019(t *testing.T) {
	const target = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_mi355x.sh"
	const lib = "benchmarks/benchmark_lib.sh"
	base := map[string]string{lib: unusedLib, target: unusedRecipe}
	head := func(pairs ...string) map[string]string {
		return withFile(base, target, edit(t, unusedRecipe, pairs...))
	}
	const server = "`sglang.launch_server` command (line "
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		title      string
		suggestion string
	}{
		{name: "a size computed and never passed",
			head:  head("export SGLANG", "CUDA_GRAPH_BS=$CONC\nexport SGLANG"),
			want:  []string{"SH019 " + target + ":6"},
			title: "`CUDA_GRAPH_BS` is assigned but never used"},
		{name: "an argument array never spliced",
			head:  head("export SGLANG", "EXTRA_ARGS=(--enable-prefix-caching)\nexport SGLANG"),
			want:  []string{"SH019 " + target + ":6"},
			title: "`EXTRA_ARGS` is assigned but never used"},
		{name: "an engine variable not exported",
			head:       head("export SGLANG_ENABLE_SPEC_V2=1", "SGLANG_ENABLE_SPEC_V2=1"),
			want:       []string{"SH019 " + target + ":6"},
			title:      "`SGLANG_ENABLE_SPEC_V2` is set but never exported, so the server never sees it",
			suggestion: "export SGLANG_ENABLE_SPEC_V2=1"},
		{name: "exported later", head: head("export SGLANG", "SGLANG_X=1\nexport SGLANG_X\nexport SGLANG")},
		{name: "read by the command", head: head("export SGLANG", "CUDA_GRAPH_BS=$CONC\nexport SGLANG", "\"$MAX_RUNNING\"", "\"$MAX_RUNNING\" --cuda-graph-max-bs $CUDA_GRAPH_BS")},
		{name: "read in a trap string", head: head("export SGLANG", "MARKER=/tmp/done\ntrap 'touch \"$MARKER\"' EXIT\nexport SGLANG")},
		{name: "read in a heredoc", head: head("export SGLANG", "DRAFT=3\ncat > cfg.yaml <<EOF\nmax_draft_len: $DRAFT\nEOF\nexport SGLANG")},
		{name: "read by a library function", head: head("export SGLANG", "SERVER_LOG_HINT=server.log\nexport SGLANG")},
		{name: "the shell's own variable", head: head("export SGLANG", "PS4='+ '\nexport SGLANG")},
		{name: "read by a computed name", head: head("export SGLANG", "KNOB=1\nname=KNOB; echo \"${!name}\"\nexport SGLANG")},
		{name: "eval may read it", head: head("export SGLANG", "KNOB=1\neval \"$HOOK\"\nexport SGLANG")},
		{name: "a nameref may read it", head: head("export SGLANG", "KNOB=1\ndeclare -n ref=$WHICH\necho \"$ref\"\nexport SGLANG")},
		{name: "set -a exports every assignment", head: head("set -euo pipefail", "set -euo pipefail\nset -a", "export SGLANG", "KNOB=1\nexport SGLANG")},
		{name: "the script sources another file", head: head("export SGLANG", "source ./common.sh\nKNOB=1\nexport SGLANG")},
		{name: "a script that starts no server",
			base: map[string]string{lib: unusedLib},
			head: map[string]string{lib: unusedLib, "benchmarks/single_node/env.sh": "#!/usr/bin/env bash\nKNOB=1\n"}},
		{name: "unused before the PR too",
			base: withFile(base, target, edit(t, unusedRecipe, "export SGLANG", "KNOB=1\nexport SGLANG")),
			head: head("export SGLANG", "KNOB=2\nexport SGLANG")},
		{name: "the PR stops reading it",
			base:  withFile(base, target, edit(t, unusedRecipe, "export SGLANG", "KNOB=1\nexport SGLANG", "\"$MAX_RUNNING\"", "\"$MAX_RUNNING\" --knob $KNOB")),
			head:  head("export SGLANG", "KNOB=1 # now unused\nexport SGLANG"),
			want:  []string{"SH019 " + target + ":6"},
			title: "`KNOB` is assigned but never used"},
		{name: "an assignment the PR did not write",
			base: withFile(base, target, edit(t, unusedRecipe, "export SGLANG", "KNOB=1\nexport SGLANG", "\"$MAX_RUNNING\"", "\"$MAX_RUNNING\" --knob $KNOB")),
			head: withFile(base, target, edit(t, unusedRecipe, "export SGLANG", "KNOB=1\nexport SGLANG"))},
		{name: "at most three per file",
			head: head("export SGLANG", "A1=1\nA2=2\nA3=3\nA4=4\nexport SGLANG"),
			want: []string{"SH019 " + target + ":6", "SH019 " + target + ":7", "SH019 " + target + ":8"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.base
			if b == nil {
				b = base
			}
			fs := reviewRule(t, SH019, b, tc.head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				if tc.title != "" && f.Title != tc.title {
					t.Errorf("title %q, want %q", f.Title, tc.title)
				}
				mustContain(t, "message", f.Body, server)
				if tc.suggestion != "" {
					wantSuggestion(t, f, tc.suggestion)
				}
				if strings.Contains(f.Title, "never exported") {
					mustContain(t, "message", f.Body, "export")
				}
			}
		})
	}
}

// TestSH019ManyAssignments: a script of thousands of dead assignments is
// judged in one pass over its words (not one per variable), and reports
// the first few.
func TestSH019ManyAssignments(t *testing.T) {
	const target = "benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_mi355x.sh"
	const lib = "benchmarks/benchmark_lib.sh"
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "KNOB_%d=%d\n", i, i)
	}
	base := map[string]string{lib: unusedLib, target: unusedRecipe}
	head := withFile(base, target, strings.Replace(unusedRecipe, "export SGLANG", b.String()+"export SGLANG", 1))
	fs := reviewRule(t, SH019, base, head)
	if len(fs) != sh019MaxPerFile {
		t.Fatalf("%d findings, want %d", len(fs), sh019MaxPerFile)
	}
}
