package script

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMaskedStatus: the functions whose trailing set +x replaces the exit
// status of the program they run, and the spellings that keep it.
func TestMaskedStatus(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []MaskedStatus
	}{
		{"client then set +x", "run_bench() {\n    set -x\n    python3 bench.py \\\n        --port \"$PORT\"\n    set +x\n}\n",
			[]MaskedStatus{{Func: "run_bench", FuncLine: 1, FuncEnd: 6, Line: 5, CmdLine: 3, Cmd: "python3"}}},
		{"quiet brace spelling", "run_eval() {\n    lm_eval --model local\n    { set +x; } 2>/dev/null\n}\n",
			[]MaskedStatus{{Func: "run_eval", FuncLine: 1, FuncEnd: 4, Line: 3, CmdLine: 2, Cmd: "lm_eval"}}},
		{"command from an array", "run() {\n    \"${cmd[@]}\"\n    set +x\n}\n",
			[]MaskedStatus{{Func: "run", FuncLine: 1, FuncEnd: 4, Line: 3, CmdLine: 2, Cmd: "\"${cmd[@]}\""}}},
		{"subshell body", "run() (\n    vllm bench serve --model m\n    set +x\n)\n",
			[]MaskedStatus{{Func: "run", FuncLine: 1, FuncEnd: 4, Line: 3, CmdLine: 2, Cmd: "vllm"}}},
		{"status kept and returned", "run() {\n    python3 bench.py\n    local rc=$?\n    set +x\n    return $rc\n}\n", nil},
		{"status captured before set +x", "run() {\n    python3 bench.py\n    rc=$?\n    set +x\n}\n", nil},
		{"an echo before set +x", "run() {\n    python3 bench.py\n    echo done\n    set +x\n}\n", nil},
		{"set +x not last", "run() {\n    python3 bench.py\n    set +x\n    wait\n}\n", nil},
		{"backgrounded server", "start() {\n    vllm serve m &\n    set +x\n}\n", nil},
		{"failure handled on the line", "run() {\n    python3 bench.py || return 1\n    set +x\n}\n", nil},
		{"set +x alone", "quiet() {\n    set +x\n}\n", nil},
		{"other set options", "run() {\n    python3 bench.py\n    set +e\n}\n", nil},
		{"top level is no function", "python3 bench.py\nset +x\n", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("benchmarks/benchmark_lib.sh", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, f.Masked); diff != "" {
				t.Errorf("masked statuses (-want +got):\n%s", diff)
			}
		})
	}
}
