package recipe

import (
	"fmt"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// TestCapSizes: the running-request cap is followed through variables,
// defaults and arithmetic to how many requests per CONC it allows.
func TestCapSizes(t *testing.T) {
	tests := []struct {
		name, src string
		want      string // "line:factor" per sizing text
	}{
		{"twice CONC through a variable", "MAX_NUM_SEQS=$((2 * CONC))\nvllm serve m --max-num-seqs \"$MAX_NUM_SEQS\"\n", "[2:2]"},
		{"divided per rank under DP attention: that path is not judged", "if [ \"$DP_ATTENTION\" = true ]; then\n  N=$((2 * CONC / TP))\nelse\n  N=$((2 * CONC))\nfi\nvllm serve m --max-num-seqs \"$N\"\n", "[3:0 5:2]"},
		{"CONC per rank under DP attention is not a cap at CONC", "N=$((2 * CONC))\nif [ \"$DP_ATTENTION\" = \"true\" ]; then\n  N=\"$CONC\"\nfi\nvllm serve m --max-num-seqs \"$N\"\n", "[2:2 4:0]"},
		{"CONC as the default of an override", "MAX_NUM_SEQS=\"${MAX_NUM_SEQS:-$CONC}\"\nvllm serve m --max-num-seqs \"$MAX_NUM_SEQS\"\n", "[2:1]"},
		{"CONC on the option", "python3 -m sglang.launch_server --model-path m --max-running-requests \"$CONC\"\n", "[2:1]"},
		{"a fixed cap", "vllm serve m --max-num-seqs 256\n", "[]"},
		{"a cap from something else", "N=$((TP * 64))\nvllm serve m --max-num-seqs \"$N\"\n", "[2:0]"},
		{"a cycle of variables ends", "A=\"$B\"\nB=\"$A\"\nvllm serve m --max-num-seqs \"$A\"\n", "[]"},
		{"no such option for the engine", "trtllm-serve m --max_batch_size \"$CONC\"\n", "[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := script.Parse("benchmarks/single_node/agentic/x_fp4_b200_vllm.sh", []byte("#!/usr/bin/env bash\n"+tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range capSizes(f) {
				got = append(got, fmt.Sprintf("%d:%g", c.line, c.factor))
			}
			if fmt.Sprint(got) != tc.want {
				t.Errorf("got %v, want %s", got, tc.want)
			}
		})
	}
}

// TestSH026: an agentic recipe whose cap the PR sets at CONC, against the
// other agentic recipes of its engine and directory.
func TestSH026(t *testing.T) {
	const dir = "benchmarks/single_node/agentic/"
	recipe := func(sizing string) string {
		return "#!/usr/bin/env bash\nset -euo pipefail\n" + sizing + "\nvllm serve \"$MODEL\" --max-num-seqs \"$MAX_NUM_SEQS\"\n"
	}
	const (
		double = "MAX_NUM_SEQS=$((2 * CONC))"
		single = "MAX_NUM_SEQS=\"${MAX_NUM_SEQS:-$CONC}\""
	)
	others := func(n, singles int) map[string]string {
		m := map[string]string{}
		for i := 0; i < n; i++ {
			sizing := double
			if i < singles {
				sizing = single
			}
			m[fmt.Sprintf("%sm%d_fp4_b200_vllm.sh", dir, i)] = recipe(sizing)
		}
		return m
	}
	mine := dir + "kimik3_fp4_mi355x_vllm.sh"
	tests := []struct {
		name       string
		sibs       map[string]string
		base, head string // base "" : the PR adds the recipe
		want       []string
		phrases    []string
	}{
		{name: "a new recipe at CONC, five others at twice", sibs: others(5, 0), head: recipe(single),
			want: []string{"SH026 " + mine + ":3"}, phrases: []string{"5 of the 5 other agentic vLLM recipes", "`m0_fp4_b200_vllm.sh:3` `MAX_NUM_SEQS=$((2 * CONC))`"}},
		{name: "the PR changes the cap to CONC", sibs: others(6, 0), base: recipe(double), head: recipe(single),
			want: []string{"SH026 " + mine + ":3"}},
		{name: "four in five is enough", sibs: others(10, 2), head: recipe(single), want: []string{"SH026 " + mine + ":3"}},
		{name: "three in four is not", sibs: others(8, 2), head: recipe(single)},
		{name: "only four others", sibs: others(4, 0), head: recipe(single)},
		{name: "an old cap the PR does not touch", sibs: others(6, 0), base: recipe(single), head: recipe(single) + "echo done\n"},
		{name: "twice CONC", sibs: others(6, 0), head: recipe(double)},
		{name: "a fixed cap", sibs: others(6, 0), head: recipe("MAX_NUM_SEQS=128")},
		{name: "another engine's recipes do not count", sibs: map[string]string{
			dir + "a_fp4_b200_sglang.sh": "python3 -m sglang.launch_server --model-path m --max-running-requests \"$((2 * CONC))\"\n",
			dir + "b_fp4_b200_sglang.sh": "python3 -m sglang.launch_server --model-path m --max-running-requests \"$((2 * CONC))\"\n",
			dir + "c_fp4_b200_sglang.sh": "python3 -m sglang.launch_server --model-path m --max-running-requests \"$((2 * CONC))\"\n",
			dir + "d_fp4_b200_sglang.sh": "python3 -m sglang.launch_server --model-path m --max-running-requests \"$((2 * CONC))\"\n",
			dir + "e_fp4_b200_sglang.sh": "python3 -m sglang.launch_server --model-path m --max-running-requests \"$((2 * CONC))\"\n",
		}, head: recipe(single)},
		{name: "a fixed-sequence-length recipe is not agentic", sibs: others(6, 0), head: recipe(single)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mine
			if tc.name == "a fixed-sequence-length recipe is not agentic" {
				p = "benchmarks/single_node/fixed_seq_len/kimik3_fp4_mi355x_vllm.sh"
			}
			base := map[string]string{}
			for k, v := range tc.sibs {
				base[k] = v
			}
			head := map[string]string{}
			for k, v := range base {
				head[k] = v
			}
			if tc.base != "" {
				base[p] = tc.base
			}
			head[p] = tc.head
			fs := reviewRule(t, SH026, base, head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, tc.phrases...)
			}
		})
	}
}
