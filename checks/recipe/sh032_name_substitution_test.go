package recipe

import (
	"strings"
	"testing"
)

func TestSH032(t *testing.T) {
	const p = "benchmarks/single_node/agentic/dsv4_fp4_mi355x_vllm.sh"
	const lib = "benchmarks/benchmark_lib.sh"
	const wf = ".github/workflows/benchmark-tmpl.yml"
	const launcher = "runners/launch_mi355x-amds.sh"
	pre := "#!/usr/bin/env bash\nset -euo pipefail\nsource \"$(dirname \"$0\")/../../benchmark_lib.sh\"\n"
	libText := "LIB_DEFAULT_PORT=8888\nstop_pids() { :; }\n"
	wfText := "env:\n  TOTAL_CPU_DRAM_GB: ${{ inputs.dram }}\n  ISL: ${{ inputs.isl }}\n"
	tests := []struct {
		name        string
		base, head  string
		noWorkflow  bool
		want        []string
		phrases     []string
		suggestion  string
		noSuggested bool
	}{
		{name: "a workflow variable run as a command",
			head: pre + "PARTITION_GB=\"$(TOTAL_CPU_DRAM_GB)\"\necho \"$PARTITION_GB\"\n", want: []string{"SH032 " + p + ":4"},
			phrases:    []string{"`$(TOTAL_CPU_DRAM_GB)`", "`TOTAL_CPU_DRAM_GB: command not found`", "the workflows and launchers that start the job name it", "Write `${TOTAL_CPU_DRAM_GB}`"},
			suggestion: "PARTITION_GB=\"${TOTAL_CPU_DRAM_GB}\""},
		{name: "arithmetic written with one pair of parentheses",
			head: pre + "MAX_NUM_BATCHED_TOKENS=$( ISL * 2 )\necho \"$MAX_NUM_BATCHED_TOKENS\"\n", want: []string{"SH032 " + p + ":4"},
			phrases:    []string{"`$( ISL * 2 )`", "arithmetic was meant", "Write `$(( ISL * 2 ))`"},
			suggestion: "MAX_NUM_BATCHED_TOKENS=$(( ISL * 2 ))"},
		{name: "arithmetic on names nothing knows is still arithmetic",
			head: pre + "X=$(FOO_COUNT + 1)\necho \"$X\"\n", noWorkflow: true, want: []string{"SH032 " + p + ":4"}},
		{name: "the script sets the variable",
			head: pre + "HICACHE_GB=64\necho \"size $(HICACHE_GB)\"\n", want: []string{"SH032 " + p + ":5"},
			phrases: []string{"the script sets it"}},
		{name: "the library sets it",
			head: pre + "echo \"$(LIB_DEFAULT_PORT)\"\n", want: []string{"SH032 " + p + ":4"},
			phrases: []string{"`benchmark_lib.sh` sets it"}},
		{name: "a program path in a variable",
			head: pre + "PYTHON_BIN=/opt/venv/bin/python3\nV=$(PYTHON_BIN -c 'import vllm')\necho \"$V\"\n", want: []string{"SH032 " + p + ":5"},
			phrases:    []string{"running the program the variable names", "Write `$($PYTHON_BIN -c 'import vllm')`"},
			suggestion: "V=$($PYTHON_BIN -c 'import vllm')"},
		{name: "backquotes: reported, no suggestion",
			head: pre + "V=`TOTAL_CPU_DRAM_GB`\necho \"$V\"\n", want: []string{"SH032 " + p + ":4"}, noSuggested: true},
		{name: "a capitalized name nothing knows, without arithmetic", head: pre + "V=$(SOME_TOOL)\necho \"$V\"\n"},
		{name: "a capitalized program with a word argument is not arithmetic", head: pre + "V=$(SOME_TOOL list)\necho \"$V\"\n"},
		{name: "a workflow name, but the tree has no workflow", head: pre + "V=$(TOTAL_CPU_DRAM_GB)\necho \"$V\"\n", noWorkflow: true},
		{name: "a function the script defines", head: pre + "STAMP() { date +%s; }\necho \"$(STAMP) TOTAL_CPU_DRAM_GB\"\nTOTAL_CPU_DRAM_GB=1\n"},
		{name: "arithmetic expansion", head: pre + "V=$((ISL * 2))\necho \"$V ${TOTAL_CPU_DRAM_GB}\"\n"},
		{name: "a program", head: pre + "V=$(nproc)\nW=$(date +%s)\necho \"$V $W\"\n"},
		{name: "lines the PR does not touch",
			base: pre + "V=$(TOTAL_CPU_DRAM_GB)\n", head: pre + "V=$(TOTAL_CPU_DRAM_GB)\necho \"$V\"\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := map[string]string{lib: libText, launcher: "echo launching\n"}
			head := map[string]string{lib: libText, launcher: "echo launching\n", p: tc.head}
			if !tc.noWorkflow {
				base[wf], head[wf] = wfText, wfText
			}
			if tc.base != "" {
				base[p] = tc.base
			}
			fs := reviewRule(t, SH032, base, head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Title+" "+f.Body, tc.phrases...)
				switch {
				case tc.noSuggested && f.Suggestion != nil:
					t.Errorf("suggestion %q for a backquoted substitution", f.Suggestion.Replacement)
				case tc.suggestion != "" && (f.Suggestion == nil || f.Suggestion.Replacement != tc.suggestion):
					t.Errorf("suggestion %+v, want %q", f.Suggestion, tc.suggestion)
				}
			}
		})
	}
}

// TestSH032PerFile: at most three findings on one script.
func TestSH032PerFile(t *testing.T) {
	const p = "benchmarks/single_node/x_fp8_b200.sh"
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\n")
	for i := 0; i < 10; i++ {
		b.WriteString("V=$(CONC * 2)\n")
	}
	fs := reviewRule(t, SH032, map[string]string{}, map[string]string{p: b.String()})
	if len(fs) != sh032MaxPerFile {
		t.Errorf("%d findings, want %d", len(fs), sh032MaxPerFile)
	}
	keys := map[string]bool{}
	for _, f := range fs {
		if keys[f.Key] {
			t.Errorf("key %q twice", f.Key)
		}
		keys[f.Key] = true
	}
}
