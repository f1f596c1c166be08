package sheval

import (
	"strings"
	"testing"
)

// TestConfiguredBounds runs the same scripts under a configured evaluator:
// the depth, step and Unknown settings change what is followed.
func TestConfiguredBounds(t *testing.T) {
	files := map[string]string{
		"runners/a.sh": "source runners/b.sh\n",
		"runners/b.sh": "bash benchmarks/deep.sh\n",
	}
	many := strings.Repeat("X=1\n", 50) + "bash benchmarks/late.sh\n"
	tests := []struct {
		name           string
		ev             Eval
		src            string
		runs           string
		reqs           string
		wantIncomplete bool
	}{
		{name: "default depth follows two sources", src: "source runners/a.sh\n", runs: "benchmarks/deep.sh"},
		{name: "depth 1 stops at the second source", ev: Eval{MaxDepth: 1}, src: "source runners/a.sh\n", runs: ""},
		{name: "default steps reach the end", src: many, runs: "benchmarks/late.sh"},
		{name: "10 steps stop early", ev: Eval{MaxSteps: 10}, src: many, runs: "", wantIncomplete: true},
		{name: "unset variable is required", src: "check_env_vars MODEL\n", reqs: "MODEL check_env_vars"},
		{name: "runner variable is not", ev: Eval{Unknown: func(n string) bool { return n == "MODEL" }}, src: "check_env_vars MODEL\n", reqs: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := evalWith(t, tc.ev, files, tc.src, Env{})
			if got := runsOf(res); got != tc.runs {
				t.Errorf("runs %q, want %q", got, tc.runs)
			}
			if got := strings.Join(reqsOf(res), ","); got != tc.reqs {
				t.Errorf("reqs %q, want %q", got, tc.reqs)
			}
			if res.Incomplete != tc.wantIncomplete {
				t.Errorf("incomplete %v, want %v", res.Incomplete, tc.wantIncomplete)
			}
		})
	}
}
