package sheval

import (
	"strings"
	"testing"
)

// callsOf lists each path's recorded calls, one string of arguments per
// call ("?" before an unknown one), paths joined by " | ".
func callsOf(res *Result) string {
	var paths []string
	for _, p := range res.Paths {
		var calls []string
		for _, c := range p.Calls {
			var args []string
			for _, a := range c.Args {
				if !a.Known {
					args = append(args, "?"+a.Text)
				} else {
					args = append(args, a.Text)
				}
			}
			calls = append(calls, strings.Join(args, " "))
		}
		paths = append(paths, strings.Join(calls, "; "))
	}
	return strings.Join(paths, " | ")
}

func TestEvalCalls(t *testing.T) {
	servers := func(p string) bool { return p == "vllm" || p == "python3" }
	env := Env{"ISL": Str("8192"), "OSL": Str("1024"), "CONC": Str("64"), "TP": Str("8")}
	withModel := env.Clone()
	withModel["MODEL"] = Opaque()
	for _, tc := range []struct {
		name, src string
		env       Env
		want      string
	}{
		{"arguments expanded with the job's values",
			`vllm serve "$MODEL" --max-model-len $((ISL + OSL + 256)) --max-num-seqs "$CONC" -tp $TP`,
			withModel, `vllm serve ?"$MODEL" --max-model-len 9472 --max-num-seqs 64 -tp 8`},
		{"a branch on the job's values picks the path",
			`if [ "$CONC" -ge 32 ]; then BS=$CONC; else BS=32; fi
python3 -m sglang.launch_server --cuda-graph-max-bs "$BS"`,
			env, `python3 -m sglang.launch_server --cuda-graph-max-bs 64`},
		{"an array of arguments",
			`ARGS=(--max-num-seqs "$CONC")
CMD=(vllm serve m "${ARGS[@]}")
"${CMD[@]}" > log 2>&1 &`,
			env, `vllm serve m --max-num-seqs 64`},
		{"other programs are not recorded", `echo "$CONC"; nvidia-smi; sed -i s/a/b/ f`, env, ``},
		// Branches the job's values cannot decide and that change nothing
		// else join into one path, with the calls of both.
		{"undecided alternatives", `if [ "$X" = 1 ]; then vllm serve a; else vllm serve b; fi`, Env{"X": Opaque()},
			`vllm serve a; vllm serve b`},
		{"decided alternatives", `if [ "$TP" = 8 ]; then vllm serve a; else vllm serve b; fi`, env, `vllm serve a`},
		{"in a subshell", `( vllm serve "$CONC" )`, env, `vllm serve 64`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := evalWith(t, Eval{Calls: servers}, nil, tc.src, tc.env)
			if got := callsOf(res); got != tc.want {
				t.Errorf("calls %q, want %q", got, tc.want)
			}
		})
	}
	// The inputs the arguments are built from decide the evaluation, so a
	// memo keyed by them never hands one row's arguments to another.
	res := evalWith(t, Eval{Calls: servers}, nil, `vllm serve m --max-model-len $((ISL + OSL))`, env)
	for _, k := range []string{"ISL", "OSL"} {
		if _, ok := res.Reads[k]; !ok {
			t.Errorf("reads %v lack %s", res.Reads, k)
		}
	}
	// Without Calls nothing is recorded and the arguments decide nothing.
	res = evalWith(t, Eval{}, nil, `vllm serve m --max-model-len $((ISL + OSL))`, env)
	if callsOf(res) != "" || res.Reads["ISL"] != "" {
		t.Errorf("recorded without Calls: %q, reads %v", callsOf(res), res.Reads)
	}
	// A path records at most maxCalls calls.
	res = evalWith(t, Eval{Calls: servers}, nil, strings.Repeat("vllm serve m\n", maxCalls+5), env)
	if n := len(res.Paths[0].Calls); n != maxCalls || !res.Incomplete {
		t.Errorf("%d calls, incomplete %v", n, res.Incomplete)
	}
}
