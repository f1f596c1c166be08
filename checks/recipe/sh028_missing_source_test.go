package recipe

import (
	"testing"
)

func TestSH028(t *testing.T) {
	const lib = "benchmarks/benchmark_lib.sh"
	const old = "benchmarks/single_node/dsv4_fp4_b200_vllm.sh"
	const moved = "benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200_vllm.sh"
	recipe := func(src string) string {
		return "#!/usr/bin/env bash\nset -euo pipefail\n" + src + "\nvllm serve \"$MODEL\" --port \"$PORT\" &\n"
	}
	one := recipe(`source "$(dirname "$0")/../benchmark_lib.sh"`)
	two := recipe(`source "$(dirname "$0")/../../benchmark_lib.sh"`)
	viaVar := recipe("SCRIPT_DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\nsource \"$SCRIPT_DIR/../benchmark_lib.sh\"")
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		phrases    []string
		suggestion string
	}{
		{name: "a recipe moved a directory down keeps its ../",
			base: map[string]string{lib: "x=1\n", old: one}, head: map[string]string{lib: "x=1\n", moved: one},
			want:       []string{"SH028 " + moved + ":3"},
			phrases:    []string{"resolves to `benchmarks/single_node/benchmark_lib.sh`", "from this directory that is `../../benchmark_lib.sh`"},
			suggestion: `source "$(dirname "$0")/../../benchmark_lib.sh"`},
		{name: "moved and fixed",
			base: map[string]string{lib: "x=1\n", old: one}, head: map[string]string{lib: "x=1\n", moved: two}},
		{name: "a new recipe with the wrong depth",
			base: map[string]string{lib: "x=1\n"}, head: map[string]string{lib: "x=1\n", moved: one},
			want: []string{"SH028 " + moved + ":3"}},
		{name: "through a variable naming the script's directory",
			base: map[string]string{lib: "x=1\n"}, head: map[string]string{lib: "x=1\n", moved: viaVar},
			want: []string{"SH028 " + moved + ":4"}},
		{name: "the right depth",
			base: map[string]string{lib: "x=1\n"}, head: map[string]string{lib: "x=1\n", old: one}},
		{name: "a file the repository has nowhere: no path to suggest",
			base: map[string]string{}, head: map[string]string{moved: two},
			want:    []string{"SH028 " + moved + ":3"},
			phrases: []string{"has no such file"}},
		{name: "an absolute or computed path is not resolved",
			base: map[string]string{}, head: map[string]string{moved: recipe(`source "$INFERENCEX_ROOT/benchmarks/benchmark_lib.sh"`)}},
		{name: "a variable set to something else",
			base: map[string]string{}, head: map[string]string{moved: recipe("SCRIPT_DIR=/opt\nsource \"$SCRIPT_DIR/benchmark_lib.sh\"")}},
		{name: "an old line of a file the PR only edits elsewhere",
			base: map[string]string{moved: one}, head: map[string]string{moved: one + "echo done\n"}},
		{name: "a deprecated directory is not judged",
			base: map[string]string{lib: "x=1\n"}, head: map[string]string{lib: "x=1\n", "benchmarks/single_node/deprecated/x.sh": one}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH028, tc.base, tc.head)
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

func TestRelPath(t *testing.T) {
	tests := []struct{ dir, target, want string }{
		{"benchmarks/single_node/fixed_seq_len", "benchmarks/benchmark_lib.sh", "../../benchmark_lib.sh"},
		{"benchmarks/single_node", "benchmarks/single_node/x.sh", "x.sh"},
		{".", "benchmarks/benchmark_lib.sh", "benchmarks/benchmark_lib.sh"},
		{"a/b", "c/d.sh", "../../c/d.sh"},
	}
	for _, tc := range tests {
		if got := relPath(tc.dir, tc.target); got != tc.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", tc.dir, tc.target, got, tc.want)
		}
	}
}
