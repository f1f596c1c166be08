package recipe

import (
	"strings"
	"testing"
)

func TestSH007(t *testing.T) {
	const dpBlock = `if [ "$DP_ATTENTION" = "true" ]; then
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC / TP))
else
    PARALLEL_ARGS=(--tensor-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC))
fi
`
	unconditional := edit(t, kitRecipe, dpBlock, `if [ "$DP_ATTENTION" = "true" ]; then
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
else
    PARALLEL_ARGS=(--tensor-parallel-size "$TP")
fi
MAX_NUM_SEQS=$((2 * CONC))
`)
	noDP := edit(t, kitRecipe, dpBlock, "PARALLEL_ARGS=(--tensor-parallel-size \"$TP\")\nMAX_NUM_SEQS=$((2 * CONC))\n",
		"check_env_vars MODEL TP CONC DP_ATTENTION RESULT_DIR", "check_env_vars MODEL TP CONC RESULT_DIR")
	tests := []kitCase{
		{
			name: "computed unconditionally in a DP script",
			head: unconditional,
			want: []string{"SH007 " + kitTarget + ":17"},
			msg: []string{
				"`MAX_NUM_SEQS=$((2 * CONC))` (line 17) is computed unconditionally, but this script runs DP attention (`--data-parallel-size $TP`, line 13)",
				"`--max-num-seqs` and `--max-cudagraph-capture-size` (lines 41 and 42)",
				"with TP=8 and CONC=72 that is 144 per rank where 18 is the rank's share",
				"`a_b200_vllm.sh:12-17`",
				"Compute `MAX_NUM_SEQS=$((2 * CONC / TP))` when DP attention is on.",
			},
			details: []string{"if [ \"$DP_ATTENTION\" = \"true\" ]; then\n    MAX_NUM_SEQS=$((2 * CONC / TP))\nelse\n    MAX_NUM_SEQS=$((2 * CONC))\nfi"},
		},
		{
			name: "undivided inside the DP branch: a line edit",
			head: strings.Replace(kitRecipe, "MAX_NUM_SEQS=$((2 * CONC / TP))", "MAX_NUM_SEQS=$((2 * CONC))", 1),
			want: []string{"SH007 " + kitTarget + ":14"},
			sug:  "    MAX_NUM_SEQS=$((2 * CONC / TP))",
			msg:  []string{"sets the cap inside the DP-attention branch"},
		},
		{
			name: "a sum is parenthesized",
			head: strings.Replace(kitRecipe, "MAX_NUM_SEQS=$((2 * CONC / TP))", "MAX_NUM_SEQS=$((2 * CONC + 8))", 1),
			want: []string{"SH007 " + kitTarget + ":14"},
			sug:  "    MAX_NUM_SEQS=$(((2 * CONC + 8) / TP))",
		},
		{
			name: "no DP attention in the script",
			base: noDP,
			head: strings.Replace(noDP, "MAX_NUM_SEQS=$((2 * CONC))", "MAX_NUM_SEQS=$(( 2 * CONC ))", 1),
		},
		{
			name: "the DP branch still divides, rounding up",
			head: strings.Replace(kitRecipe, "MAX_NUM_SEQS=$((2 * CONC / TP))", "MAX_NUM_SEQS=$(( (2 * CONC + TP - 1) / TP ))", 1),
		},
		{
			name: "unconditional default, divided override under DP",
			head: edit(t, kitRecipe, dpBlock, "MAX_NUM_SEQS=$((2 * CONC))\n"+dpBlock),
		},
		{
			name: "an old assignment the PR did not touch",
			base: strings.Replace(unconditional, "$((2 * CONC))", "$((2*CONC))", 1),
			head: strings.Replace(strings.Replace(unconditional, "$((2 * CONC))", "$((2*CONC))", 1), "vllm serve", "vllm  serve", 1),
			siblings: map[string]string{
				"a_b200_vllm.sh": strings.Replace(unconditional, "$((2 * CONC))", "$((2*CONC))", 1),
				"b_b300_vllm.sh": kitRecipe,
			},
		},
		{
			name:     "no sibling divides",
			base:     strings.Replace(unconditional, "MAX_NUM_SEQS=$((2 * CONC))", "MAX_NUM_SEQS=$((4 * CONC))", 1),
			head:     unconditional,
			siblings: map[string]string{"a_b200_vllm.sh": unconditional, "b_b300_vllm.sh": unconditional, "c_h200_vllm.sh": unconditional},
		},
		{
			name: "value not used by a server flag",
			head: edit(t, unconditional, `    --max-num-seqs "$MAX_NUM_SEQS"
    --max-cudagraph-capture-size "$MAX_NUM_SEQS"
`, ""),
		},
	}
	runKitCases(t, SH007, tests, nil)
}

func TestEvalArith(t *testing.T) {
	env := map[string]int{"CONC": 72, "TP": 8}
	tests := []struct {
		expr string
		want int
		ok   bool
	}{
		{"2 * CONC", 144, true},
		{"2 * CONC / TP", 18, true},
		{"(2 * CONC + TP - 1) / TP", 18, true},
		{"$CONC % 5", 2, true},
		{"7 - 2 - 1", 4, true},
		{"-1", -1, true},
		{"CONC / 0", 0, false},
		{"NOPE * 2", 0, false},
		{"2 *", 0, false},
		{"(2", 0, false},
		{"2 ** 3", 8, true},
		{"CONC++", 0, false},
		{"X = 3", 0, false},
		{"$(echo 1) + 1", 0, false},
		{"${CONC:-4} * 2", 0, false},
	}
	for _, tc := range tests {
		got, ok := evalArith(tc.expr, env)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("evalArith(%q) = %d, %v; want %d, %v", tc.expr, got, ok, tc.want, tc.ok)
		}
	}
}
