package recipe

import (
	"strings"
	"testing"
)

func TestSH001(t *testing.T) {
	bare := func(s string) string {
		return edit(t, s,
			`if [[ -n "${SLURM_JOB_ID:-}" ]]; then`, `if [[ -n "$SLURM_JOB_ID" ]]; then`,
			`${SLURMD_NODENAME:-unknown}`, `${SLURMD_NODENAME}`,
			`case "${KV_OFFLOAD_BACKEND:-}" in`, `case "$KV_OFFLOAD_BACKEND" in`)
	}
	newPath := agenticDir + "n_b300_vllm.sh"
	tests := []struct {
		name string
		// base and head of the target; "" leaves it as kitRecipe (head) or
		// makes the file new (base).
		base, head string
		path       string
		siblings   map[string]string // replaces sibling contents
		want       []string
		check      func(t *testing.T, msg, details string, sugLine int, sug string)
	}{
		{
			name: "nounset dropped, optional vars read bare",
			head: bare(strings.Replace(kitRecipe, "set -euo pipefail", "set -eo pipefail", 1)),
			want: []string{"SH001 " + kitTarget + ":2"},
			check: func(t *testing.T, msg, details string, line int, sug string) {
				mustContain(t, "message", msg,
					"Line 2 weakens `set -euo pipefail` to `set -eo pipefail`",
					"the only script among 4 in `benchmarks/single_node/agentic/`",
					"`a_b200_vllm.sh` handles the same optional variables with `${VAR:-}`",
					"`SLURM_JOB_ID` (line 8), `SLURMD_NODENAME` (line 9) and `KV_OFFLOAD_BACKEND` (line 21)")
				if !strings.Contains(details, `echo "job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"`) {
					t.Errorf("details should rewrite the read with the sibling's default:\n%s", details)
				}
				if line != 2 || sug != "set -euo pipefail" {
					t.Errorf("suggestion %d %q", line, sug)
				}
			},
		},
		{
			name: "a variable the strict siblings also read bare is not optional",
			head: edit(t, strings.Replace(kitRecipe, "set -euo pipefail", "set -eo pipefail", 1), "OFFLOAD_ARGS=()\n", "echo \"$PORT $HOST_IP\"\nOFFLOAD_ARGS=()\n"),
			siblings: map[string]string{
				"a_b200_vllm.sh": edit(t, kitRecipe, "OFFLOAD_ARGS=()\n", "echo \"$PORT\"\nOFFLOAD_ARGS=()\n"),
			},
			want: []string{"SH001 " + kitTarget + ":2"},
			check: func(t *testing.T, msg, _ string, _ int, _ string) {
				if strings.Contains(msg, "`PORT`") || !strings.Contains(msg, "`HOST_IP` (line 20)") {
					t.Errorf("message: %s", msg)
				}
			},
		},
		{
			name: "set +u added",
			head: edit(t, kitRecipe, "check_env_vars MODEL", "set +u\ncheck_env_vars MODEL"),
			want: []string{"SH001 " + kitTarget + ":6"},
			check: func(t *testing.T, msg, _ string, line int, sug string) {
				if !strings.HasPrefix(msg, "Line 6 adds `set +u`") || !strings.Contains(msg, "Remove the `set +u`") {
					t.Errorf("message: %s", msg)
				}
				if line != 6 || sug != "" {
					t.Errorf("want a deletion of line 6, got %d %q", line, sug)
				}
			},
		},
		{
			name: "nounset turned off around a source and back on",
			head: edit(t, kitRecipe, `source "$(dirname "$0")/../../benchmark_lib.sh"`, "set +u\nsource \"$(dirname \"$0\")/../../benchmark_lib.sh\"\nset -u"),
		},
		{
			name: "strict line unchanged while other lines change",
			head: edit(t, kitRecipe, "MAX_NUM_SEQS=$((2 * CONC))", "MAX_NUM_SEQS=$((3 * CONC))"),
		},
		{
			name: "pipefail dropped with errexit",
			head: strings.Replace(kitRecipe, "set -euo pipefail", "set -u", 1),
			want: []string{"SH001 " + kitTarget + ":2"},
			check: func(t *testing.T, msg, _ string, _ int, sug string) {
				if !strings.Contains(msg, "dropping `-e` (errexit) and `-o pipefail` (pipefail)") || sug != "set -euo pipefail" {
					t.Errorf("message %s / suggestion %q", msg, sug)
				}
			},
		},
		{
			name: "weakened before this PR",
			base: strings.Replace(kitRecipe, "set -euo pipefail", "set -eo pipefail", 1),
			head: edit(t, strings.Replace(kitRecipe, "set -euo pipefail", "set -eo pipefail", 1), "MAX_NUM_SEQS=$((2 * CONC))", "MAX_NUM_SEQS=$((3 * CONC))"),
		},
		{
			name:     "most siblings run without nounset",
			head:     strings.Replace(kitRecipe, "set -euo pipefail", "set -eo pipefail", 1),
			siblings: map[string]string{"a_b200_vllm.sh": strings.Replace(kitRecipe, "set -euo pipefail", "set -eo pipefail", 1), "b_b300_vllm.sh": strings.Replace(kitRecipe, "set -euo pipefail", "set -e", 1)},
		},
		{
			name: "new file keeps strict mode",
			path: newPath,
			head: kitRecipe,
		},
		{
			name: "new file without nounset",
			path: newPath,
			head: strings.Replace(kitRecipe, "set -euo pipefail", "set -eo pipefail", 1),
			want: []string{"SH001 " + newPath + ":2"},
			check: func(t *testing.T, msg, _ string, _ int, sug string) {
				if !strings.Contains(msg, "the only script among 5") || sug != "set -euo pipefail" {
					t.Errorf("message %s / suggestion %q", msg, sug)
				}
			},
		},
		{
			name:     "new file, too few siblings to call it a convention",
			path:     newPath,
			head:     strings.Replace(kitRecipe, "set -euo pipefail", "set -eo pipefail", 1),
			siblings: map[string]string{"a_b200_vllm.sh": "", "b_b300_vllm.sh": ""},
		},
		{
			name: "new helper to source, not a recipe",
			path: agenticDir + "helpers.sh",
			head: "#!/usr/bin/env bash\n# sourced by the recipes\nhelper() { echo \"$1\"; }\n",
		},
		{
			name: "head does not parse",
			head: "#!/usr/bin/env bash\nset -e\nif true; then\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewKit(t, SH001, tc.path, tc.base, tc.head, tc.siblings)
			wantLocs(t, fs, tc.want)
			if tc.check != nil && len(fs) == 1 {
				f := fs[0]
				line, sug := suggested(f)
				tc.check(t, f.Body, f.Reasoning(), line, sug)
				if f.Key == "" || len(f.Facts) == 0 || len(f.Related) == 0 {
					t.Errorf("finding lacks key, facts or evidence: %+v", f)
				}
			}
		})
	}
}

func TestWithDefault(t *testing.T) {
	tests := []struct{ line, name, def, want string }{
		{`case "$KV" in`, "KV", "", `case "${KV:-}" in`},
		{`echo "${A} $A $AB ${A:-x}"`, "A", "u", `echo "${A:-u} ${A:-u} $AB ${A:-x}"`},
		{`x=$A`, "A", "", `x=${A:-}`},
	}
	for _, tc := range tests {
		if got, _ := withDefault(tc.line, tc.name, tc.def); got != tc.want {
			t.Errorf("withDefault(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}
