package pipeline

import (
	"strings"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// What the bot must know without reading it from the tree, in one place.
//
// The env a benchmark job gets is read from the repository's workflow
// templates when they parse (ParseTemplate). The tables here are used
// when a template is absent or unreadable, and are laid out as the
// templates are, in the same expression language, so one evaluator serves
// both. .github/reviewbot.yml adds variables under `pipeline:`
// (checks.PipelineConfig).

// BuiltinTable is the Path of the built-in templates' locations.
const BuiltinTable = "(built-in env table)"

// TemplatePaths are where the repository keeps its workflow templates.
var TemplatePaths = map[JobKind]string{
	SingleNode: ".github/workflows/benchmark-tmpl.yml",
	MultiNode:  ".github/workflows/benchmark-multinode-tmpl.yml",
}

// JobKind is the template a row's jobs use.
type JobKind uint8

const (
	SingleNode JobKind = iota + 1
	MultiNode
)

func (k JobKind) String() string {
	if k == MultiNode {
		return "multi-node"
	}
	return "single-node"
}

// defs builds env definitions from name/expression pairs.
func defs(kv ...string) []EnvDef {
	var out []EnvDef
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, EnvDef{Var: kv[i], Expr: kv[i+1], At: Loc{File: BuiltinTable}})
	}
	return out
}

// commonEnv is the part of the env both templates give every job.
var commonEnv = defs(
	"HF_TOKEN", "${{ secrets.HF_TOKEN }}",
	"EXP_NAME", "${{ inputs.exp-name }}",
	"MODEL", "${{ inputs.model }}",
	"MODEL_PREFIX", "${{ inputs.model-prefix }}",
	"IMAGE", "${{ inputs.image }}",
	"FRAMEWORK", "${{ inputs.framework }}",
	"PRECISION", "${{ inputs.precision }}",
	"ISL", "${{ inputs.isl }}",
	"OSL", "${{ inputs.osl }}",
	"MAX_MODEL_LEN", "${{ inputs.max-model-len }}",
	"SPEC_DECODING", "${{ inputs.spec-decoding }}",
	"DISAGG", "${{ inputs.disagg }}",
	"RUN_EVAL", "${{ inputs.run-eval }}",
	"EVAL_ONLY", "${{ inputs.eval-only }}",
	"SCENARIO_TYPE", "${{ inputs.scenario-type }}",
	"SCENARIO_SUBDIR", "${{ inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/' }}",
	"IS_AGENTIC", "${{ inputs.scenario-type == 'agentic-coding' && '1' || '0' }}",
	"KV_OFFLOADING", "${{ inputs.kv-offloading }}",
	"KV_OFFLOAD_BACKEND", "${{ inputs.kv-offload-backend }}",
	"KV_OFFLOAD_BACKEND_METADATA", "${{ inputs.kv-offload-backend-metadata }}",
	"ROUTER_METADATA", "${{ inputs.router }}",
	"KV_P2P_TRANSFER", "${{ inputs.kv-p2p-transfer }}",
	"TOTAL_CPU_DRAM_GB", "${{ inputs.total-cpu-dram-gb }}",
	"DURATION", "${{ inputs.duration }}",
	"PYTHONDONTWRITEBYTECODE", "1",
)

// commonInputs are the inputs with defaults both templates declare.
var commonInputs = map[string]Input{
	"scenario-type":     {Type: "string", Default: "fixed-seq-len", HasDefault: true},
	"eval-only":         {Type: "boolean", Default: false, HasDefault: true},
	"total-cpu-dram-gb": {Type: "string", Default: "0", HasDefault: true},
	"duration":          {Type: "string", Default: "3600", HasDefault: true},
	"agentx-fast":       {Type: "boolean", Default: false, HasDefault: true},
}

func withInputs(extra map[string]Input) map[string]Input {
	out := map[string]Input{}
	for k, v := range commonInputs {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func init() {
	for _, t := range builtinTemplates {
		t.indexEnv()
	}
}

// builtinTemplates stand in for templates the tree lacks.
var builtinTemplates = map[JobKind]*Template{
	SingleNode: {
		Path: BuiltinTable,
		Inputs: withInputs(map[string]Input{
			"pp": {Default: "1", HasDefault: true}, "dcp-size": {Default: "1", HasDefault: true},
			"pcp-size": {Default: "1", HasDefault: true},
		}),
		Env: append(append([]EnvDef{}, commonEnv...), defs(
			"HF_HUB_CACHE", "/mnt/hf_hub_cache/",
			"RANDOM_RANGE_RATIO", "0.8",
			"TP", "${{ inputs.tp }}",
			"PP_SIZE", "${{ inputs.pp }}",
			"DCP_SIZE", "${{ inputs.dcp-size }}",
			"PCP_SIZE", "${{ inputs.pcp-size }}",
			"EP_SIZE", "${{ inputs.ep }}",
			"DP_ATTENTION", "${{ inputs.dp-attn }}",
			"CONC", "${{ inputs.conc }}",
			"RESULT_DIR", "/workspace/results",
		)...),
		Launch: &LaunchStep{
			Env: defs("RUNNER_NAME", "${{ runner.name }}", "RUNNER_TYPE", "${{ inputs.runner }}",
				"RESULT_FILENAME_BASE", "${{ env.EXP_NAME }}_${{ env.PRECISION }}_${{ env.FRAMEWORK }}_tp${{ env.TP }}_conc${{ env.CONC }}_${{ runner.name }}"),
			Run: "export RESULT_FILENAME=\"$RESULT_FILENAME_BASE\"\nexport GPU_COUNT=$((TP * PP_SIZE * PCP_SIZE))\n" +
				"bash ./runners/launch_${RUNNER_NAME%%_*}.sh\n",
			RunLine: 1,
		},
	},
	MultiNode: {
		Path:   BuiltinTable,
		Inputs: withInputs(nil),
		Env: append(append([]EnvDef{}, commonEnv...), defs(
			"CONC_LIST", "${{ join(fromJson(inputs.conc-list), ' ') }}",
			"CONC", "${{ inputs.conc }}",
			"PREFILL_NUM_WORKERS", "${{ inputs.prefill-num-worker }}",
			"PREFILL_TP", "${{ inputs.prefill-tp }}",
			"PREFILL_EP", "${{ inputs.prefill-ep }}",
			"PREFILL_DP_ATTN", "${{ inputs.prefill-dp-attn }}",
			"DECODE_NUM_WORKERS", "${{ inputs.decode-num-worker }}",
			"DECODE_TP", "${{ inputs.decode-tp }}",
			"DECODE_EP", "${{ inputs.decode-ep }}",
			"DECODE_DP_ATTN", "${{ inputs.decode-dp-attn }}",
		)...),
		Launch: &LaunchStep{
			Env: defs("RUNNER_NAME", "${{ runner.name }}", "RUNNER_TYPE", "${{ inputs.runner }}"),
			Run: "export RESULT_FILENAME=\"${EXP_NAME}_${PRECISION}_${FRAMEWORK}_${RUNNER_NAME}\"\n" +
				"export ${{ join(fromJson(inputs.prefill-additional-settings), ' ') }} ${{ join(fromJson(inputs.decode-additional-settings), ' ') }}\n" +
				"export IS_MULTINODE=true\n" +
				"bash ./runners/launch_${RUNNER_NAME%%_*}.sh\n",
			RunLine: 1,
		},
	},
}

// countInputs are the workflow inputs that count something (GPUs per
// parallel dimension, concurrent requests): the sweep generator gives every
// job a whole number of at least 1 for them (`ep` is 1 when a row leaves it
// out). PL006 judges a numeric test of a variable the template fills from
// one of them over all such numbers, not only over the rows at hand. Worker
// counts are not among them: a disaggregated row may have 0 decode workers.
var countInputs = map[string]bool{
	"tp": true, "ep": true, "pp": true, "dcp-size": true, "pcp-size": true, "conc": true,
	"prefill-tp": true, "prefill-ep": true, "decode-tp": true, "decode-ep": true,
}

// runnerEnv are variables the runner machine or the Actions runner sets:
// present, with values the bot cannot know. Anything else nobody assigns
// is unset.
var runnerEnv = []string{
	"HOME", "USER", "PATH", "HOSTNAME", "SHELL", "TMPDIR", "LANG",
	"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
	"SLURM_JOB_ID", "SLURM_JOBID", "SLURM_NODELIST", "SLURM_JOB_NODELIST", "SLURMD_NODENAME", "SLURM_PROCID",
	"SLURM_LOCALID", "SLURM_NNODES", "SLURM_NTASKS", "SLURM_CLUSTER_NAME",
}

// runnerEnvPrefixes are prefixes of such variables.
var runnerEnvPrefixes = []string{"GITHUB_", "RUNNER_", "ACTIONS_", "CI_", unknownVarPrefix}

// unknownName builds the evaluator's Unknown predicate from the built-in
// runner variables and the configuration's.
func unknownName(cfg *checks.Config) func(string) bool {
	extra := map[string]bool{}
	for _, n := range runnerEnv {
		extra[n] = true
	}
	if cfg != nil {
		for _, n := range cfg.Pipeline.RunnerEnv {
			extra[n] = true
		}
	}
	return func(name string) bool {
		if extra[name] {
			return true
		}
		for _, p := range runnerEnvPrefixes {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	}
}

// withConfig returns the template with the configuration's variables
// appended to its env block (the configuration wins over the template).
func withConfig(t *Template, kind JobKind, cfg *checks.Config) *Template {
	if cfg == nil {
		return t
	}
	extra := append([]checks.PipelineVar{}, cfg.Pipeline.Env...)
	if kind == SingleNode {
		extra = append(extra, cfg.Pipeline.SingleNodeEnv...)
	} else {
		extra = append(extra, cfg.Pipeline.MultiNodeEnv...)
	}
	if len(extra) == 0 {
		return t
	}
	c := *t
	c.Env = append([]EnvDef{}, t.Env...)
	src := cfg.Source
	if src == "" || src == "defaults" {
		src = checks.ConfigPath
	}
	for _, v := range extra {
		c.Env = append(c.Env, EnvDef{Var: v.Name, Expr: v.Expr, At: Loc{File: src, Line: v.Line}})
	}
	return c.indexEnv()
}
