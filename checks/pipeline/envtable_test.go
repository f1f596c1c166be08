package pipeline

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// TestBuiltinSingleNodeEnv: a tree without workflow templates gets the
// built-in table, which gives a single-node job the variables the real
// template does, from the same inputs, with the template's defaults.
func TestBuiltinSingleNodeEnv(t *testing.T) {
	tm := builtinTemplates[SingleNode]
	in := pointInputs(Point{"exp-name": "llama_1k1k", "model": "m", "model-prefix": "llama", "image": "img", "framework": "sglang",
		"precision": "fp8", "isl": 1024, "osl": 1024, "max-model-len": 2304, "tp": 8, "ep": 2, "dp-attn": true, "conc": 16,
		"spec-decoding": "none", "runner": "h100"}, SingleNode)
	env := tm.JobEnv(in, "h100-cr_0")
	for k, want := range map[string]string{
		"EXP_NAME": "llama_1k1k", "MODEL_PREFIX": "llama", "TP": "8", "EP_SIZE": "2", "DP_ATTENTION": "true", "CONC": "16",
		"ISL": "1024", "MAX_MODEL_LEN": "2304", "PP_SIZE": "1", "DCP_SIZE": "1", "PCP_SIZE": "1",
		"SCENARIO_TYPE": "fixed-seq-len", "SCENARIO_SUBDIR": "fixed_seq_len/", "IS_AGENTIC": "0", "EVAL_ONLY": "false",
		"TOTAL_CPU_DRAM_GB": "0", "DURATION": "3600", "RUNNER_NAME": "h100-cr_0", "RUNNER_TYPE": "h100",
		"RESULT_FILENAME_BASE": "llama_1k1k_fp8_sglang_tp8_conc16_h100-cr_0", "PYTHONDONTWRITEBYTECODE": "1",
	} {
		if got, known := env.Get(k); !known || got != want {
			t.Errorf("%s = %q (known %v), want %q", k, got, known, want)
		}
	}
	if v := env["HF_TOKEN"]; !v.Set || v.Known {
		t.Errorf("the secret should be set and unknown: %+v", v)
	}
	if at := env["TP"].At; at.File != BuiltinTable {
		t.Errorf("a built-in variable is marked at %v", at)
	}
	script := tm.LaunchScript(in, env, "h100-cr_0")
	if !strings.Contains(script, "bash ./runners/launch_${RUNNER_NAME%%_*}.sh") {
		t.Errorf("the built-in launch step does not run the runner's launcher:\n%s", script)
	}
}

// TestBuiltinMultiNodeEnv: the built-in multi-node table: the conc list
// joined, the pools' fields, and the pools' additional settings exported
// by the launch step.
func TestBuiltinMultiNodeEnv(t *testing.T) {
	tm := builtinTemplates[MultiNode]
	pt := Point{"exp-name": "dsr1_8k1k", "conc": []any{64, 256}, "scenario-type": AgenticCoding,
		"prefill": map[string]any{"num-worker": 1, "tp": 4, "ep": 4, "dp-attn": true, "additional-settings": []any{"CONFIG_FILE=recipes/a.yaml"}},
		"decode":  map[string]any{"num-worker": 2, "tp": 8, "ep": 8, "dp-attn": false}}
	in := pointInputs(pt, MultiNode)
	env := tm.JobEnv(in, "gb200-nv_0")
	for k, want := range map[string]string{
		"CONC_LIST": "64 256", "PREFILL_NUM_WORKERS": "1", "PREFILL_TP": "4", "PREFILL_DP_ATTN": "true",
		"DECODE_NUM_WORKERS": "2", "DECODE_EP": "8", "IS_AGENTIC": "1", "SCENARIO_SUBDIR": "agentic/", "RUNNER_NAME": "gb200-nv_0",
	} {
		if got, known := env.Get(k); !known || got != want {
			t.Errorf("%s = %q (known %v), want %q", k, got, known, want)
		}
	}
	script := tm.LaunchScript(in, env, "gb200-nv_0")
	if !strings.Contains(script, "export CONFIG_FILE=recipes/a.yaml \n") {
		t.Errorf("the pools' settings should be exported:\n%s", script)
	}
	if !strings.Contains(script, "export IS_MULTINODE=true") {
		t.Errorf("no IS_MULTINODE:\n%s", script)
	}
}

// TestJobKind names the kinds as findings do.
func TestJobKind(t *testing.T) {
	if SingleNode.String() != "single-node" || MultiNode.String() != "multi-node" || JobKind(0).String() != "single-node" {
		t.Errorf("kinds: %s %s %s", SingleNode, MultiNode, JobKind(0))
	}
	for _, k := range []JobKind{SingleNode, MultiNode} {
		if TemplatePaths[k] == "" || builtinTemplates[k] == nil || builtinTemplates[k].Launch == nil {
			t.Errorf("%s has no template path or built-in table", k)
		}
	}
}

// TestUnknownName: the variables a runner machine sets itself are unknown
// rather than unset: the built-in list, the prefixes (GITHUB_, RUNNER_,
// the launch step's stand-ins for unknown expressions) and the names the
// configuration adds.
func TestUnknownName(t *testing.T) {
	cfg := &checks.Config{Pipeline: checks.PipelineConfig{RunnerEnv: []string{"MY_CLUSTER_VAR"}}}
	for _, c := range []struct {
		cfg  *checks.Config
		name string
		want bool
	}{
		{nil, "HOME", true},
		{nil, "SLURM_JOB_ID", true},
		{nil, "GITHUB_WORKSPACE", true},
		{nil, "RUNNER_TEMP", true},
		{nil, unknownVarPrefix + "3", true},
		{nil, "MY_CLUSTER_VAR", false},
		{cfg, "MY_CLUSTER_VAR", true},
		{nil, "MODEL", false},
		{nil, "TP", false},
		{nil, "home", false},
	} {
		if got := unknownName(c.cfg)(c.name); got != c.want {
			t.Errorf("unknownName(%v)(%q) = %v, want %v", c.cfg != nil, c.name, got, c.want)
		}
	}
}

// TestWithConfig: the configuration's pipeline variables are appended to
// a template's env (so they win), those of the other job kind are not,
// each marked at its configuration line; the template itself is not
// changed.
func TestWithConfig(t *testing.T) {
	base := builtinTemplates[SingleNode]
	if got := withConfig(base, SingleNode, nil); got != base {
		t.Error("no configuration: the template as it is")
	}
	if got := withConfig(base, SingleNode, &checks.Config{}); got != base {
		t.Error("a configuration without variables: the template as it is")
	}
	cfg := &checks.Config{Source: "defaults", Pipeline: checks.PipelineConfig{
		Env:           []checks.PipelineVar{{Name: "TP", Expr: "${{ inputs.tp }}0", Line: 3}},
		SingleNodeEnv: []checks.PipelineVar{{Name: "ONLY_SINGLE", Expr: "1", Line: 5}},
		MultiNodeEnv:  []checks.PipelineVar{{Name: "ONLY_MULTI", Expr: "1", Line: 7}},
	}}
	n := len(base.Env)
	single := withConfig(base, SingleNode, cfg)
	if len(base.Env) != n {
		t.Fatal("withConfig changed the built-in table")
	}
	env := single.JobEnv(map[string]any{"tp": 8}, "r_0")
	if got, _ := env.Get("TP"); got != "80" {
		t.Errorf("the configured TP should win, got %q", got)
	}
	if at := env["TP"].At; at != (Loc{File: checks.ConfigPath, Line: 3}) {
		t.Errorf("configured TP marked at %v", at)
	}
	if !env.Provides("ONLY_SINGLE") || env.Provides("ONLY_MULTI") {
		t.Error("single-node jobs get the single-node variables only")
	}
	multi := withConfig(builtinTemplates[MultiNode], MultiNode, &checks.Config{Source: "custom.yml", Pipeline: cfg.Pipeline})
	menv := multi.JobEnv(nil, "r_0")
	if !menv.Provides("ONLY_MULTI") || menv.Provides("ONLY_SINGLE") {
		t.Error("multi-node jobs get the multi-node variables only")
	}
	if at := menv["ONLY_MULTI"].At; at != (Loc{File: "custom.yml", Line: 7}) {
		t.Errorf("marked at %v, want the configuration's source", at)
	}
}

// TestConfigGlobs: master configs are looked for where the configuration
// says, and always in the older .github/configs/ layout too.
func TestConfigGlobs(t *testing.T) {
	for _, c := range []struct {
		cfg  *checks.Config
		want []string
	}{
		{nil, []string{"configs/*-master.yaml", checks.NewerLayoutRoot + "/configs/*-master.yaml", ".github/configs/*-master.yaml"}},
		{&checks.Config{Paths: checks.Paths{MasterConfigs: []string{"cfg/*.yaml"}}}, []string{"cfg/*.yaml", ".github/configs/*-master.yaml"}},
		{&checks.Config{Paths: checks.Paths{MasterConfigs: []string{".github/configs/*-master.yaml"}}}, []string{".github/configs/*-master.yaml"}},
	} {
		if got := ConfigGlobs(c.cfg); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ConfigGlobs = %v, want %v", got, c.want)
		}
	}
	for p, want := range map[string]bool{
		".github/configs/nvidia-master.yaml": true, "configs/amd-master.yaml": true, "configs/runners.yaml": false,
		".github/configs/sub/x-master.yaml": false,
	} {
		if got := isConfig(nil, p); got != want {
			t.Errorf("isConfig(%q) = %v", p, got)
		}
	}
}

// TestIsLaunch: the files that decide how a job is launched: templates,
// the sweep workflow, the runner lists, and the scripts of runners/.
func TestIsLaunch(t *testing.T) {
	cfg := &checks.Config{Paths: checks.Paths{Runners: []string{"infra/launch_*.sh"}}}
	for p, want := range map[string]bool{
		TemplatePaths[SingleNode]:      true,
		TemplatePaths[MultiNode]:       true,
		SweepPath:                      true,
		"configs/runners.yaml":         true,
		".github/configs/runners.yaml": true,
		"runners/launch_h100-cr.sh":    true,
		"runners/common/env.sh":        true,
		"runners/README.md":            false,
		"infra/launch_x.sh":            true,
		"benchmarks/single_node/a.sh":  false,
		".github/workflows/other.yml":  false,
	} {
		if got := isLaunch(cfg, p); got != want {
			t.Errorf("isLaunch(%q) = %v, want %v", p, got, want)
		}
	}
	if isLaunch(nil, "infra/launch_x.sh") {
		t.Error("without the configuration infra/ is not a runner directory")
	}
}

// TestCountVars: the job variables a template fills from a count input
// exactly (PL006 judges them over every count), the launch step's
// definitions winning over the job's.
func TestCountVarsOfTemplates(t *testing.T) {
	got := builtinTemplates[SingleNode].countVars()
	for v, in := range map[string]string{"TP": "tp", "EP_SIZE": "ep", "PP_SIZE": "pp", "DCP_SIZE": "dcp-size", "PCP_SIZE": "pcp-size", "CONC": "conc"} {
		if got[v] != in {
			t.Errorf("%s comes from %q, want %q", v, got[v], in)
		}
	}
	for _, v := range []string{"DP_ATTENTION", "MODEL", "RESULT_FILENAME_BASE"} {
		if _, ok := got[v]; ok {
			t.Errorf("%s is not a count", v)
		}
	}
	m := builtinTemplates[MultiNode].countVars()
	if m["PREFILL_TP"] != "prefill-tp" || m["DECODE_EP"] != "decode-ep" {
		t.Errorf("multi-node counts %v", m)
	}
	if _, ok := m["PREFILL_NUM_WORKERS"]; ok {
		t.Error("worker counts may be 0: not counts")
	}
	over := &Template{Env: defs("TP", "${{ inputs.tp }}"), Launch: &LaunchStep{Env: defs("TP", "8")}}
	if _, ok := over.countVars()["TP"]; ok {
		t.Error("the launch step's literal TP wins over the job's count")
	}
	if len((*Template)(nil).countVars()) != 0 {
		t.Error("a nil template has no counts")
	}
	for expr, want := range map[string]string{
		"${{ inputs.tp }}": "tp", " ${{inputs.conc}} ": "conc", "${{ inputs.tp }}0": "", "${{ inputs.model }}": "",
		"inputs.tp": "", "${{ inputs.tp": "", "${{ env.TP }}": "",
	} {
		if got := countInput(expr); got != want {
			t.Errorf("countInput(%q) = %q, want %q", expr, got, want)
		}
	}
	if !slices.Contains(runnerEnvPrefixes, unknownVarPrefix) {
		t.Error("the launch step's stand-in variables must count as unknown")
	}
}
