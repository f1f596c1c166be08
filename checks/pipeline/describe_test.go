package pipeline

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// describeOne describes the rows of one key and returns them.
func describeOne(t *testing.T, m *Model, key string, n int) []RowReport {
	t.Helper()
	reps := m.Describe(key)
	if len(reps) != n {
		t.Fatalf("Describe(%s) gave %d reports, want %d", key, len(reps), n)
	}
	return reps
}

// envOfReport is a report's env as name=value.
func envOfReport(rep RowReport) map[string]string {
	out := map[string]string{}
	for _, v := range rep.Env {
		out[v.Name] = v.Value
	}
	return out
}

// TestDescribeSelectsKeys: `reviewbot pipeline` takes a key or a shell
// glob; a pattern that is not a valid glob still matches its key exactly.
func TestDescribeSelectsKeys(t *testing.T) {
	files := smallTree()
	files[smallConfig] += "\nodd[key:\n  model-prefix: llama\n  runner: h100\n  precision: fp8\n  seq-len-configs:\n  - isl: 1024\n    osl: 1024\n    search-space:\n    - { tp: 8, conc-list: [4] }\n"
	m := smallModel(t, files)
	for pattern, want := range map[string]int{
		"llama-fp8-h100-sglang": 3,
		"dsr1-*":                2,
		"*-agentic":             2,
		"*":                     10,
		"nope":                  0,
		"odd[key":               1,
		"":                      0,
	} {
		if got := len(m.Describe(pattern)); got != want {
			t.Errorf("Describe(%q) = %d rows, want %d", pattern, got, want)
		}
	}
}

// TestDescribeSingleNodeRow: a row's report says what a maintainer needs
// to follow it: its fields, its sweep job and template, its concurrencies,
// the job's variables with where they are set, and for each runner group
// the launcher, the script it runs, what the script checks and uses, the
// commands it starts and the values the row variables take over every row
// running it.
func TestDescribeSingleNodeRow(t *testing.T) {
	m := smallModel(t, smallTree())
	rep := describeOne(t, m, "llama-fp8-h100-sglang", 3)[0]
	if rep.Key != "llama-fp8-h100-sglang" || rep.File != smallConfig || rep.Line != 14 || rep.Scenario != "fixed-seq-len:1024/1024" {
		t.Errorf("header %+v", rep)
	}
	if rep.Fields != "conc-end: 64, conc-start: 4, tp: 8" {
		t.Errorf("fields %q", rep.Fields)
	}
	if rep.Job != "sweep-single-node-1k1k (.github/workflows/run-sweep.yml:13)" || rep.Template != TemplatePaths[SingleNode] {
		t.Errorf("job %q, template %q", rep.Job, rep.Template)
	}
	if !reflect.DeepEqual(rep.Concs, []int{4, 8, 16, 32, 64}) {
		t.Errorf("concs %v", rep.Concs)
	}
	env := envOfReport(rep)
	for k, v := range map[string]string{"EXP_NAME": "llama_1k1k", "TP": "8", "EP_SIZE": "1", "CONC": "4", "SCENARIO_SUBDIR": "fixed_seq_len/", "KV_OFFLOADING": ""} {
		if got, ok := env[k]; !ok || got != v {
			t.Errorf("env %s = %q (listed %v), want %q", k, got, ok, v)
		}
	}
	// Variables are listed in the report's order, each with its line.
	var names []string
	for _, v := range rep.Env {
		names = append(names, v.Name)
		if v.Name == "TP" && v.From != TemplatePaths[SingleNode]+":38" {
			t.Errorf("TP from %q", v.From)
		}
	}
	if i, j := slices.Index(names, "EXP_NAME"), slices.Index(names, "TP"); i != 0 || j < i {
		t.Errorf("env order %v", names)
	}
	if _, ok := env["HF_TOKEN"]; ok {
		t.Error("the report lists only the variables a row's fields decide")
	}

	if len(rep.Launches) != 1 {
		t.Fatalf("%d launches", len(rep.Launches))
	}
	l := rep.Launches[0]
	if l.Label != "h100" || !reflect.DeepEqual(l.Runners, []string{"h100-cr_0", "h100-cr_1"}) || l.Guessed || l.Launcher != launchH100 {
		t.Errorf("launch %+v", l)
	}
	if l.Paths != 1 || !l.Complete || l.Broken || l.Error != "" || len(l.Exits) != 0 {
		t.Errorf("launch outcome %+v", l)
	}
	if len(l.Targets) != 1 {
		t.Fatalf("%d targets", len(l.Targets))
	}
	tg := l.Targets[0]
	if tg.Kind != "script" || tg.Path != llamaScript || !tg.Exists || tg.At != launchH100+":3" {
		t.Errorf("target %+v", tg)
	}
	if !reflect.DeepEqual(tg.Gets, []string{"MODEL=meta-llama/Llama-3.3-70B-FP8", "TP=8", "CONC=4"}) {
		t.Errorf("docker -e passes %v", tg.Gets)
	}
	if !reflect.DeepEqual(tg.Checks, []string{"CONC ISL MODEL OSL RESULT_FILENAME TP (check_env_vars at " + llamaScript + ":3)"}) {
		t.Errorf("checks %v", tg.Checks)
	}
	if !reflect.DeepEqual(tg.Uses, []string{"MODEL", "TP", "CONC"}) {
		t.Errorf("uses %v", tg.Uses)
	}
	if !slices.Contains(tg.Passes, "TP") || !slices.Contains(tg.Passes, "MAX_MODEL_LEN") {
		t.Errorf("passes %v", tg.Passes)
	}
	if len(tg.Commands) != 2 || !strings.HasPrefix(tg.Commands[0], "sglang.launch_server (line 4); options over all its branches: --model-path $MODEL --tp-size $TP") {
		t.Errorf("commands %v", tg.Commands)
	}
	if !reflect.DeepEqual(tg.Domain, []string{"TP {4, 8}", "CONC {1, 2, 4, 8, 16, 32, 64}"}) || tg.Rows != 3 {
		t.Errorf("domain %v over %d rows", tg.Domain, tg.Rows)
	}
	// The report is what `reviewbot pipeline --json` prints.
	b, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(b), `"rows_running_it":3`) {
		t.Errorf("json %s, %v", b, err)
	}
}

// TestDescribeProblemRows: how a row that cannot run is described: a
// script that does not exist, a launcher the tree lacks, a launcher that
// exits for the row, a label found only from the launchers' names.
func TestDescribeProblemRows(t *testing.T) {
	files := smallTree()
	files[smallConfig] = strings.Replace(files[smallConfig], "framework: vllm", "framework: trt", 1)
	m := smallModel(t, files)

	ghost := describeOne(t, m, "ghost-fp8-h100-sglang", 1)[0].Launches[0]
	if !ghost.Broken || len(ghost.Targets) != 1 || ghost.Targets[0].Exists || ghost.Targets[0].Path != ghostScript {
		t.Errorf("missing script: %+v", ghost)
	}
	if tg := ghost.Targets[0]; tg.Checks != nil || tg.Uses != nil || tg.Rows != 0 {
		t.Errorf("a missing script has nothing to read: %+v", tg)
	}

	missing := describeOne(t, m, "llama-fp8-mi300x-sglang", 1)[0].Launches[0]
	if missing.Launcher != launchMissing || !strings.Contains(missing.Error, "does not exist") || missing.Paths != 0 || missing.Targets != nil {
		t.Errorf("missing launcher: %+v", missing)
	}

	exits := describeOne(t, m, "glm-fp4-b200-agentic", 2)[0].Launches[0]
	if !exits.Broken || !reflect.DeepEqual(exits.Exits, []string{launchB200 + ":5 (status 1)"}) || len(exits.Targets) != 0 {
		t.Errorf("launcher exits for trt: %+v", exits)
	}

	guessed := describeOne(t, m, "dsr1-fp4-b200-sglang", 1)[0]
	if l := guessed.Launches[0]; !l.Guessed || l.Label != "b200" || !reflect.DeepEqual(l.Runners, []string{"b200-dgxc_0"}) {
		t.Errorf("guessed group: %+v", l)
	}
	if !reflect.DeepEqual(guessed.Concs, []int{8, 4}) || guessed.Fields != "conc-list: [8, 4, 8], spec-decoding: mtp, tp: 8" {
		t.Errorf("concs %v, fields %q", guessed.Concs, guessed.Fields)
	}
}

// TestDescribeMultiNodeRow: a multi-node row's report: its pools in the
// fields, the multi-node job, the variables its launcher gets (the pools'
// settings included) and the recipe srtctl runs, summarized.
func TestDescribeMultiNodeRow(t *testing.T) {
	m := smallModel(t, smallTree())
	rep := describeOne(t, m, "dsr1-fp4-gb200-dynamo", 1)[0]
	if !strings.HasPrefix(rep.Fields, "conc-list: [64, 256], decode: {dp-attn: false, ep: 8, num-worker: 2, tp: 8}, prefill: {additional-settings: [CONFIG_FILE=") {
		t.Errorf("fields %q", rep.Fields)
	}
	if !strings.HasPrefix(rep.Job, "sweep-multi-node-8k1k ") || rep.Template != TemplatePaths[MultiNode] {
		t.Errorf("job %q, template %q", rep.Job, rep.Template)
	}
	env := envOfReport(rep)
	for k, v := range map[string]string{"CONC_LIST": "64 256", "PREFILL_TP": "4", "DECODE_NUM_WORKERS": "2", "CONFIG_FILE": dsr1Recipe, "IS_MULTINODE": "true"} {
		if env[k] != v {
			t.Errorf("env %s = %q, want %q", k, env[k], v)
		}
	}
	l := rep.Launches[0]
	if len(l.Targets) != 1 {
		t.Fatalf("targets %+v", l.Targets)
	}
	tg := l.Targets[0]
	if tg.Kind != "recipe" || tg.Path != dsr1Recipe || !tg.Exists {
		t.Errorf("target %+v", tg)
	}
	want := []string{
		"decode: workers 2, tp 8, ep 8",
		"prefill: workers 1, tp 4, ep 4, dp-attention true",
		"model: nvidia/DeepSeek-R1-0528-FP4",
		"container: lmsysorg/sglang:v0.5.16-cu130-arm64",
		"benchmark: sa-bench",
		"concurrencies: 64x256",
	}
	if !reflect.DeepEqual(tg.Recipe, want) {
		t.Errorf("recipe summary\n%s\nwant\n%s", strings.Join(tg.Recipe, "\n"), strings.Join(want, "\n"))
	}
}

// TestDescribeWithoutSweep: without the sweep workflow the report says
// where the inputs come from instead of naming a job.
func TestDescribeWithoutSweep(t *testing.T) {
	files := smallTree()
	delete(files, SweepPath)
	rep := describeOne(t, smallModel(t, files), "ghost-fp8-h100-sglang", 1)[0]
	if rep.Job != "(no sweep workflow: inputs are the matrix fields of the same names)" {
		t.Errorf("job %q", rep.Job)
	}
	if envOfReport(rep)["EXP_NAME"] != "ghost_1k1k" {
		t.Errorf("env %v", rep.Env)
	}
}

// TestDescribeUnknownAndExternalRuns: runs the bot cannot name, and runs
// of files outside the tree, are listed apart from the targets.
func TestDescribeUnknownAndExternalRuns(t *testing.T) {
	files := smallTree()
	files[launchH100] = "#!/usr/bin/bash\nbash \"$(ls /opt/scripts | head -1)\"\nbash /opt/vendor/run.sh\n"
	l := describeOne(t, smallModel(t, files), "ghost-fp8-h100-sglang", 1)[0].Launches[0]
	if len(l.Unknown) != 1 || !strings.Contains(l.Unknown[0], launchH100+":2") {
		t.Errorf("unknown runs %v", l.Unknown)
	}
	if len(l.External) != 1 || !strings.Contains(l.External[0], "/opt/vendor/run.sh") || !strings.HasPrefix(l.External[0], "script ") {
		t.Errorf("external runs %v", l.External)
	}
	if l.Broken || len(l.Targets) != 0 {
		t.Errorf("a launch that may run anything is not broken: %+v", l)
	}
}

// TestReportHelpers: how row fields, repeated exits and commands are
// rendered in reports.
func TestReportHelpers(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{8, "8"},
		{"mtp", "mtp"},
		{nil, "<nil>"},
		{[]any{1, "a", []any{}}, "[1, a, []]"},
		{map[string]any{"b": 1, "a": map[string]any{"z": true, "y": []any{2}}}, "{a: {y: [2], z: true}, b: 1}"},
		{map[string]any{}, "{}"},
	} {
		if got := flat(c.v); got != c.want {
			t.Errorf("flat(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := firstOfEach([]string{"b", "a", "b", "c", "a"}); !reflect.DeepEqual(got, []string{"b", "a", "c"}) {
		t.Errorf("firstOfEach = %v", got)
	}
	if got := firstOfEach(nil); len(got) != 0 {
		t.Errorf("firstOfEach(nil) = %v", got)
	}
	long := strings.Repeat("x", 60)
	for _, c := range []struct {
		cmd  script.Command
		want string
	}{
		{script.Command{Program: "vllm serve", Line: 7}, "vllm serve (line 7)"},
		{script.Command{Program: "vllm serve", Line: 7, RunLine: 12, Flags: []script.Flag{
			{Name: "--tensor-parallel-size", Value: "$TP", HasValue: true},
			{Name: "--enforce-eager"},
			{Name: "--tensor-parallel-size", Value: "$TP", HasValue: true},
			{Name: "--tensor-parallel-size", Value: "8", HasValue: true},
			{Name: "--config", Value: long, HasValue: true},
		}}, "vllm serve (line 12); options over all its branches: --tensor-parallel-size $TP --enforce-eager --tensor-parallel-size 8 --config " + long[:45] + "…"},
	} {
		c := c
		if got := commandSummary(&c.cmd); got != c.want {
			t.Errorf("commandSummary = %q\nwant %q", got, c.want)
		}
	}
	rec, err := ParseSrtRecipe("r.yaml", []byte("model:\n  path: m\nbackend:\n  sglang_config:\n    agg:\n      tp-size: 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := recipeSummary(rec); !reflect.DeepEqual(got, []string{"agg: tp 8", "model: m"}) {
		t.Errorf("recipe summary %v", got)
	}
	if got := recipeSummary(&SrtRecipe{Roles: map[string]*SrtRole{}}); got != nil {
		t.Errorf("an empty recipe: %v", got)
	}
}
