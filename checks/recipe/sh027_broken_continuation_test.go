package recipe

import (
	"strings"
	"testing"
)

func TestSH027(t *testing.T) {
	const p = "benchmarks/single_node/qwen3.5_fp8_h200_vllm.sh"
	const head = "#!/usr/bin/env bash\nset -euo pipefail\nsource \"$(dirname \"$0\")/../benchmark_lib.sh\"\n" +
		"vllm serve \"$MODEL\" \\\n    --port \"$PORT\" \\\n    --tensor-parallel-size \"$TP\" \\\n" +
		"    --max-num-seqs 64 > \"$SERVER_LOG\" 2>&1 &\n"
	tests := []struct {
		name       string
		base, head string
		want       []string
		phrases    []string
		suggestion string
	}{
		{name: "whitespace after the backslash", head: strings.Replace(head, "--port \"$PORT\" \\\n", "--port \"$PORT\" \\ \n", 1),
			want:       []string{"SH027 " + p + ":5"},
			phrases:    []string{"Bash starts a new command at `--tensor-parallel-size` on line 6", "line 5 has whitespace after its final backslash"},
			suggestion: "    --port \"$PORT\" \\"},
		{name: "a doubled backslash", head: strings.Replace(head, "--port \"$PORT\" \\\n", "--port \"$PORT\" \\\\\n", 1),
			want:    []string{"SH027 " + p + ":5"},
			phrases: []string{"ends in `\\\\`"}},
		{name: "a commented-out option inside the command", head: strings.Replace(head, "    --tensor", "    # --enforce-eager \\\n    --tensor", 1),
			want:    []string{"SH027 " + p + ":6"},
			phrases: []string{"line 6 is a comment", "at `--tensor-parallel-size` on line 7", "Move line 6 out of the command"}},
		{name: "a comment without a backslash inside the command", head: strings.Replace(head, "    --tensor", "    # the parallel layout\n    --tensor", 1),
			want:    []string{"SH027 " + p + ":6"},
			phrases: []string{"line 6 is a comment"}},
		{name: "a comment inside an array is fine", head: head + "ARGS=(\n    --x 1 # one\n    # --y 2\n    --z 3\n)\n"},
		{name: "a comment after the command is fine", head: strings.Replace(head, "2>&1 &\n", "2>&1 & # start it\n", 1)},
		{name: "a line without its backslash", head: strings.Replace(head, "--port \"$PORT\" \\\n", "--port \"$PORT\"\n", 1),
			want:       []string{"SH027 " + p + ":5"},
			phrases:    []string{"line 5 does not end with a backslash"},
			suggestion: "    --port \"$PORT\" \\"},
		{name: "every following line is one finding", head: strings.Replace(head, "vllm serve \"$MODEL\" \\\n", "vllm serve \"$MODEL\" \\ \n", 1),
			want: []string{"SH027 " + p + ":4"}},
		{name: "a pasted diff hunk", head: strings.Replace(head, "vllm serve", "-MAX_TOKENS=$( ISL * 2 )\n+MAX_TOKENS=$(( ISL * 2 ))\nvllm serve", 1),
			want:    []string{"SH027 " + p + ":4"},
			phrases: []string{"line 4 begins with `-` in its first column, a diff marker"}},
		{name: "a plus command alone is not a diff", head: strings.Replace(head, "vllm serve", "+x\nvllm serve", 1)},
		{name: "a continued command", head: head},
		{name: "an option as an argument of echo", head: head + "echo --port \"$PORT\"\n"},
		{name: "an old break the PR does not touch", base: strings.Replace(head, "--port \"$PORT\" \\\n", "--port \"$PORT\" \\ \n", 1),
			head: strings.Replace(strings.Replace(head, "--port \"$PORT\" \\\n", "--port \"$PORT\" \\ \n", 1), "64", "128", 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := map[string]string{}
			if tc.base != "" {
				base[p] = tc.base
			}
			fs := reviewRule(t, SH027, base, map[string]string{p: tc.head})
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, tc.phrases...)
				if tc.suggestion != "" {
					wantSuggestion(t, f, tc.suggestion)
				}
			}
		})
	}
}
