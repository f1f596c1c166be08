package recipe

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func TestSH030(t *testing.T) {
	const p = "benchmarks/single_node/agentic/kimik3_fp4_mi355x_mtp.sh"
	const lib = "benchmarks/benchmark_lib.sh"
	const launcher = "runners/launch_mi355x-amds.sh"
	const workflow = ".github/workflows/benchmark-tmpl.yml"
	const env = "env:\n  MODEL: ${{ inputs.model }}\n  TP: ${{ inputs.tp }}\n  CONC: ${{ inputs.conc }}\n  ISL: ${{ inputs.isl }}\nconcurrency: sweep\n"
	pre := "#!/usr/bin/env bash\nset -euo pipefail\nsource \"$(dirname \"$0\")/../../benchmark_lib.sh\"\n"
	const serve = "vllm serve \"$MODEL\" --tensor-parallel-size \"$TP\" &\n"
	echo := func(name string) string { return "echo \"offload: ${CPU_BYTES} B/rank x ${" + name + "} ranks\"\n" }
	tests := []struct {
		name            string
		base, head      string
		path            string
		libText, launch string
		noWorkflow      bool
		warn            bool              // a warning, not blocking
		other           map[string]string // more files of both trees
		want            []string
		phrases         []string
	}{
		{name: "a name copied from another recipe", head: pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve,
			want:    []string{"SH030 " + p + ":5"},
			phrases: []string{"`$SIMPLE_RANKS`", "`set -euo pipefail` (line 2)", "`SIMPLE_RANKS: unbound variable`", "`${SIMPLE_RANKS:-}`"}},
		{name: "a misspelling of a variable the script sets", head: pre + "MAX_MODEL_LEN=4096\nvllm serve \"$MODEL\" --max-model-len \"$MAX_MODL_LEN\" &\n",
			want: []string{"SH030 " + p + ":5"}, phrases: []string{"(the script sets `MAX_MODEL_LEN`)"}},
		{name: "a name in arithmetic", head: pre + "SEQS=$(( CONC * SCALE_FACTR ))\n" + serve, want: []string{"SH030 " + p + ":4"}},
		{name: "read with a default", head: pre + "CPU_BYTES=100\necho \"${SIMPLE_RANKS:-8}\"\n" + serve},
		{name: "assigned later in the script", head: pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + "SIMPLE_RANKS=8\n" + serve},
		{name: "without set -u: an empty value", head: "#!/usr/bin/env bash\nset -eo pipefail\nCPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve,
			want: []string{"SH030 " + p + ":4"}, phrases: []string{"gives an empty string"}, warn: true},
		{name: "set -u turned off before the read", head: pre + "set +u\nCPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve,
			want: []string{"SH030 " + p + ":6"}, warn: true},
		{name: "a lower-case name a workflow happens to contain", head: "#!/usr/bin/env bash\nif [ \"${ISL}\" -eq 8192 ] && [ \"${concurrency}\" -le 128 ]; then\n  echo small\nfi\n" + serve,
			want: []string{"SH030 " + p + ":2"}, phrases: []string{"`$concurrency`"}, warn: true},
		{name: "the library only mentions it", libText: "# SIMPLE_RANKS: how many ranks offload\nf() { echo \"--simple-ranks\"; }\n",
			head: pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve, want: []string{"SH030 " + p + ":5"}},
		{name: "the library sets it", libText: "SIMPLE_RANKS=8\n", head: pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve},
		{name: "a launcher passes it", launch: "export SIMPLE_RANKS=8\n", head: pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve},
		{name: "under a test of the variable", head: pre + "CPU_BYTES=100\nif [[ -n \"${SIMPLE_RANKS+x}\" ]]; then\n  " + echo("SIMPLE_RANKS") + "fi\n" + serve},
		{name: "variables bash sets", head: pre + "cd \"$PWD/work\"\ntrue | false\necho \"${PIPESTATUS[0]}\" \"$RANDOM\"\n" + serve},
		{name: "a Slurm variable", head: pre + "echo \"on $SLURMD_NODENAME\"\n" + serve},
		{name: "an engine variable", head: pre + "echo \"$VLLM_ROCM_USE_AITER\"\n" + serve},
		{name: "set by printf -v, which the facts do not bind", head: pre + "CPU_BYTES=100\nprintf -v SIMPLE_RANKS '%d' 8\n" + echo("SIMPLE_RANKS") + serve},
		{name: "the script sources another file", head: pre + "source /etc/profile.d/env.sh\n" + echo("SIMPLE_RANKS") + serve},
		{name: "a multi-node script", path: "benchmarks/multi_node/amd_utils/server.sh", head: pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve,
			want: []string{"SH030 benchmarks/multi_node/amd_utils/server.sh:5"}, phrases: []string{"no other file of the multi-node tree names it"}},
		{name: "a multi-node script whose job script passes it", path: "benchmarks/multi_node/amd_utils/server.sh",
			other: map[string]string{"benchmarks/multi_node/amd_utils/job.slurm": "docker run -e SIMPLE_RANKS=$SIMPLE_RANKS img\n"},
			head:  pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve},
		{name: "a multi-node script sourced by one that sets it", path: "benchmarks/multi_node/amd_utils/trace_replay.sh",
			other: map[string]string{"benchmarks/multi_node/amd_utils/bench.sh": "profile_folder=/logs\nsource trace_replay.sh\n"},
			head:  pre + "RESULT_DIR=\"${RESULT_DIR:-$profile_folder}\"\n" + serve},
		{name: "a deprecated script", path: "benchmarks/single_node/deprecated/x.sh", head: pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve},
		{name: "the base read it already", base: pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve,
			head: pre + "CPU_BYTES=200\n" + echo("SIMPLE_RANKS") + "echo done\n" + serve},
		{name: "a tree without workflows", noWorkflow: true, head: pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve},
		{name: "lines the PR does not touch", base: pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve,
			head: pre + "CPU_BYTES=100\n" + echo("SIMPLE_RANKS") + serve + "echo done\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			libText := tc.libText
			if libText == "" {
				libText = "wait_for_server_ready() { :; }\n"
			}
			launch := "#!/usr/bin/env bash\n" + tc.launch + "bash benchmarks/single_node/x.sh\n"
			path := p
			if tc.path != "" {
				path = tc.path
			}
			base := map[string]string{lib: libText, launcher: launch, workflow: env}
			if tc.base != "" {
				base[path] = tc.base
			}
			for op, text := range tc.other {
				base[op] = text
			}
			head := map[string]string{lib: libText, launcher: launch, workflow: env, path: tc.head}
			for op, text := range tc.other {
				head[op] = text
			}
			if tc.noWorkflow {
				delete(base, workflow)
				delete(head, workflow)
			}
			fs := reviewRule(t, SH030, base, head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, tc.phrases...)
				if want := map[bool]checks.Severity{true: checks.Warning, false: checks.Blocking}[tc.warn]; f.Severity != want {
					t.Errorf("severity %v, want %v", f.Severity, want)
				}
			}
		})
	}
}

// TestSH030ManyNames: a script that reads thousands of names nothing sets
// is judged in one pass over its text (the mention counts are built once)
// and gets at most sh030MaxPerFile findings.
func TestSH030ManyNames(t *testing.T) {
	const p = "benchmarks/single_node/agentic/x.sh"
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\nset -euo pipefail\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "echo \"$UNSET_NAME_%d\"\n", i)
	}
	files := map[string]string{".github/workflows/benchmark-tmpl.yml": "env:\n  MODEL: m\n", p: b.String()}
	fs := reviewRule(t, SH030, map[string]string{".github/workflows/benchmark-tmpl.yml": "env:\n  MODEL: m\n"}, files)
	if len(fs) != sh030MaxPerFile {
		t.Fatalf("%d findings, want %d", len(fs), sh030MaxPerFile)
	}
}
