package recipe

import (
	"strings"
	"testing"
)

const benchLib = `#!/usr/bin/env bash

check_env_vars() {
    local missing=0
    for v in "$@"; do
        [[ -z "${!v:-}" ]] && missing=1
    done
    return $missing
}

run_benchmark_serving() {
    set -x
    python3 "$BENCH_DIR/benchmark_serving.py" \
        --model "$MODEL" \
        --result-filename "$RESULT_FILENAME.json"
    set +x
}
`

func TestSH021(t *testing.T) {
	const lib = "benchmarks/benchmark_lib.sh"
	const runner = "runners/launch_h200-nv.sh"
	fixed := edit(t, benchLib, "    set +x\n}\n", "    local rc=$?\n    set +x\n    return $rc\n}\n")
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
	}{
		{name: "new helper masks its client's status", base: map[string]string{lib: "#!/usr/bin/env bash\n"},
			head: map[string]string{lib: benchLib}, want: []string{"SH021 " + lib + ":16"}},
		{name: "PR rewrites the masked function", base: map[string]string{lib: benchLib},
			head: map[string]string{lib: edit(t, benchLib, "        --model \"$MODEL\" \\\n", "        --model \"$MODEL\" --ignore-eos \\\n")},
			want: []string{"SH021 " + lib + ":16"}},
		{name: "PR changes another function only", base: map[string]string{lib: benchLib},
			head: map[string]string{lib: edit(t, benchLib, "    return $missing\n", "    return \"$missing\"\n")}},
		{name: "status kept and returned", base: map[string]string{lib: benchLib}, head: map[string]string{lib: fixed}},
		{name: "runner launcher function", base: map[string]string{runner: "#!/usr/bin/env bash\n"},
			head: map[string]string{runner: "#!/usr/bin/env bash\nsubmit() {\n    sbatch --wait job.sh\n    { set +x; } 2>/dev/null\n}\nsubmit || exit 1\n"},
			want: []string{"SH021 " + runner + ":4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH021, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, "always returns 0", "local rc=$?", "return $rc")
				if len(f.Related) != 1 || !strings.HasSuffix(f.Related[0].Note, "status is lost") {
					t.Errorf("related %+v", f.Related)
				}
			}
		})
	}
}
