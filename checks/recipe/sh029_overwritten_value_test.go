package recipe

import (
	"strings"
	"testing"
)

func TestSH029(t *testing.T) {
	const p = "benchmarks/single_node/agentic/dsv4_fp4_mi355x_sglang.sh"
	const lib = "benchmarks/benchmark_lib.sh"
	pre := "#!/usr/bin/env bash\nset -euo pipefail\nsource \"$(dirname \"$0\")/../../benchmark_lib.sh\"\n"
	const serve = "python3 -m sglang.launch_server --model-path \"$MODEL\" \"${PARALLEL_ARGS[@]}\" &\n"
	dpa := "if [ \"$DP_ATTENTION\" = \"true\" ]; then\n    PARALLEL_ARGS+=(--enable-dp-attention)\nfi\n"
	ep := "if [ \"${EP_SIZE:-1}\" -gt 1 ]; then\n    PARALLEL_ARGS+=(--ep-size \"$EP_SIZE\")\nfi\n"
	reset := "PARALLEL_ARGS=(--tensor-parallel-size \"$TP\")\n"
	tests := []struct {
		name       string
		base, head string
		libText    string
		want       []string
		phrases    []string
	}{
		{name: "the initialization after the branches that add to it", head: pre + dpa + ep + reset + serve,
			want:    []string{"SH029 " + p + ":10"},
			phrases: []string{"Line 5 appends to `PARALLEL_ARGS` under `if [ \"$DP_ATTENTION\" = \"true\" ]`", "line 8 appends to it", "then line 10 assigns `PARALLEL_ARGS` again", "move it above lines 5 and 8"}},
		{name: "the initialization first", head: pre + reset + dpa + ep + serve},
		{name: "a default and its override", head: pre + "MEM=0.9\nif [ \"$TP\" -gt 4 ]; then\n    MEM=0.85\nfi\n" +
			"python3 -m sglang.launch_server --mem-fraction-static \"$MEM\" &\n"},
		{name: "an empty initialization", head: pre + "PARALLEL_ARGS=()\n" + reset + serve},
		{name: "a read in between", head: pre + dpa + "echo \"${PARALLEL_ARGS[*]}\"\n" + reset + serve},
		{name: "the replacement keeps the old value", head: pre + "ARGS=\"--a\"\nARGS=\"$ARGS --b\"\npython3 -m sglang.launch_server $ARGS &\n"},
		{name: "a replacement on some paths only", head: pre + dpa + "if [ \"$TP\" -gt 4 ]; then\n    " + reset + "fi\n" + serve},
		{name: "a tuned value reset at the top level", head: pre + "if [ \"$KV\" = dram ]; then\n    MAX_NUM_SEQS=32\nfi\nMAX_NUM_SEQS=20\n" +
			"vllm serve \"$MODEL\" --max-num-seqs \"$MAX_NUM_SEQS\" &\n",
			want: []string{"SH029 " + p + ":7"}},
		{name: "the library reads the variable", libText: "f() { echo \"$MAX_NUM_SEQS\"; }\n",
			head: pre + "MAX_NUM_SEQS=32\nf\nMAX_NUM_SEQS=20\nvllm serve \"$MODEL\" --max-num-seqs \"$MAX_NUM_SEQS\" &\n"},
		{name: "an exported variable", head: pre + "export X=1\nX=2\n" + serve},
		{name: "in a loop", head: pre + "for i in 1 2; do\n    A=$i\n    A=3\ndone\n" + serve},
		{name: "a comment naming it in between does not read it", head: pre + dpa + "# PARALLEL_ARGS is set below\n" + reset + serve,
			want: []string{"SH029 " + p + ":8"}},
		{name: "lines the PR does not touch", base: pre + dpa + ep + reset + serve, head: pre + dpa + ep + reset + serve + "echo done\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			libText := tc.libText
			if libText == "" {
				libText = "wait_for_server_ready() { :; }\n"
			}
			base := map[string]string{lib: libText}
			if tc.base != "" {
				base[p] = tc.base
			}
			fs := reviewRule(t, SH029, base, map[string]string{lib: libText, p: tc.head})
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, tc.phrases...)
			}
		})
	}
}

// TestSH029ScanIsBounded: the lines read between two writes count against
// a budget, so a script of writes far apart costs at most the budget,
// and what lies past it is not judged.
func TestSH029ScanIsBounded(t *testing.T) {
	filler := strings.Repeat(":\n", sh029MaxScan+10)
	near := mustFacts(t, "A+=(--x)\necho step\nA=(--y)\nvllm serve m \"${A[@]}\" &\n")
	if got := overwrites(near, nil); len(got) != 1 {
		t.Fatalf("near: %d overwrites, want 1", len(got))
	}
	far := mustFacts(t, "A+=(--x)\n"+filler+"A=(--y)\nvllm serve m \"${A[@]}\" &\n")
	if got := overwrites(far, nil); len(got) != 0 {
		t.Fatalf("past the budget: %d overwrites, want none", len(got))
	}
}
