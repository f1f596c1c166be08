package sheval

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// evalIn evaluates the script at p in a tree of files with env.
func evalIn(t *testing.T, files map[string]string, p string, env Env) *Result {
	t.Helper()
	tree := checks.NewMemTree(files)
	ev := &Eval{Files: NewTreeFiles(context.Background(), tree, nil), Unknown: func(n string) bool { return n == "SLURM_JOB_ID" || n == "USER" }}
	res, err := ev.Run(p, env)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// runPaths lists what each path runs, "exit@line" for a failing path.
func runPaths(res *Result) []string {
	var out []string
	for _, p := range res.Paths {
		var parts []string
		for _, r := range p.Runs {
			switch {
			case r.Path != "":
				parts = append(parts, r.Path)
			case r.Known:
				parts = append(parts, "ext:"+r.Text)
			default:
				parts = append(parts, "?"+r.Text)
			}
		}
		if p.Exit != nil {
			parts = append(parts, "exit@"+strconv.Itoa(p.Exit.At.Line))
		}
		out = append(out, strings.Join(parts, ","))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func envOf(kv ...string) Env {
	e := Env{}
	for i := 0; i+1 < len(kv); i += 2 {
		e[kv[i]] = Str(kv[i+1])
	}
	return e
}

const b200Launcher = `#!/usr/bin/bash
if [[ $MODEL_PREFIX == "dsr1" && $PRECISION == "fp4" ]]; then
    export MODEL_PATH="/data/dsr1"
elif [[ $MODEL_PREFIX == "dsv4" ]]; then
    export MODEL_PATH="/data/dsv4"
else
    echo "Unsupported model prefix/precision: $MODEL_PREFIX/$PRECISION"
    exit 1
fi
FRAMEWORK_SUFFIX=$([[ "$FRAMEWORK" == "trt" ]] && printf '_trt' || printf '')
SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' || printf '')
BENCH_BASE="benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_b200"
BENCH_SCRIPT="${BENCH_BASE}_${FRAMEWORK}${SPEC_SUFFIX}.sh"
if [[ ! -f "$BENCH_SCRIPT" ]]; then
    BENCH_SCRIPT="${BENCH_BASE}${FRAMEWORK_SUFFIX}${SPEC_SUFFIX}.sh"
fi
if ! mkdir -p /tmp/x; then
    echo "cannot" >&2
fi
srun --jobid=$JOB_ID --container-image=$SQUASH_FILE \
    --container-mounts=$GITHUB_WORKSPACE:/workspace --container-workdir=/workspace \
    --export=ALL,PORT=8888 \
    bash "$BENCH_SCRIPT"
`

func TestEvalResolvesScript(t *testing.T) {
	files := map[string]string{
		"runners/launch_b200-dgxc.sh":                               b200Launcher,
		"benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_trt.sh": "#!/bin/bash\n",
		"benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh":      "#!/bin/bash\n",
		"benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200.sh":     "#!/bin/bash\n",
	}
	tests := []struct {
		name string
		env  Env
		want []string
	}{
		{"framework-tagged first", envOf("MODEL_PREFIX", "dsv4", "PRECISION", "fp4", "FRAMEWORK", "vllm", "SPEC_DECODING", "none",
			"SCENARIO_SUBDIR", "agentic/", "EXP_NAME", "dsv4_tp8_conc4_kvnone"),
			[]string{"benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh"}},
		{"fallback without the engine", envOf("MODEL_PREFIX", "dsv4", "PRECISION", "fp4", "FRAMEWORK", "sglang", "SPEC_DECODING", "none",
			"SCENARIO_SUBDIR", "fixed_seq_len/", "EXP_NAME", "dsv4_1k1k"),
			[]string{"benchmarks/single_node/fixed_seq_len/dsv4_fp4_b200.sh"}},
		{"legacy trt suffix", envOf("MODEL_PREFIX", "dsr1", "PRECISION", "fp4", "FRAMEWORK", "trt", "SPEC_DECODING", "none",
			"SCENARIO_SUBDIR", "fixed_seq_len/", "EXP_NAME", "dsr1_8k1k"),
			[]string{"benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_trt.sh"}},
		{"missing mtp script", envOf("MODEL_PREFIX", "dsr1", "PRECISION", "fp4", "FRAMEWORK", "trt", "SPEC_DECODING", "mtp",
			"SCENARIO_SUBDIR", "fixed_seq_len/", "EXP_NAME", "dsr1_8k1k"),
			[]string{"benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200_trt_mtp.sh"}},
		{"unsupported model exits", envOf("MODEL_PREFIX", "glm5", "PRECISION", "fp8", "FRAMEWORK", "vllm", "SPEC_DECODING", "none",
			"SCENARIO_SUBDIR", "fixed_seq_len/", "EXP_NAME", "glm5_1k1k"),
			[]string{"exit@8"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := evalIn(t, files, "runners/launch_b200-dgxc.sh", tc.env)
			if got := runPaths(res); !slices.Equal(got, tc.want) {
				t.Errorf("runs %q, want %q", got, tc.want)
			}
			if res.Incomplete {
				t.Error("incomplete")
			}
		})
	}
}

func TestEvalRunEnvAndEvidence(t *testing.T) {
	files := map[string]string{"runners/launch_b200-dgxc.sh": b200Launcher}
	env := envOf("MODEL_PREFIX", "dsv4", "PRECISION", "fp4", "FRAMEWORK", "vllm", "SPEC_DECODING", "none",
		"SCENARIO_SUBDIR", "agentic/", "EXP_NAME", "dsv4_tp8_conc4_kvnone", "TP", "8")
	res := evalIn(t, files, "runners/launch_b200-dgxc.sh", env)
	if len(res.Paths) != 1 || len(res.Paths[0].Runs) != 1 {
		t.Fatalf("paths %+v", runPaths(res))
	}
	p := res.Paths[0]
	r := p.Runs[0]
	if r.At.Line != 20 {
		t.Errorf("run at %v, want line 20 (the srun)", r.At)
	}
	var from []int
	for _, l := range r.From {
		from = append(from, l.Line)
	}
	if !slices.Equal(from, []int{15}) {
		t.Errorf("run's path assigned at %v, want line 15 (the fallback)", from)
	}
	if v, _ := r.Env.Get("PORT"); v != "8888" {
		t.Errorf("PORT = %q, want the --export value", v)
	}
	if v, _ := r.Env.Get("MODEL_PATH"); v != "/data/dsv4" {
		t.Errorf("MODEL_PATH = %q, want the exported one", v)
	}
	if r.Env.Provides("BENCH_BASE") {
		t.Error("a variable the launcher does not export reached the script")
	}
	if !p.Certain {
		t.Error("the mkdir test is irrelevant, the path should stay certain")
	}
}

func TestEvalDockerEnvAndSrtctl(t *testing.T) {
	files := map[string]string{
		"runners/launch_h100-cr.sh": `SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' || printf '')
docker run --rm -v $GITHUB_WORKSPACE:/workspace/ -w /workspace/ \
  -e MODEL -e TP -e PORT=8888 --entrypoint=/bin/bash $IMAGE \
  benchmarks/single_node/${SCENARIO_SUBDIR}"${EXP_NAME%%_*}_${PRECISION}_h100${SPEC_SUFFIX}.sh"
`,
		"runners/launch_gb200-nv.sh": `SRT_REPO_DIR="srt-slurm"
git clone https://example.invalid/srt-slurm.git "$SRT_REPO_DIR"
cd "$SRT_REPO_DIR" || exit 1
mkdir -p recipes/vllm/dsv4
cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/vllm/dsv4" recipes/vllm/dsv4
if [[ -z "$CONFIG_FILE" ]]; then
    echo "CONFIG_FILE not set" >&2
    exit 1
fi
srtctl apply -f "$CONFIG_FILE" --tags x
`,
	}
	res := evalIn(t, files, "runners/launch_h100-cr.sh", envOf("SPEC_DECODING", "none", "SCENARIO_SUBDIR", "fixed_seq_len/",
		"EXP_NAME", "dsr1_1k1k", "PRECISION", "fp8", "MODEL", "m", "TP", "8", "EP_SIZE", "1", "IMAGE", "img"))
	if got := runPaths(res); !slices.Equal(got, []string{"benchmarks/single_node/fixed_seq_len/dsr1_fp8_h100.sh"}) {
		t.Fatalf("docker run resolved to %q", got)
	}
	env := res.Paths[0].Runs[0].Env
	if env.Provides("EP_SIZE") {
		t.Error("docker passes only the -e variables, EP_SIZE is not one")
	}
	if v, _ := env.Get("TP"); v != "8" {
		t.Errorf("TP = %q through -e TP", v)
	}

	res = evalIn(t, files, "runners/launch_gb200-nv.sh", envOf("CONFIG_FILE", "recipes/vllm/dsv4/8k1k/a.yaml:override[0]"))
	got := runPaths(res)
	if !slices.Contains(got, "benchmarks/multi_node/srt-slurm-recipes/vllm/dsv4/8k1k/a.yaml") {
		t.Errorf("srtctl recipe resolved to %q", got)
	}
	res = evalIn(t, files, "runners/launch_gb200-nv.sh", envOf("CONFIG_FILE", "recipes/other/b.yaml"))
	if got := runPaths(res); !slices.Contains(got, "ext:recipes/other/b.yaml") {
		t.Errorf("a recipe of the external checkout should stay outside the tree, got %q", got)
	}
	res = evalIn(t, files, "runners/launch_gb200-nv.sh", Env{})
	if got := runPaths(res); !slices.Contains(got, "exit@8") || slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "yaml") }) {
		t.Errorf("without CONFIG_FILE every path should exit at line 8, got %q", got)
	}
}

func TestEvalRequirements(t *testing.T) {
	files := map[string]string{
		"benchmarks/benchmark_lib.sh": `check_env_vars() { for v in "$@"; do [ -n "${!v}" ] || exit 1; done; }
start_server() {
    : "${SERVER_PORT:?need a port}"
    echo start
}
`,
		"benchmarks/single_node/x.sh": `#!/usr/bin/env bash
set -euo pipefail
source "$(dirname "$0")/../benchmark_lib.sh"
source benchmarks/benchmark_lib.sh
check_env_vars MODEL TP CONC
if [ "$KV_OFFLOADING" = "dram" ]; then
    check_env_vars TOTAL_CPU_DRAM_GB
fi
if [[ -n "$SLURM_JOB_ID" ]]; then
    echo "on slurm"
fi
echo "EP: $EP_SIZE"
start_server
`,
	}
	res := evalIn(t, files, "benchmarks/single_node/x.sh", envOf("MODEL", "m", "TP", "8", "KV_OFFLOADING", "dram"))
	var reqs []string
	for _, p := range res.Paths {
		if !p.Certain {
			t.Errorf("path not certain: %+v", p.Decisions)
		}
		for _, r := range p.Reqs {
			reqs = append(reqs, r.Var+"@"+strconv.Itoa(r.At.Line)+" "+r.How)
		}
	}
	want := []string{"CONC@5 check_env_vars", "TOTAL_CPU_DRAM_GB@7 check_env_vars", "EP_SIZE@12 $EP_SIZE under set -u", "SERVER_PORT@3 ${SERVER_PORT:?}"}
	if !slices.Equal(reqs, want) {
		t.Errorf("requirements %q, want %q", reqs, want)
	}
	res = evalIn(t, files, "benchmarks/single_node/x.sh", envOf("MODEL", "m", "TP", "8", "CONC", "4", "KV_OFFLOADING", "none", "EP_SIZE", "1", "SERVER_PORT", "1"))
	for _, p := range res.Paths {
		if len(p.Reqs) > 0 {
			t.Errorf("requirements %+v with every variable set", p.Reqs)
		}
	}
}

func TestEvalBounds(t *testing.T) {
	run := func(src string) *Result {
		t.Helper()
		tree := checks.NewMemTree(map[string]string{"r.sh": src})
		ev := &Eval{Files: NewTreeFiles(context.Background(), tree, nil), Unknown: func(string) bool { return true }}
		res, err := ev.Run("r.sh", Env{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// Undecided tests join their paths: 2^40 ways through are one state.
	var b strings.Builder
	for i := 0; i < 40; i++ {
		b.WriteString("if [ -n \"$U" + strconv.Itoa(i) + "\" ]; then X" + strconv.Itoa(i) + "=a; else X" + strconv.Itoa(i) + "=b; fi\n")
	}
	b.WriteString("export X3\nbash benchmarks/x.sh\n")
	res := run(b.String())
	if res.Incomplete || len(res.Paths) != 1 || res.Paths[0].Certain {
		t.Errorf("joined paths: incomplete %v, %d paths, certain %v", res.Incomplete, len(res.Paths), res.Paths[0].Certain)
	}
	if got := runPaths(res); !slices.Equal(got, []string{"benchmarks/x.sh"}) {
		t.Errorf("the run after the joined paths: %q", got)
	}
	if v := res.Paths[0].Runs[0].Env["X3"]; v.Known || !v.Set {
		t.Errorf("X3 after the join = %+v, want set and unknown", v)
	}

	// Every failing exit is a path of its own, up to a bound.
	b.Reset()
	for i := 0; i < 2000; i++ {
		b.WriteString("cmd" + strconv.Itoa(i) + " || exit 1\n")
	}
	res = run(b.String())
	if !res.Incomplete || len(res.Paths) > 4*defaultMaxStates {
		t.Errorf("2000 exits: incomplete %v, %d paths", res.Incomplete, len(res.Paths))
	}

	// A script longer than the step budget stops, incomplete.
	res = run(strings.Repeat("X=1\n", defaultMaxSteps+10) + "bash benchmarks/late.sh\n")
	if !res.Incomplete || slices.Contains(runPaths(res), "benchmarks/late.sh") {
		t.Errorf("step budget: incomplete %v, runs %q", res.Incomplete, runPaths(res))
	}

	deep := strings.Repeat("(", 5000) + strings.Repeat(")", 5000)
	tree := checks.NewMemTree(map[string]string{"d.sh": deep})
	ev := &Eval{Files: NewTreeFiles(context.Background(), tree, nil)}
	if _, err := ev.Run("d.sh", Env{}); err == nil || !strings.Contains(err.Error(), "nests") {
		t.Errorf("deep nesting: %v", err)
	}
}

// TestEvalPartialKnowledge: what the evaluator still reads when part of a
// word is unknown — an array with one unknown element, a clone directory
// on a path the bot cannot know, a mount list with an unknown host path.
func TestEvalPartialKnowledge(t *testing.T) {
	files := map[string]string{
		"benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml": "name: a\n",
		"benchmarks/single_node/m_fp4_x.sh": `#!/usr/bin/env bash
check_env_vars TP CONC
: "${MODEL:?}"
CMD=(server --tp "$TP" --seqs "$CONC")
"${CMD[@]}" > log 2>&1 &
`,
		"runners/launch_x.sh": `#!/usr/bin/bash
if [[ -n "$SHARED" ]]; then
    REPO_DIR="$SHARED/srt-$(date +%s)"
else
    REPO_DIR=srt
fi
git clone https://example.invalid/srt.git "$REPO_DIR"
cd "$REPO_DIR"
cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/m" recipes/m
ARGS=(--no-preflight -f "$CONFIG_FILE" --tags "x-$(date +%Y)")
ARGS+=(--setup-script s.sh)
OUT=$(srtctl apply "${ARGS[@]}" 2>&1)
`,
		"runners/launch_y.sh": `#!/usr/bin/bash
srun --container-image=img \
    --container-mounts=$GITHUB_WORKSPACE:/workspace,$MODEL_PATH:$MODEL_PATH \
    --container-workdir=/workspace \
    bash benchmarks/single_node/m_fp4_x.sh
`,
	}
	res := evalIn(t, files, "runners/launch_x.sh", envOf("CONFIG_FILE", "recipes/m/a.yaml", "SHARED", "/shared"))
	got := runPaths(res)
	if !slices.Contains(got, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml") {
		t.Errorf("srtctl -f in a partly unknown array, from a clone at an unknown path: got %q", got)
	}
	for _, p := range res.Paths {
		for _, r := range p.Runs {
			if !r.Copied {
				t.Errorf("%s was reached through the copy into the clone: Copied should be set", r.Path)
			}
		}
	}

	env := envOf("TP", "8", "CONC", "4", "MODEL", "m")
	env["MODEL_PATH"] = Opaque()
	res = evalIn(t, files, "runners/launch_y.sh", env)
	if got := runPaths(res); !slices.Equal(got, []string{"benchmarks/single_node/m_fp4_x.sh"}) {
		t.Errorf("a script under the workspace mount, next to a mount of an unknown host path: got %q", got)
	}
	res = evalIn(t, files, "benchmarks/single_node/m_fp4_x.sh", env)
	for _, v := range []string{"TP", "CONC"} {
		if !res.Effects[v] {
			t.Errorf("%s reaches the server's arguments through \"${CMD[@]}\": Effects %v", v, res.Effects)
		}
	}
	if res.Checks["TP"].How != "check_env_vars" || res.Checks["MODEL"].How != "${MODEL:?}" {
		t.Errorf("checks: %+v", res.Checks)
	}
}
