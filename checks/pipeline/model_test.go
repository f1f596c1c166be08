package pipeline

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

// The small pipeline tree the model tests build: the older layout
// (.github/configs/), every part a benchmark goes through written out, and
// rows chosen so that each way a row resolves shows up once:
//
//   - llama-fp8-h100-sglang: single-node, two sequence lengths, a
//     conc-start/conc-end range and a conc-list, on a label with one
//     launcher (two machines), running an existing script;
//   - ghost-fp8-h100-sglang: the same launcher computes a script the
//     tree does not have;
//   - llama-fp8-mi300x-sglang: a label runners.yaml lists whose launcher
//     the tree lacks;
//   - dsr1-fp4-b200-sglang: a label runners.yaml does not list, found from
//     the launchers' names (scenarios: layout);
//   - glm-fp4-b200-agentic: an agentic-coding row with a DRAM budget;
//   - dsr1-fp4-gb200-dynamo: a multi-node row whose recipe srtctl runs.
const (
	smallConfig   = ".github/configs/nvidia-master.yaml"
	llamaScript   = "benchmarks/single_node/fixed_seq_len/llama_fp8_h100.sh"
	ghostScript   = "benchmarks/single_node/fixed_seq_len/ghost_fp8_h100.sh"
	dsr1B200      = "benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200.sh"
	glmAgentic    = "benchmarks/single_node/agentic/glm_fp4_b200.sh"
	dsr1Recipe    = "benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/p1-d2.yaml"
	launchH100    = "runners/launch_h100-cr.sh"
	launchB200    = "runners/launch_b200-dgxc.sh"
	launchGB200   = "runners/launch_gb200-nv.sh"
	launchMissing = "runners/launch_mi300x-amd.sh"
)

var smallFiles = map[string]string{
	smallConfig: `# Master config of the small model-test tree.
llama-fp8-h100-sglang:
  image: lmsysorg/sglang:v0.5.16
  model: meta-llama/Llama-3.3-70B-FP8
  model-prefix: llama
  runner: h100
  precision: fp8
  framework: sglang
  multinode: false
  seq-len-configs:
  - isl: 1024
    osl: 1024
    search-space:
    - { tp: 8, conc-start: 4, conc-end: 64 }
    - { tp: 4, ep: 2, dp-attn: true, conc-list: [1, 2] }
  - isl: 8192
    osl: 1024
    search-space:
    - { tp: 8, conc-list: [16] }

ghost-fp8-h100-sglang:
  image: lmsysorg/sglang:v0.5.16
  model: ghost/Ghost-FP8
  model-prefix: ghost
  runner: h100
  precision: fp8
  framework: sglang
  multinode: false
  seq-len-configs:
  - isl: 1024
    osl: 1024
    search-space:
    - { tp: 8, conc-list: [4] }

llama-fp8-mi300x-sglang:
  image: lmsysorg/sglang:v0.5.16-rocm
  model: meta-llama/Llama-3.3-70B-FP8
  model-prefix: llama
  runner: mi300x
  precision: fp8
  framework: sglang
  multinode: false
  seq-len-configs:
  - isl: 1024
    osl: 1024
    search-space:
    - { tp: 8, conc-list: [4] }

dsr1-fp4-b200-sglang:
  image: lmsysorg/sglang:v0.5.16-cu130
  model: nvidia/DeepSeek-R1-0528-FP4
  model-prefix: dsr1
  runner: b200
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, spec-decoding: mtp, conc-list: [8, 4, 8] }

glm-fp4-b200-agentic:
  image: vllm/vllm-openai:v0.27.1
  model: zai-org/GLM-5-NVFP4
  model-prefix: glm
  runner: cluster:b200-dgxc
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.5
      search-space:
      - { tp: 4, kv-offloading: dram, kv-offload-backend: { name: vllm-simple }, conc-list: [32, 64] }
      - { tp: 8, conc-list: [1] }

dsr1-fp4-gb200-dynamo:
  image: lmsysorg/sglang:v0.5.16-cu130-arm64
  model: nvidia/DeepSeek-R1-0528-FP4
  model-prefix: dsr1
  runner: gb200
  precision: fp4
  framework: dynamo-sglang
  multinode: true
  disagg: true
  seq-len-configs:
  - isl: 8192
    osl: 1024
    search-space:
    - conc-list: [64, 256]
      prefill:
        num-worker: 1
        tp: 4
        ep: 4
        dp-attn: true
        additional-settings:
        - "CONFIG_FILE=benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/p1-d2.yaml"
      decode:
        num-worker: 2
        tp: 8
        ep: 8
        dp-attn: false
`,
	".github/configs/runners.yaml": `labels:
  h100:
    - h100-cr_0
    - h100-cr_1
  mi300x:
    - mi300x-amd_0
  gb200:
    - gb200-nv_0
  cluster:b200-dgxc:
    - b200-dgxc_00
    - b200-dgxc_01
hardware:
  cluster:b200-dgxc:
    available-cpu-dram-mib: 2_000_000
    gpus-per-node: 8
`,
	".github/workflows/benchmark-tmpl.yml": `name: Template - Benchmark
on:
  workflow_call:
    inputs:
      runner: { required: true, type: string }
      image: { required: true, type: string }
      model: { required: true, type: string }
      model-prefix: { required: true, type: string }
      precision: { required: true, type: string }
      framework: { required: true, type: string }
      exp-name: { required: true, type: string }
      isl: { required: true, type: string }
      osl: { required: true, type: string }
      tp: { required: true, type: string }
      ep: { required: true, type: string }
      dp-attn: { required: true, type: boolean }
      conc: { required: true, type: string }
      spec-decoding: { required: true, type: string }
      max-model-len: { required: true, type: string }
      scenario-type:
        type: string
        default: 'fixed-seq-len'
      kv-offloading: { required: false, type: string }
      total-cpu-dram-gb:
        type: string
        default: '0'
env:
  HF_TOKEN: ${{ secrets.HF_TOKEN }}
  EXP_NAME: ${{ inputs.exp-name }}
  MODEL: ${{ inputs.model }}
  MODEL_PREFIX: ${{ inputs.model-prefix }}
  IMAGE: ${{ inputs.image }}
  FRAMEWORK: ${{ inputs.framework }}
  PRECISION: ${{ inputs.precision }}
  ISL: ${{ inputs.isl }}
  OSL: ${{ inputs.osl }}
  MAX_MODEL_LEN: ${{ inputs.max-model-len }}
  TP: ${{ inputs.tp }}
  EP_SIZE: ${{ inputs.ep }}
  DP_ATTENTION: ${{ inputs.dp-attn }}
  CONC: ${{ inputs.conc }}
  SPEC_DECODING: ${{ inputs.spec-decoding }}
  SCENARIO_TYPE: ${{ inputs.scenario-type }}
  SCENARIO_SUBDIR: ${{ inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/' }}
  KV_OFFLOADING: ${{ inputs.kv-offloading }}
  TOTAL_CPU_DRAM_GB: ${{ inputs.total-cpu-dram-gb }}
  RESULT_DIR: /workspace/results

jobs:
  benchmark:
    runs-on: ${{ inputs.runner }}
    steps:
      - uses: actions/checkout@v4
      - name: Launch job script
        env:
          RUNNER_NAME: ${{ runner.name }}
          RESULT_FILENAME: ${{ env.EXP_NAME }}_${{ env.PRECISION }}_tp${{ env.TP }}_conc${{ env.CONC }}
        run: |
          bash ./runners/launch_${RUNNER_NAME%%_*}.sh
`,
	".github/workflows/benchmark-multinode-tmpl.yml": `name: Template - Multi-node benchmark
on:
  workflow_call:
    inputs:
      runner: { required: true, type: string }
      image: { required: true, type: string }
      model: { required: true, type: string }
      model-prefix: { required: true, type: string }
      precision: { required: true, type: string }
      framework: { required: true, type: string }
      exp-name: { required: true, type: string }
      conc-list: { required: true, type: string }
      spec-decoding: { required: true, type: string }
      prefill-num-worker: { required: true, type: string }
      prefill-tp: { required: true, type: string }
      prefill-additional-settings: { required: false, type: string, default: '[]' }
      decode-num-worker: { required: true, type: string }
      decode-tp: { required: true, type: string }
      decode-additional-settings: { required: false, type: string, default: '[]' }
env:
  EXP_NAME: ${{ inputs.exp-name }}
  MODEL: ${{ inputs.model }}
  MODEL_PREFIX: ${{ inputs.model-prefix }}
  FRAMEWORK: ${{ inputs.framework }}
  PRECISION: ${{ inputs.precision }}
  CONC_LIST: ${{ join(fromJson(inputs.conc-list), ' ') }}
  PREFILL_NUM_WORKERS: ${{ inputs.prefill-num-worker }}
  PREFILL_TP: ${{ inputs.prefill-tp }}
  DECODE_NUM_WORKERS: ${{ inputs.decode-num-worker }}
  DECODE_TP: ${{ inputs.decode-tp }}

jobs:
  benchmark:
    runs-on: ${{ inputs.runner }}
    steps:
      - uses: actions/checkout@v4
      - name: Launch multi-node job script
        env:
          RUNNER_NAME: ${{ runner.name }}
        run: |
          export ${{ join(fromJson(inputs.prefill-additional-settings), ' ') }} ${{ join(fromJson(inputs.decode-additional-settings), ' ') }}
          export IS_MULTINODE=true
          bash ./runners/launch_${RUNNER_NAME%%_*}.sh
`,
	SweepPath: `name: Run sweep
on:
  pull_request:
jobs:
  setup:
    runs-on: ubuntu-latest
    outputs:
      search-space-config: ${{ steps.gen.outputs.config }}
    steps:
      - id: gen
        run: python3 utils/matrix_logic/generate_sweep_configs.py

  sweep-single-node-1k1k:
    needs: setup
    uses: ./.github/workflows/benchmark-tmpl.yml
    strategy:
      matrix:
        config: ${{ fromJson(needs.setup.outputs.search-space-config).single_node['1k1k'] }}
    secrets: inherit
    with: &single-node-inputs
      exp-name: ${{ matrix.config.exp-name }}
      isl: ${{ matrix.config.isl }}
      osl: ${{ matrix.config.osl }}
      max-model-len: ${{ matrix.config.max-model-len }}
      runner: ${{ matrix.config.runner }}
      image: ${{ matrix.config.image }}
      model: ${{ matrix.config.model }}
      model-prefix: ${{ matrix.config.model-prefix }}
      framework: ${{ matrix.config.framework }}
      precision: ${{ matrix.config.precision }}
      tp: ${{ matrix.config.tp }}
      ep: ${{ matrix.config.ep }}
      dp-attn: ${{ matrix.config.dp-attn }}
      conc: ${{ matrix.config.conc }}
      spec-decoding: ${{ matrix.config.spec-decoding }}

  sweep-single-node-8k1k:
    needs: setup
    uses: ./.github/workflows/benchmark-tmpl.yml
    strategy:
      matrix:
        config: ${{ fromJson(needs.setup.outputs.search-space-config).single_node['8k1k'] }}
    secrets: inherit
    with: *single-node-inputs

  sweep-single-node-eval:
    needs: setup
    uses: ./.github/workflows/benchmark-tmpl.yml
    strategy:
      matrix:
        config: ${{ fromJson(needs.setup.outputs.search-space-config).single_node['eval'] }}
    with:
      exp-name: eval
      spec-decoding: 'none'

  sweep-agentic:
    needs: setup
    uses: ./.github/workflows/benchmark-tmpl.yml
    strategy:
      matrix:
        config: ${{ fromJson(needs.setup.outputs.search-space-config).single_node['agentic'] }}
    secrets: inherit
    with:
      exp-name: ${{ matrix.config.exp-name }}
      runner: ${{ matrix.config.runner }}
      image: ${{ matrix.config.image }}
      model: ${{ matrix.config.model }}
      model-prefix: ${{ matrix.config.model-prefix }}
      framework: ${{ matrix.config.framework }}
      precision: ${{ matrix.config.precision }}
      tp: ${{ matrix.config.tp }}
      ep: ${{ matrix.config.ep }}
      dp-attn: ${{ matrix.config.dp-attn }}
      conc: ${{ matrix.config.conc }}
      kv-offloading: ${{ matrix.config.kv-offloading }}
      total-cpu-dram-gb: ${{ matrix.config.total-cpu-dram-gb }}
      isl: '0'
      osl: '0'
      max-model-len: '0'
      spec-decoding: ${{ matrix.config.spec-decoding }}
      scenario-type: agentic-coding

  sweep-multi-node-8k1k:
    needs: setup
    uses: ./.github/workflows/benchmark-multinode-tmpl.yml
    strategy:
      matrix:
        config: ${{ fromJson(needs.setup.outputs.search-space-config).multi_node['8k1k'] }}
    secrets: inherit
    with:
      exp-name: ${{ matrix.config.exp-name }}
      runner: ${{ matrix.config.runner }}
      image: ${{ matrix.config.image }}
      model: ${{ matrix.config.model }}
      model-prefix: ${{ matrix.config.model-prefix }}
      framework: ${{ matrix.config.framework }}
      precision: ${{ matrix.config.precision }}
      conc-list: ${{ toJson(matrix.config.conc) }}
      spec-decoding: ${{ matrix.config.spec-decoding }}
      prefill-num-worker: ${{ matrix.config.prefill.num-worker }}
      prefill-tp: ${{ matrix.config.prefill.tp }}
      prefill-additional-settings: ${{ toJson(matrix.config.prefill.additional-settings) }}
      decode-num-worker: ${{ matrix.config.decode.num-worker }}
      decode-tp: ${{ matrix.config.decode.tp }}
      decode-additional-settings: ${{ toJson(matrix.config.decode.additional-settings) }}
`,
	launchH100: `#!/usr/bin/bash
# H100 docker host.
docker run --rm --gpus=all -v "$GITHUB_WORKSPACE:/workspace" -w /workspace \
  -e HF_TOKEN -e MODEL -e TP -e CONC -e ISL -e OSL -e MAX_MODEL_LEN -e RESULT_FILENAME \
  "$IMAGE" \
  bash benchmarks/single_node/${SCENARIO_SUBDIR}"${EXP_NAME%%_*}_${PRECISION}_h100.sh"
`,
	launchB200: `#!/usr/bin/bash
# B200 slurm cluster.
if [[ "$FRAMEWORK" == "trt" ]]; then
    echo "no TensorRT-LLM image on this cluster" >&2
    exit 1
fi
srun --partition=gpu bash benchmarks/single_node/${SCENARIO_SUBDIR}${MODEL_PREFIX}_${PRECISION}_b200.sh
`,
	launchGB200: `#!/usr/bin/bash
# GB200 NVL72: multi-node jobs go through srt-slurm.
if [[ "$IS_MULTINODE" != "true" ]]; then
    echo "multi-node jobs only" >&2
    exit 1
fi
if [[ -z "$CONFIG_FILE" ]]; then
    echo "CONFIG_FILE is not set" >&2
    exit 1
fi
SRT_DIR="srt-slurm"
git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_DIR"
cd "$SRT_DIR" || exit 1
mkdir -p benchmarks/multi_node/srt-slurm-recipes
cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes" benchmarks/multi_node/srt-slurm-recipes
srtctl apply -f "$CONFIG_FILE"
`,
	"benchmarks/benchmark_lib.sh": `#!/usr/bin/env bash
check_env_vars() {
    for v in "$@"; do
        if [[ -z "${!v:-}" ]]; then
            echo "$v is not set" >&2
            exit 1
        fi
    done
}
`,
	llamaScript: `#!/usr/bin/env bash
source benchmarks/benchmark_lib.sh
check_env_vars MODEL TP CONC ISL OSL RESULT_FILENAME
python3 -m sglang.launch_server --model-path "$MODEL" --tp-size "$TP" --context-length "$MAX_MODEL_LEN" &
python3 benchmark_serving.py --max-concurrency "$CONC" --random-input-len "$ISL" --random-output-len "$OSL"
`,
	dsr1B200: `#!/usr/bin/env bash
source benchmarks/benchmark_lib.sh
check_env_vars MODEL TP CONC
EXTRA=""
if [[ "$SPEC_DECODING" == "mtp" ]]; then
    EXTRA="--speculative-algorithm EAGLE"
fi
python3 -m sglang.launch_server --model-path "$MODEL" --tp-size "$TP" $EXTRA &
`,
	glmAgentic: `#!/usr/bin/env bash
source benchmarks/benchmark_lib.sh
check_env_vars MODEL TP CONC TOTAL_CPU_DRAM_GB
vllm serve "$MODEL" --tensor-parallel-size "$TP" &
`,
	dsr1Recipe: `name: dsr1-p1-d2
model:
  path: nvidia/DeepSeek-R1-0528-FP4
  container: lmsysorg/sglang:v0.5.16-cu130-arm64
resources:
  prefill_workers: 1
  decode_workers: 2
backend:
  sglang_config:
    prefill:
      tp-size: 4
      ep-size: 4
      enable-dp-attention: true
    decode:
      tp-size: 8
      ep-size: 8
benchmark:
  type: sa-bench
  concurrencies: "64x256"
`,
}

// smallTree is a fresh copy of the small tree's files, for a test to edit.
func smallTree() map[string]string { return maps.Clone(smallFiles) }

// smallModel builds the model of files in a new parse cache.
func smallModel(t *testing.T, files map[string]string) *Model {
	t.Helper()
	return buildFor(t, newIDTree(files), checks.NewParseCache(0))
}

// configLine is the line of the small config that first contains s.
func configLine(t *testing.T, s string) int {
	t.Helper()
	return checktest.LineOf(t, smallFiles[smallConfig], s)
}

// rowIDs names rows as key@line, for comparing sets of rows.
func rowIDs(rows []*Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s@%d", r.Key.Name, r.Row.Line))
	}
	slices.Sort(out)
	return out
}

// TestBuildReadsThePipeline: Build reads every input of the small tree
// from where the older layout keeps it, and makes one row per search-space
// row, in file order, each with its job kind, sweep job, concurrencies and
// the inputs that job passes.
func TestBuildReadsThePipeline(t *testing.T) {
	m := smallModel(t, smallTree())
	if len(m.TemplateErr) != 0 || m.RunnersErr != nil || m.SweepErr != nil {
		t.Fatalf("inputs not read: templates %v, runners %v, sweep %v", m.TemplateErr, m.RunnersErr, m.SweepErr)
	}
	if m.Templates[SingleNode].Path != TemplatePaths[SingleNode] || m.Templates[MultiNode].Path != TemplatePaths[MultiNode] {
		t.Errorf("templates %s, %s", m.Templates[SingleNode].Path, m.Templates[MultiNode].Path)
	}
	if m.Runners == nil || m.Runners.Path != ".github/configs/runners.yaml" {
		t.Errorf("runners %+v", m.Runners)
	}
	if want := []string{launchB200, launchGB200, launchH100}; !reflect.DeepEqual(m.Launchers, want) {
		t.Errorf("launchers %v, want %v", m.Launchers, want)
	}
	if len(m.Configs) != 1 || m.Configs[0].Path != smallConfig {
		t.Errorf("configs %+v", m.Configs)
	}
	if m.Generator.MaxAgenticDRAMMiB != defaultGenerator.MaxAgenticDRAMMiB {
		t.Errorf("generator %+v without a generator file", m.Generator)
	}
	type want struct {
		key   string
		line  int
		kind  JobKind
		job   string
		concs []int
		in    map[string]any
	}
	wants := []want{
		{"llama-fp8-h100-sglang", configLine(t, "conc-start: 4"), SingleNode, "sweep-single-node-1k1k", []int{4, 8, 16, 32, 64},
			map[string]any{"tp": 8, "ep": 1, "conc": 4, "exp-name": "llama_1k1k", "isl": 1024}},
		{"llama-fp8-h100-sglang", configLine(t, "ep: 2"), SingleNode, "sweep-single-node-1k1k", []int{1, 2},
			map[string]any{"tp": 4, "ep": 2, "dp-attn": true, "conc": 1}},
		{"llama-fp8-h100-sglang", configLine(t, "conc-list: [16]"), SingleNode, "sweep-single-node-8k1k", []int{16},
			map[string]any{"exp-name": "llama_8k1k", "max-model-len": 9472}},
		{"ghost-fp8-h100-sglang", 33, SingleNode, "sweep-single-node-1k1k", []int{4}, map[string]any{"model-prefix": "ghost"}},
		{"llama-fp8-mi300x-sglang", 47, SingleNode, "sweep-single-node-1k1k", []int{4}, map[string]any{"runner": "mi300x"}},
		{"dsr1-fp4-b200-sglang", configLine(t, "spec-decoding: mtp"), SingleNode, "sweep-single-node-8k1k", []int{8, 4},
			map[string]any{"spec-decoding": "mtp", "conc": 8}},
		{"glm-fp4-b200-agentic", configLine(t, "kv-offloading: dram"), SingleNode, "sweep-agentic", []int{32, 64},
			map[string]any{"scenario-type": "agentic-coding", "isl": "0", "total-cpu-dram-gb": 524, "kv-offloading": "dram"}},
		{"glm-fp4-b200-agentic", configLine(t, "{ tp: 8, conc-list: [1] }"), SingleNode, "sweep-agentic", []int{1},
			map[string]any{"total-cpu-dram-gb": 0}},
		{"dsr1-fp4-gb200-dynamo", configLine(t, "conc-list: [64, 256]"), MultiNode, "sweep-multi-node-8k1k", []int{64, 256},
			map[string]any{"prefill-tp": 4, "decode-num-worker": 2, "framework": "dynamo-sglang"}},
	}
	if len(m.Rows) != len(wants) {
		t.Fatalf("%d rows, want %d: %v", len(m.Rows), len(wants), rowIDs(m.Rows))
	}
	for i, w := range wants {
		r := m.Rows[i]
		if r.Key.Name != w.key || r.Row.Line != w.line || r.Kind != w.kind || r.File != smallConfig {
			t.Errorf("row %d is %s (%s), want %s@%d (%s)", i, r, r.Kind, w.key, w.line, w.kind)
			continue
		}
		if r.Job == nil || r.Job.Name != w.job {
			t.Errorf("%s: job %+v, want %s", r, r.Job, w.job)
		}
		if !reflect.DeepEqual(r.Concs, w.concs) {
			t.Errorf("%s: concs %v, want %v", r, r.Concs, w.concs)
		}
		for k, v := range w.in {
			if !reflect.DeepEqual(r.Inputs[k], v) {
				t.Errorf("%s: input %s = %#v, want %#v", r, k, r.Inputs[k], v)
			}
		}
		if r.Agentic != (r.Scenario.Kind == AgenticCoding) {
			t.Errorf("%s: agentic %v", r, r.Agentic)
		}
	}
	if got := m.Rows[0].String(); got != "llama-fp8-h100-sglang (fixed-seq-len row at .github/configs/nvidia-master.yaml:14)" {
		t.Errorf("String() = %q", got)
	}
	if l := m.Rows[0].Loc(); l != (Loc{File: smallConfig, Line: 14}) || m.Rows[0].Label() != "h100" {
		t.Errorf("Loc %v, Label %q", l, m.Rows[0].Label())
	}
	// The multi-node job gets the pool's settings as JSON and a conc-list.
	mn := m.Rows[len(m.Rows)-1]
	if s, _ := mn.Inputs["prefill-additional-settings"].(string); !strings.Contains(s, "CONFIG_FILE="+dsr1Recipe) {
		t.Errorf("prefill settings %q", mn.Inputs["prefill-additional-settings"])
	}
	if s, _ := mn.Inputs["conc-list"].(string); strings.Join(strings.Fields(s), "") != "[64,256]" {
		t.Errorf("conc-list %q", mn.Inputs["conc-list"])
	}
}

// TestKeyAndRowAt: rows are found by key and by any line of their span.
func TestKeyAndRowAt(t *testing.T) {
	m := smallModel(t, smallTree())
	for key, n := range map[string]int{"llama-fp8-h100-sglang": 3, "glm-fp4-b200-agentic": 2, "dsr1-fp4-gb200-dynamo": 1, "nope": 0} {
		if got := m.Key(key); len(got) != n {
			t.Errorf("Key(%s) has %d rows, want %d", key, len(got), n)
		}
	}
	mnLine := configLine(t, "conc-list: [64, 256]")
	for _, c := range []struct {
		file string
		line int
		want string
	}{
		{smallConfig, 14, "llama-fp8-h100-sglang@14"},
		{smallConfig, mnLine, "dsr1-fp4-gb200-dynamo@" + fmt.Sprint(mnLine)},
		// A line inside the multi-line row (its decode pool).
		{smallConfig, configLine(t, "num-worker: 2"), "dsr1-fp4-gb200-dynamo@" + fmt.Sprint(mnLine)},
		{smallConfig, configLine(t, "model-prefix: llama"), ""},
		{smallConfig, 0, ""},
		{"configs/other-master.yaml", 14, ""},
	} {
		got := ""
		if r := m.RowAt(c.file, c.line); r != nil {
			got = fmt.Sprintf("%s@%d", r.Key.Name, r.Row.Line)
		}
		if got != c.want {
			t.Errorf("RowAt(%s, %d) = %q, want %q", c.file, c.line, got, c.want)
		}
	}
}

// TestResolveRows: what each row of the small tree resolves to: the runner
// groups of its label, the launcher each group's launch step runs, the
// benchmark file the launcher computes and whether it exists, and whether
// the launch is broken (every path fails before an existing benchmark).
func TestResolveRows(t *testing.T) {
	m := smallModel(t, smallTree())
	type launch struct {
		group    string
		guessed  bool
		launcher string
		target   string
		exists   bool
		broken   bool
		err      string
	}
	for _, c := range []struct {
		key  string
		want []launch
	}{
		{"llama-fp8-h100-sglang", []launch{{"h100-cr_0", false, launchH100, llamaScript, true, false, ""}}},
		{"ghost-fp8-h100-sglang", []launch{{"h100-cr_0", false, launchH100, ghostScript, false, true, ""}}},
		// The label's launcher is not in the tree: no evaluation, broken.
		{"llama-fp8-mi300x-sglang", []launch{{"mi300x-amd_0", false, launchMissing, "", false, true, "does not exist"}}},
		// b200 is not in runners.yaml: the group is guessed from launch_b200-dgxc.sh.
		{"dsr1-fp4-b200-sglang", []launch{{"b200-dgxc_0", true, launchB200, dsr1B200, true, false, ""}}},
		{"glm-fp4-b200-agentic", []launch{{"b200-dgxc_00", false, launchB200, glmAgentic, true, false, ""}}},
		{"dsr1-fp4-gb200-dynamo", []launch{{"gb200-nv_0", false, launchGB200, dsr1Recipe, true, false, ""}}},
	} {
		for _, r := range m.Key(c.key) {
			res := m.Resolve(r)
			if res.Row != r {
				t.Errorf("%s: resolution of another row", r)
			}
			var got []launch
			for _, l := range res.Groups {
				g := launch{group: l.Group.Name, guessed: l.Group.Guessed, launcher: l.Launcher, broken: LaunchBroken(m, l)}
				if l.Err != nil {
					g.err = "does not exist"
					if !checks.IsNotExist(l.Err) {
						g.err = l.Err.Error()
					}
				}
				if ts := m.Outcome(l).Targets; len(ts) == 1 {
					g.target, g.exists = ts[0].Run.Path, ts[0].Exists
				} else if len(ts) > 1 {
					t.Errorf("%s: %d targets", r, len(ts))
				}
				got = append(got, g)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s resolves to %+v, want %+v", r, got, c.want)
			}
			if m.Resolve(r) != res {
				t.Errorf("%s: a second Resolve should return the stored resolution", r)
			}
		}
	}
	// The multi-node launch gets the pools' additional settings.
	mn := m.Key("dsr1-fp4-gb200-dynamo")[0]
	l := m.Resolve(mn).Groups[0]
	if v, _ := l.LauncherEnv.Get("CONFIG_FILE"); v != dsr1Recipe {
		t.Errorf("the launcher gets CONFIG_FILE %q", v)
	}
	if v, _ := l.LauncherEnv.Get("IS_MULTINODE"); v != "true" {
		t.Errorf("IS_MULTINODE %q", v)
	}
	if ts := m.Outcome(l).Targets; len(ts) != 1 || ts[0].Run.Kind != RunRecipe {
		t.Errorf("the multi-node row should run its recipe: %+v", ts)
	}
}

// TestRunsAndEvalScript: the runs of a script on a row's launches carry
// the env the launcher hands it; evaluating the script with that env
// finds what it checks.
func TestRunsAndEvalScript(t *testing.T) {
	m := smallModel(t, smallTree())
	r := m.Key("llama-fp8-h100-sglang")[1]
	runs := m.Runs(r, llamaScript)
	if len(runs) != 1 {
		t.Fatalf("%d runs of %s", len(runs), llamaScript)
	}
	run := runs[0]
	for k, want := range map[string]string{"TP": "4", "CONC": "1", "MODEL": "meta-llama/Llama-3.3-70B-FP8", "RESULT_FILENAME": "llama_1k1k_fp8_tp4_conc1"} {
		if got, _ := run.Env.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	// docker -e passes a list: the job's PRECISION does not reach the script.
	if run.Env.Provides("PRECISION") || run.PassAll {
		t.Errorf("docker passes only the -e variables: %v", run.Env.Names())
	}
	res, err := m.EvalScript(run)
	if err != nil || res == nil {
		t.Fatalf("EvalScript: %v", err)
	}
	for _, v := range []string{"MODEL", "TP", "CONC", "ISL", "OSL", "RESULT_FILENAME"} {
		if _, ok := res.Checks[v]; !ok {
			t.Errorf("the script's check_env_vars of %s is not found", v)
		}
	}
	if got := m.Runs(r, "benchmarks/nope.sh"); len(got) != 0 {
		t.Errorf("runs of a file the row does not run: %v", got)
	}
	if res, err := m.EvalScript(Run{Kind: RunRecipe, Path: dsr1Recipe}); res != nil || err != nil {
		t.Errorf("a recipe is not a script to evaluate: %v %v", res, err)
	}
	if res, err := m.EvalScript(Run{Kind: RunScript}); res != nil || err != nil {
		t.Errorf("a run without a path: %v %v", res, err)
	}
}

// TestReachersOfChangedFiles: the rows a PR changing a file makes the
// rules look at: the rows some launch of which runs it. The same rows
// come out of a fresh model (only the rows the launch readings admit are
// resolved) and of a model whose rows are all resolved.
func TestReachersOfChangedFiles(t *testing.T) {
	llama := []string{"llama-fp8-h100-sglang@14", "llama-fp8-h100-sglang@15", "llama-fp8-h100-sglang@19"}
	mn := fmt.Sprintf("dsr1-fp4-gb200-dynamo@%d", configLine(t, "conc-list: [64, 256]"))
	cases := []struct {
		path string
		want []string
	}{
		{llamaScript, llama},
		{ghostScript, []string{"ghost-fp8-h100-sglang@33"}},
		{dsr1B200, []string{fmt.Sprintf("dsr1-fp4-b200-sglang@%d", configLine(t, "spec-decoding: mtp"))}},
		{glmAgentic, []string{"glm-fp4-b200-agentic@76", "glm-fp4-b200-agentic@77"}},
		{dsr1Recipe, []string{mn}},
		// Sourced helpers and launchers are not what a launch runs.
		{"benchmarks/benchmark_lib.sh", nil},
		{launchH100, nil},
		{"benchmarks/single_node/fixed_seq_len/nope.sh", nil},
		{"README.md", nil},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			m := smallModel(t, smallTree())
			if got := rowIDs(m.Reachers(c.path)); !reflect.DeepEqual(got, c.want) {
				t.Errorf("bounded Reachers = %v, want %v", got, c.want)
			}
		})
	}
	whole := smallModel(t, smallTree())
	whole.Reachers("")
	for _, c := range cases {
		if got := rowIDs(whole.Reachers(c.path)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Reachers(%s) after resolving all = %v, want %v", c.path, got, c.want)
		}
	}
	// What Reachers returns is the caller's to change.
	got := whole.Reachers(llamaScript)
	got[0] = nil
	if whole.Reachers(llamaScript)[0] == nil {
		t.Error("Reachers hands out its index")
	}
	if llamaRows := whole.Key("llama-fp8-h100-sglang"); len(llamaRows) == 3 {
		for _, r := range llamaRows {
			if !slices.ContainsFunc(whole.Resolve(r).Groups, func(l *Launch) bool { return l.runs(llamaScript) }) {
				t.Errorf("%s: runs() does not see the script", r)
			}
		}
	}
}

// TestBuildDegradedInputs: inputs that are missing, malformed or hostile
// never fail the build or panic: the model says what it could not read
// and falls back (built-in table, guessed runner groups, matrix fields as
// inputs), a broken master config gives no rows, and a launcher that
// cannot be read is an error of that launch, not a broken one.
func TestBuildDegradedInputs(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(map[string]string)
		check func(*testing.T, *Model)
	}{
		{"no workflow templates", func(f map[string]string) {
			delete(f, TemplatePaths[SingleNode])
			delete(f, TemplatePaths[MultiNode])
		}, func(t *testing.T, m *Model) {
			for _, k := range []JobKind{SingleNode, MultiNode} {
				if !checks.IsNotExist(m.TemplateErr[k]) || m.Templates[k].Path != BuiltinTable {
					t.Errorf("%s: err %v, template %s", k, m.TemplateErr[k], m.Templates[k].Path)
				}
			}
			// The built-in table runs the same launchers to the same scripts.
			if got := rowIDs(m.Reachers(llamaScript)); len(got) != 3 {
				t.Errorf("with the built-in table, %s is run by %v", llamaScript, got)
			}
			if got := rowIDs(m.Reachers(dsr1Recipe)); len(got) != 1 {
				t.Errorf("with the built-in table, the recipe is run by %v", got)
			}
		}},
		{"a template that does not parse", func(f map[string]string) { f[TemplatePaths[SingleNode]] = "on: [\n" },
			func(t *testing.T, m *Model) {
				if err := m.TemplateErr[SingleNode]; err == nil || !strings.Contains(err.Error(), TemplatePaths[SingleNode]) {
					t.Errorf("error %v", err)
				}
				if m.Templates[SingleNode].Path != BuiltinTable || m.Templates[MultiNode].Path != TemplatePaths[MultiNode] {
					t.Error("only the unreadable template is replaced")
				}
			}},
		{"a template too large to read", func(f map[string]string) {
			f[TemplatePaths[MultiNode]] = "# " + strings.Repeat("x", maxTemplateBytes) + "\n"
		}, func(t *testing.T, m *Model) {
			if m.TemplateErr[MultiNode] == nil || m.Templates[MultiNode].Path != BuiltinTable {
				t.Errorf("err %v", m.TemplateErr[MultiNode])
			}
		}},
		{"runners.yaml does not parse", func(f map[string]string) { f[".github/configs/runners.yaml"] = "labels: [\n" },
			func(t *testing.T, m *Model) {
				if m.RunnersErr == nil || m.Runners != nil {
					t.Fatalf("runners %v, err %v", m.Runners, m.RunnersErr)
				}
				l := m.Resolve(m.Rows[0]).Groups
				if len(l) != 1 || !l[0].Group.Guessed || l[0].Launcher != launchH100 {
					t.Errorf("groups should be guessed from the launchers: %+v", l)
				}
				// No hardware facts: the DRAM budget is unknown.
				if r := m.Key("glm-fp4-b200-agentic")[0]; r.Point["total-cpu-dram-gb"] != nil {
					t.Errorf("budget %v without hardware facts", r.Point["total-cpu-dram-gb"])
				}
			}},
		{"no runners.yaml", func(f map[string]string) { delete(f, ".github/configs/runners.yaml") },
			func(t *testing.T, m *Model) {
				if m.Runners != nil || m.RunnersErr != nil {
					t.Errorf("runners %v, err %v", m.Runners, m.RunnersErr)
				}
				if g := m.Resolve(m.Key("llama-fp8-mi300x-sglang")[0]).Groups; len(g) != 0 {
					t.Errorf("a label with no launcher has no groups: %+v", g)
				}
			}},
		{"no sweep workflow", func(f map[string]string) { delete(f, SweepPath) },
			func(t *testing.T, m *Model) {
				if !checks.IsNotExist(m.SweepErr) || m.Sweep != nil {
					t.Errorf("sweep %v, err %v", m.Sweep, m.SweepErr)
				}
				r := m.Rows[0]
				if r.Job != nil || !reflect.DeepEqual(r.Inputs, pointInputs(r.Point, r.Kind)) {
					t.Errorf("inputs should be the matrix fields: %v", r.Inputs)
				}
				if len(m.Reachers(llamaScript)) != 3 {
					t.Error("the rows still run their script")
				}
			}},
		{"a sweep workflow without template calls", func(f map[string]string) { f[SweepPath] = "jobs: {a: {runs-on: x}}\n" },
			func(t *testing.T, m *Model) {
				if m.SweepErr == nil || m.Sweep != nil || m.Rows[0].Job != nil {
					t.Errorf("sweep %v, err %v", m.Sweep, m.SweepErr)
				}
			}},
		{"a master config that does not parse", func(f map[string]string) { f[smallConfig] = "a: [\n" },
			func(t *testing.T, m *Model) {
				if len(m.Configs) != 1 || !m.Configs[0].File.Broken() || len(m.Rows) != 0 {
					t.Errorf("configs %+v, %d rows", m.Configs, len(m.Rows))
				}
			}},
		{"a master config with a key defined twice", func(f map[string]string) { f[smallConfig] += "\nghost-fp8-h100-sglang: {}\n" },
			func(t *testing.T, m *Model) {
				if !m.Configs[0].File.Broken() || len(m.Rows) != 0 {
					t.Errorf("a file with duplicate keys is not judged: %d rows", len(m.Rows))
				}
			}},
		{"keys that are not mappings, rows that are not mappings", func(f map[string]string) {
			f[smallConfig] += "\nscalar-key: 5\nlist-key: [1, 2]\nodd-rows:\n  runner: h100\n  seq-len-configs:\n  - isl: 1024\n    osl: 1024\n    search-space: [1, two, null]\n"
		}, func(t *testing.T, m *Model) {
			if len(m.Rows) != 9 || len(m.Key("scalar-key")) != 0 || len(m.Key("odd-rows")) != 0 {
				t.Errorf("%d rows: %v", len(m.Rows), rowIDs(m.Rows))
			}
		}},
		{"a second master config", func(f map[string]string) {
			f[".github/configs/amd-master.yaml"] = "llama-fp8-mi300x-vllm:\n  model-prefix: llama\n  runner: mi300x\n  precision: fp8\n  seq-len-configs:\n  - isl: 1024\n    osl: 1024\n    search-space:\n    - { tp: 8, conc-list: [4] }\n"
		}, func(t *testing.T, m *Model) {
			if len(m.Configs) != 2 || m.Configs[0].Path != ".github/configs/amd-master.yaml" || len(m.Rows) != 10 || m.Rows[0].File != ".github/configs/amd-master.yaml" {
				t.Errorf("configs %v, %d rows, first %s", m.Configs, len(m.Rows), m.Rows[0])
			}
		}},
		{"a launcher that does not parse", func(f map[string]string) { f[launchH100] = "if then fi ((\n" },
			func(t *testing.T, m *Model) {
				l := m.Resolve(m.Rows[0]).Groups[0]
				if l.Err == nil || !strings.Contains(l.Err.Error(), launchH100) || l.Result != nil || LaunchBroken(m, l) {
					t.Errorf("err %v, result %v, broken %v: an unreadable launcher is not proof of a broken row", l.Err, l.Result, LaunchBroken(m, l))
				}
			}},
		{"a launcher too large to follow", func(f map[string]string) { f[launchH100] = strings.Repeat("echo hi\n", 1<<17) + f[launchH100] },
			func(t *testing.T, m *Model) {
				l := m.Resolve(m.Rows[0]).Groups[0]
				if l.Err == nil || LaunchBroken(m, l) {
					t.Errorf("err %v, broken %v", l.Err, LaunchBroken(m, l))
				}
			}},
		{"a launcher nested too deep", func(f map[string]string) {
			f[launchH100] = strings.Repeat("$(", 3000) + strings.Repeat(")", 3000) + "\n"
		}, func(t *testing.T, m *Model) {
			l := m.Resolve(m.Rows[0]).Groups[0]
			if l.Err == nil || LaunchBroken(m, l) {
				t.Errorf("err %v, broken %v", l.Err, LaunchBroken(m, l))
			}
		}},
		{"a launcher that fails for the row's framework", func(f map[string]string) {
			f[smallConfig] = strings.Replace(f[smallConfig], "framework: vllm", "framework: trt", 1)
		}, func(t *testing.T, m *Model) {
			r := m.Key("glm-fp4-b200-agentic")[0]
			l := m.Resolve(r).Groups[0]
			o := m.Outcome(l)
			if !o.Broken || len(o.Exits) != 1 || o.Exits[0].At.File != launchB200 || o.Exits[0].Code != "1" {
				t.Errorf("outcome %+v: the launcher exits 1 for trt", o)
			}
		}},
		{"the sweep generator names its DRAM cap", func(f map[string]string) {
			f["utils/matrix_logic/generate_sweep_configs.py"] = "MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB = 1_000_000\n"
		}, func(t *testing.T, m *Model) {
			if m.Generator.MaxAgenticDRAMMiB != 1_000_000 || m.Generator.Path != "utils/matrix_logic/generate_sweep_configs.py" {
				t.Errorf("generator %+v", m.Generator)
			}
			if got := m.Key("glm-fp4-b200-agentic")[0].Inputs["total-cpu-dram-gb"]; got != 262 {
				t.Errorf("budget %v, want 262 under the lower cap", got)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := smallTree()
			c.edit(files)
			m := smallModel(t, files)
			c.check(t, m)
			m.ResolveAll() // every row resolves without a panic
			_ = m.Describe("*")
		})
	}
}

// TestBuildCancelled: a review cancelled before the model is resolved
// does not leave the model marked as wholly resolved, nor a reverse index
// a later review would take as complete.
func TestBuildCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, err := Build(ctx, newIDTree(smallTree()), &checks.Config{Source: "defaults"}, checks.NewParseCache(0))
	if err != nil {
		return // refusing to build is fine too
	}
	m.ResolveAll()
	_ = m.Reachers("")
	m.st.mu.Lock()
	all, reach := m.st.all, m.st.reach
	m.st.mu.Unlock()
	if all || reach != nil {
		t.Errorf("a cancelled review kept all=%v, an index of %d files", all, len(reach))
	}
}

// TestSubjectsFoundOnce: the subjects are found once per change, and
// what later rules do to the models (the base built, every row resolved)
// would not have found others.
func TestSubjectsFoundOnce(t *testing.T) {
	head := smallTree()
	head[launchGB200] += "# note\n"
	head[llamaScript] += "echo done\n"
	ch := configuredChange(t, smallTree(), head)
	a, err := Load(context.Background(), ch)
	if err != nil || !a.Relevant {
		t.Fatalf("analysis: %v (relevant %v)", err, a != nil && a.Relevant)
	}
	first, err := a.Subjects()
	if err != nil || len(first) == 0 {
		t.Fatalf("subjects %v, %v", first, err)
	}
	first[0] = nil // the caller's copy
	again, _ := a.Subjects()
	if again[0] == nil {
		t.Error("Subjects handed out the kept rows, not a copy")
	}
	base, err := a.Base()
	if err != nil {
		t.Fatal(err)
	}
	base.ResolveAll()
	a.head.ResolveAll()
	fresh, err := a.findSubjects()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rowIDs(again), rowIDs(fresh)) {
		t.Errorf("subjects found once %v, found again after every row was resolved %v", rowIDs(again), rowIDs(fresh))
	}
}

// TestAnalysisOfAChange: what a PR touches decides which head rows the
// rules judge: a changed benchmark script, the rows that run it; a changed
// row, that row; a changed launcher, the rows it launches; a changed
// template, every row; a change outside the pipeline, nothing.
func TestAnalysisOfAChange(t *testing.T) {
	llama := []string{"llama-fp8-h100-sglang@14", "llama-fp8-h100-sglang@15", "llama-fp8-h100-sglang@19"}
	for _, c := range []struct {
		name     string
		edit     func(map[string]string)
		relevant bool
		want     []string // nil: every row
		all      bool
	}{
		{"a benchmark script", func(f map[string]string) { f[llamaScript] += "echo done\n" }, true, llama, false},
		{"a config row", func(f map[string]string) {
			f[smallConfig] = strings.Replace(f[smallConfig], "{ tp: 8, conc-list: [16] }", "{ tp: 8, conc-list: [16, 32] }", 1)
		}, true, []string{"llama-fp8-h100-sglang@19"}, false},
		{"a launcher", func(f map[string]string) { f[launchGB200] += "# note\n" }, true,
			[]string{fmt.Sprintf("dsr1-fp4-gb200-dynamo@%d", configLine(t, "conc-list: [64, 256]"))}, false},
		{"a recipe", func(f map[string]string) { f[dsr1Recipe] += "# tuned\n" }, true,
			[]string{fmt.Sprintf("dsr1-fp4-gb200-dynamo@%d", configLine(t, "conc-list: [64, 256]"))}, false},
		{"a workflow template", func(f map[string]string) { f[TemplatePaths[SingleNode]] += "# note\n" }, true, nil, true},
		{"a file outside the pipeline", func(f map[string]string) { f["README.md"] = "hi\n" }, false, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			head := smallTree()
			c.edit(head)
			ch := configuredChange(t, smallTree(), head)
			a, err := Load(context.Background(), ch)
			if err != nil {
				t.Fatal(err)
			}
			if a.Relevant != c.relevant {
				t.Fatalf("relevant %v, want %v", a.Relevant, c.relevant)
			}
			again, _ := Load(context.Background(), ch)
			if again != a {
				t.Error("the analysis is shared within a change")
			}
			rows, err := a.Subjects()
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if c.all {
				hm, _ := a.Head()
				want = rowIDs(hm.Rows)
			}
			if got := rowIDs(rows); !reflect.DeepEqual(got, want) {
				t.Errorf("subjects %v, want %v", got, want)
			}
		})
	}
}

// TestRulesOnANewConfig: the PL rules over a PR that adds the whole small
// config: each way a row goes wrong in the fixture is reported once, on
// the line a maintainer must fix, and the rows that run their benchmark
// as declared are not reported.
func TestRulesOnANewConfig(t *testing.T) {
	base := smallTree()
	delete(base, smallConfig)
	ch := configuredChange(t, base, smallTree())
	res := checktest.Review(t, ch, Rules()...)
	var got []string
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line))
	}
	slices.Sort(got)
	at := func(rule, s string) string { return fmt.Sprintf("%s %s:%d", rule, smallConfig, configLine(t, s)) }
	want := []string{
		// The ghost row's script does not exist.
		at("PL001", "{ tp: 8, conc-list: [4] }"),
		// No launcher for mi300x: the key's runner line.
		at("PL001", "runner: mi300x"),
		// ep and dp-attn of the llama row never reach its script.
		at("PL004", "ep: 2"), at("PL004", "ep: 2"),
		// The agentic row's DRAM offload never reaches its script.
		at("PL004", "kv-offloading: dram"),
		// b200 is not a label of runners.yaml.
		at("PL008", "runner: b200"),
	}
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The same tree as base and head: nothing is new, nothing is said.
	same := checktest.Change(t, newIDTree(smallTree()), newIDTree(smallTree()))
	same.Cache = checks.NewParseCache(0)
	if err := same.Configure(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if res := checktest.Review(t, same, Rules()...); len(res.Findings) != 0 {
		t.Errorf("an unchanged tree gets %d findings", len(res.Findings))
	}
}

// TestPL008OnlyWhereLabelsMayChange: a PR that touches no master config
// and no runner list gets from PL008 what judging every config would give
// it, without the configs read; one that does is judged in full.
func TestPL008OnlyWhereLabelsMayChange(t *testing.T) {
	full := *pl008
	full.Run = judgeLabels
	for _, c := range []struct {
		name  string
		edit  func(map[string]string)
		lists bool
	}{
		{"a readme", func(f map[string]string) { f["README.md"] = "hi\n" }, false},
		{"a benchmark script", func(f map[string]string) { f[llamaScript] += "echo done\n" }, false},
		{"a launcher", func(f map[string]string) { f[launchGB200] += "# note\n" }, false},
		{"a recipe", func(f map[string]string) { f[dsr1Recipe] += "# tuned\n" }, false},
		{"a config key on an undefined label", func(f map[string]string) {
			f[smallConfig] = strings.Replace(f[smallConfig], "runner: mi300x", "runner: b300-undefined", 1)
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			head := smallTree()
			c.edit(head)
			ch := configuredChange(t, smallTree(), head)
			if got := listsLabelFile(ch); got != c.lists {
				t.Fatalf("listsLabelFile = %v, want %v", got, c.lists)
			}
			got := checktest.Review(t, ch, pl008).Findings
			want := checktest.Review(t, configuredChange(t, smallTree(), head), &full).Findings
			if !reflect.DeepEqual(got, want) {
				t.Errorf("PL008 %v, judging every config %v", got, want)
			}
			if c.lists && len(want) == 0 {
				t.Error("the config change is not reported: the test judges nothing")
			}
		})
	}
}

// configuredChange is the change from base to head (path → content) of
// trees with content IDs, with a parse cache and the tree's configuration,
// as a review makes it.
func configuredChange(t *testing.T, base, head map[string]string) *checks.Change {
	t.Helper()
	ch := checktest.Change(t, newIDTree(base), newIDTree(head))
	ch.Cache = checks.NewParseCache(0)
	if err := ch.Configure(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestBaseBuiltWhenAsked: a PR that changes a benchmark script has the
// base model built only when something asks for it; once built, the head
// takes its resolutions and both use the readings. A changed template
// (every row) has it built with the head.
func TestBaseBuiltWhenAsked(t *testing.T) {
	files := fixtureFiles(t)
	script := ""
	for p := range files {
		if strings.HasPrefix(p, "benchmarks/single_node/") && strings.HasSuffix(p, ".sh") {
			script = p
			break
		}
	}
	if script == "" {
		t.Fatal("the fixture has no single-node script")
	}
	head := maps.Clone(files)
	head[script] += "\necho changed\n"
	ch := configuredChange(t, files, head)
	a, err := Load(context.Background(), ch)
	if err != nil || !a.Relevant {
		t.Fatalf("analysis: %v (relevant %v)", err, a != nil && a.Relevant)
	}
	if _, err := a.Subjects(); err != nil {
		t.Fatal(err)
	}
	if a.base != nil {
		t.Error("finding the subjects of a changed script built the base model")
	}
	base, err := a.Base()
	if err != nil {
		t.Fatal(err)
	}
	if a.head.st.live.live != base || !a.head.bounded || !base.bounded {
		t.Error("the base built on demand is not the head's donor, or not bounded like it")
	}

	head = maps.Clone(files)
	for p := range files {
		if strings.HasPrefix(p, ".github/workflows/benchmark-tmpl") {
			head[p] += "\n# changed\n"
		}
	}
	ch = configuredChange(t, files, head)
	a, err = Load(context.Background(), ch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Head(); err != nil {
		t.Fatal(err)
	}
	if a.base == nil {
		t.Error("a changed template did not build the base with the head")
	}
}
