package script

import "testing"

// Calls of the benchmark_lib.sh helpers of LibFuncs are facts; calls of
// the script's own functions and of other programs are not among them.
func TestLibCalls(t *testing.T) {
	tests := []struct {
		name, src string
		want      []Call
	}{
		{name: "on a branch", src: "if [ \"$EVAL_ONLY\" = true ]; then\n  setup_eval_context\nfi\n",
			want: []Call{{Name: "setup_eval_context", Line: 2}}},
		{name: "defined by the script itself", src: "setup_eval_context() { :; }\nsetup_eval_context\n"},
		{name: "another helper", src: "start_gpu_monitor\n"},
		{name: "a word, not a call", src: "echo setup_eval_context\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("x.sh", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if len(f.LibCalls) != len(tc.want) {
				t.Fatalf("LibCalls %+v, want %+v", f.LibCalls, tc.want)
			}
			for i, w := range tc.want {
				if got := f.LibCalls[i]; got.Name != w.Name || got.Line != w.Line {
					t.Errorf("call %d: %+v, want %+v", i, got, w)
				}
			}
			if _, ok := f.LibCall("setup_eval_context"); ok != (len(tc.want) > 0) {
				t.Errorf("LibCall: %v", ok)
			}
		})
	}
}
