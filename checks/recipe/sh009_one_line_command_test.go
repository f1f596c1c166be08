package recipe

import "testing"

func TestSplitCommandLine(t *testing.T) {
	tests := []struct {
		name, line, want string
		ok               bool
	}{
		{
			name: "continued command with redirects",
			line: `    vllm serve "$MODEL" --port "$PORT" --max-num-seqs 8 --enable-prefix-caching "${EXTRA_ARGS[@]}" > "$LOG" 2>&1 &`,
			want: "    vllm serve \"$MODEL\" \\\n        --port \"$PORT\" \\\n        --max-num-seqs 8 \\\n        --enable-prefix-caching \\\n        \"${EXTRA_ARGS[@]}\" > \"$LOG\" 2>&1 &",
			ok:   true,
		},
		{
			name: "python module and env prefix",
			line: `CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server --model-path "$MODEL" --tp-size 8`,
			want: "CUDA_VISIBLE_DEVICES=0 python3 -m sglang.launch_server \\\n    --model-path \"$MODEL\" \\\n    --tp-size 8",
			ok:   true,
		},
		{
			name: "array",
			line: `VLLM_CMD=(vllm serve "$MODEL" --port 8000 "${PARALLEL_ARGS[@]}" --enable-prefix-caching --cuda-graph-sizes 1 2 4)`,
			want: "VLLM_CMD=(\n    vllm serve \"$MODEL\"\n    --port 8000\n    \"${PARALLEL_ARGS[@]}\"\n    --enable-prefix-caching\n    --cuda-graph-sizes 1 2 4\n)",
			ok:   true,
		},
		{name: "comment", line: `vllm serve m --a 1 --b 2 # tuned`},
		{name: "two statements", line: `vllm serve m --a 1; echo done`},
		{name: "redirect between words", line: `vllm serve m > log --a 1`},
		{name: "no options", line: `vllm serve m`},
		{name: "not a command", line: `if true; then vllm serve m --a 1; fi`},
	}
	for _, tc := range tests {
		got, ok := splitCommandLine(tc.line)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: splitCommandLine = %v\n%s\nwant %v\n%s", tc.name, ok, got, tc.ok, tc.want)
		}
	}
}

func TestSH009(t *testing.T) {
	const dir = "benchmarks/single_node/"
	multi := "#!/usr/bin/env bash\nvllm serve \"$MODEL\" \\\n    --port 8000 \\\n    --tensor-parallel-size 8 \\\n    --max-num-seqs 8 \\\n    --enable-prefix-caching > log 2>&1 &\n"
	one := "#!/usr/bin/env bash\nvllm serve \"$MODEL\" --port 8000 --tensor-parallel-size 8 --max-num-seqs 8 --enable-prefix-caching > log 2>&1 &\n"
	three := "#!/usr/bin/env bash\nvllm serve \"$MODEL\" --port 8000 --tensor-parallel-size 8 --max-num-seqs 8 > log 2>&1 &\n"
	tree := func(target string, extra ...string) map[string]string {
		return setFiles(map[string]string{dir + "a_vllm.sh": multi, dir + "b_vllm.sh": multi, dir + "t_vllm.sh": target}, extra...)
	}
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
	}{
		{name: "collapsed onto one line", base: tree(multi), head: tree(one), want: []string{"SH009 " + dir + "t_vllm.sh:2"}},
		{name: "three options are fine", base: tree(multi), head: tree(three)},
		{name: "one-line sibling", base: tree(multi, dir+"c_vllm.sh", one), head: tree(one, dir+"c_vllm.sh", one)},
		{name: "already one line", base: tree(one), head: tree(one + "echo done\n")},
		{name: "multi-line", base: tree(one), head: tree(multi)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH009, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			if len(fs) == 0 {
				return
			}
			mustContain(t, "message", fs[0].Body, "all 4 of its options on one line", "2 sibling vLLM recipes")
			want := "vllm serve \"$MODEL\" \\\n    --port 8000 \\\n    --tensor-parallel-size 8 \\\n    --max-num-seqs 8 \\\n    --enable-prefix-caching > log 2>&1 &"
			if s := fs[0].Suggestion; s == nil || s.Line != 2 || s.Replacement != want {
				t.Errorf("suggestion %+v", s)
			}
		})
	}
}
