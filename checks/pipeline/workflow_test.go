package pipeline

import (
	"reflect"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/pipeline/ghexpr"
)

// tmplText is a workflow template in the real structure: workflow_call
// inputs with types and defaults, a job env block, and the launch step
// with its own env and a literal run block.
const tmplText = `name: Template - Benchmark
on:
  workflow_call:
    inputs:
      runner: { required: true, type: string }
      tp: { required: true, type: string }
      conc: { required: true, type: string }
      dp-attn: { required: true, type: boolean }
      eval-only:
        type: boolean
        default: true
      max-len:
        type: number
        default: 4096
      scenario-type:
        type: string
        default: 'fixed-seq-len'
      empty-default:
        type: string
        default: ''
env:
  HF_TOKEN: ${{ secrets.HF_TOKEN }}
  TP: ${{ inputs.tp }}
  CONC: ${{ inputs.conc }}
  DP_ATTENTION: ${{ inputs.dp-attn }}
  EVAL_ONLY: ${{ inputs.eval-only }}
  MAX_LEN: ${{ inputs.max-len }}
  SUBDIR: ${{ inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/' }}
  RESULT_DIR: /workspace/results
  NESTED:
    not: a scalar
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: echo lint
  benchmark:
    runs-on: ${{ inputs.runner }}
    steps:
      - uses: actions/checkout@v4
      - name: Launch job script
        env:
          RUNNER_NAME: ${{ runner.name }}
          RESULT_FILENAME: run_tp${{ env.TP }}_conc${{ env.CONC }}
          SHA: ${{ github.sha }}
        run: |
          echo "${{ inputs.tp }} ${{ github.event.number }}"
          bash ./runners/launch_${RUNNER_NAME%%_*}.sh
      - name: Later step that also names a launcher
        run: bash ./runners/launch_other.sh
`

func mustTemplate(t *testing.T, p, text string) *Template {
	t.Helper()
	tm, err := ParseTemplate(p, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// TestParseTemplate: what the bot reads of a template: each input's type
// and typed default, the env block with each variable's line (non-scalar
// entries skipped), and the first step that runs a launcher, with the line
// its script starts on.
func TestParseTemplate(t *testing.T) {
	tm := mustTemplate(t, ".github/workflows/benchmark-tmpl.yml", tmplText)
	for name, want := range map[string]Input{
		"tp":            {Type: "string", Line: 6},
		"dp-attn":       {Type: "boolean", Line: 8},
		"eval-only":     {Type: "boolean", Default: true, HasDefault: true, Line: 9},
		"max-len":       {Type: "number", Default: float64(4096), HasDefault: true, Line: 12},
		"scenario-type": {Type: "string", Default: "fixed-seq-len", HasDefault: true, Line: 15},
		"empty-default": {Type: "string", Default: "", HasDefault: true, Line: 18},
	} {
		if got := tm.Inputs[name]; !reflect.DeepEqual(got, want) {
			t.Errorf("input %s = %+v, want %+v", name, got, want)
		}
	}
	if len(tm.Inputs) != 8 {
		t.Errorf("%d inputs, want 8", len(tm.Inputs))
	}
	var vars []string
	for _, d := range tm.Env {
		vars = append(vars, d.Var)
	}
	if want := []string{"HF_TOKEN", "TP", "CONC", "DP_ATTENTION", "EVAL_ONLY", "MAX_LEN", "SUBDIR", "RESULT_DIR"}; !reflect.DeepEqual(vars, want) {
		t.Errorf("env %v, want %v (the mapping entry is not a variable)", vars, want)
	}
	if d := tm.Env[1]; d.Expr != "${{ inputs.tp }}" || d.At != (Loc{File: tm.Path, Line: 23}) {
		t.Errorf("TP defined as %+v", d)
	}
	if tm.Launch == nil {
		t.Fatal("no launch step")
	}
	if tm.Launch.RunLine != 47 || !strings.HasPrefix(tm.Launch.Run, "echo ") || strings.Contains(tm.Launch.Run, "launch_other") {
		t.Errorf("launch step at line %d: %q; want the first launching step, its script from line 47", tm.Launch.RunLine, tm.Launch.Run)
	}
	if len(tm.Launch.Env) != 3 || tm.Launch.Env[0].Var != "RUNNER_NAME" || tm.Launch.Env[0].At.Line != 43 {
		t.Errorf("launch env %+v", tm.Launch.Env)
	}
	// A plain-style run line starts on its own line.
	plain := mustTemplate(t, "t.yml", "on: {workflow_call: {}}\njobs:\n  b:\n    steps:\n      - run: bash ./runners/launch_x.sh\n")
	if plain.Launch.RunLine != 5 {
		t.Errorf("plain run starts at %d, want 5", plain.Launch.RunLine)
	}
}

// TestParseTemplateRejects: a file that is not a usable template is an
// error naming the file (the model then uses the built-in table), never a
// panic.
func TestParseTemplateRejects(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"bad YAML", "on: [\n", "t.yml"},
		{"a list", "- a\n- b\n", "not a mapping"},
		{"a scalar", "hello\n", "not a mapping"},
		{"empty", "", "t.yml"},
		{"no launch step", "on: {workflow_call: {}}\njobs:\n  b:\n    steps:\n      - run: echo hi\n", "no step runs runners/launch_*.sh"},
		{"run is not a scalar", "jobs:\n  b:\n    steps:\n      - run: [runners/launch_x.sh]\n", "no step runs"},
		{"steps is a scalar", "jobs:\n  b:\n    steps: runners/launch_x.sh\n", "no step runs"},
		{"jobs is a list", "jobs:\n  - runners/launch_x.sh\n", "no step runs"},
		{"too large", "x: '" + strings.Repeat("a", maxTemplateBytes) + "'\n", "more than the"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm, err := ParseTemplate("t.yml", []byte(c.text))
			if err == nil || tm != nil {
				t.Fatalf("got %+v, %v; want an error", tm, err)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "t.yml") {
				t.Errorf("error %q should name the file and say %q", err, c.want)
			}
		})
	}
}

// TestJobEnv: the env a job of the template gets for some inputs: each
// variable evaluated over the inputs with the template's defaults, what
// the bot cannot know (secrets, github.*) set but unknown, later
// definitions seeing earlier ones through env.*, each marked with its
// line.
func TestJobEnv(t *testing.T) {
	tm := mustTemplate(t, "tmpl.yml", tmplText)
	for _, c := range []struct {
		name   string
		inputs map[string]any
		want   map[string]string // known values
	}{
		{"fixed-seq-len job", map[string]any{"tp": 8, "conc": 4, "dp-attn": false},
			map[string]string{"TP": "8", "CONC": "4", "DP_ATTENTION": "false", "EVAL_ONLY": "true", "MAX_LEN": "4096",
				"SUBDIR": "fixed_seq_len/", "RESULT_DIR": "/workspace/results", "RUNNER_NAME": "h100-cr_0", "RESULT_FILENAME": "run_tp8_conc4"}},
		{"agentic job, a default overridden", map[string]any{"tp": "4", "conc": "1", "scenario-type": "agentic-coding", "eval-only": false},
			map[string]string{"SUBDIR": "agentic/", "EVAL_ONLY": "false", "RESULT_FILENAME": "run_tp4_conc1"}},
		{"inputs missing: empty values", nil, map[string]string{"TP": "", "RESULT_FILENAME": "run_tp_conc"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := tm.JobEnv(c.inputs, "h100-cr_0")
			for k, want := range c.want {
				got, known := env.Get(k)
				if !known || got != want {
					t.Errorf("%s = %q (known %v), want %q", k, got, known, want)
				}
			}
			for _, k := range []string{"HF_TOKEN", "SHA"} {
				if v := env[k]; !v.Set || v.Known {
					t.Errorf("%s should be set to an unknown value, got %+v", k, v)
				}
			}
			if _, ok := env["NESTED"]; ok {
				t.Error("a mapping under env is not a variable")
			}
			if at := env["CONC"].At; at != (Loc{File: "tmpl.yml", Line: 24}) {
				t.Errorf("CONC marked at %v", at)
			}
		})
	}
	// The template's defaults do not leak into the caller's inputs.
	in := map[string]any{"tp": 1}
	tm.JobEnv(in, "x")
	if len(in) != 1 {
		t.Errorf("JobEnv changed its inputs: %v", in)
	}
}

// TestLaunchScript: the launch step's script as bash sees it: expressions
// replaced by their values, an expression the bot cannot evaluate replaced
// by a variable of unknown value (numbered in order), and blank lines in
// front so that its lines are the template's.
func TestLaunchScript(t *testing.T) {
	tm := mustTemplate(t, "tmpl.yml", tmplText)
	env := tm.JobEnv(map[string]any{"tp": 8}, "h100-cr_0")
	text, exprs := tm.launchScriptExprs(tm.withDefaults(map[string]any{"tp": 8}), env, "h100-cr_0")
	lines := strings.Split(text, "\n")
	if len(lines) < 48 || lines[46] != `echo "8 ${`+unknownVarPrefix+`1}"` {
		t.Fatalf("line 47 of the script is %q, want the run block's first line with the tp substituted", lines[min(46, len(lines)-1)])
	}
	if lines[47] != "bash ./runners/launch_${RUNNER_NAME%%_*}.sh" {
		t.Errorf("line 48 is %q", lines[47])
	}
	if !reflect.DeepEqual(exprs, []string{" github.event.number "}) {
		t.Errorf("unknown expressions %q", exprs)
	}
	if got := tm.LaunchScript(map[string]any{"tp": 8}, env, "h100-cr_0"); got != text {
		t.Error("LaunchScript and launchScriptExprs disagree")
	}
	// An unclosed expression is left as written.
	open := &Template{Launch: &LaunchStep{Run: "echo ${{ inputs.tp\n", RunLine: 1}}
	if got := open.LaunchScript(map[string]any{"tp": 8}, Env{}, "r"); got != "echo ${{ inputs.tp\n" {
		t.Errorf("unclosed expression: %q", got)
	}
	// A run line at 0 (a built-in table) adds no lines.
	if got := (&Template{Launch: &LaunchStep{Run: "x", RunLine: 0}}).LaunchScript(nil, nil, ""); got != "x" {
		t.Errorf("got %q", got)
	}
}

// TestTypedScalar: input defaults are typed as the runner types them.
func TestTypedScalar(t *testing.T) {
	tm := mustTemplate(t, "t.yml", `on:
  workflow_call:
    inputs:
      b1: { type: boolean, default: TRUE }
      b2: { type: boolean, default: "no" }
      n1: { type: number, default: 2.5 }
      n2: { type: number, default: abc }
      s1: { type: string, default: 08 }
      l1: { type: string, default: [1, 2] }
jobs: {b: {steps: [{run: bash runners/launch_x.sh}]}}
`)
	for name, want := range map[string]any{"b1": true, "b2": false, "n1": 2.5, "s1": "08", "l1": nil} {
		if got := tm.Inputs[name].Default; !reflect.DeepEqual(got, want) {
			t.Errorf("%s default %#v, want %#v", name, got, want)
		}
	}
	if n := tm.Inputs["n2"].Default.(float64); n == n {
		t.Errorf("a number default that is not a number is NaN, got %v", n)
	}
	if got := typedScalar(nil, "string"); got != nil {
		t.Errorf("typedScalar(nil) = %v", got)
	}
	if !ghexpr.IsUnknown(ghexpr.Unknown{}) {
		t.Fatal("ghexpr.Unknown is unknown")
	}
}

// TestJobEnvCtx: the expressions' env context jobEnvCtx returns with the
// job env is what exprContext makes of that env, for every row of the
// fixture on each of its runner groups.
func TestJobEnvCtx(t *testing.T) {
	_, _, m := resolvedFixture(t)
	n := 0
	for _, r := range m.Rows {
		tm := m.Templates[r.Kind]
		if tm == nil {
			continue
		}
		in := tm.withDefaults(r.Inputs)
		for _, g := range m.groups(r) {
			env, envCtx := tm.jobEnvCtx(in, g.Name)
			if want := exprContext(in, env, g.Name)["env"]; !reflect.DeepEqual(envCtx, want) {
				t.Errorf("row %s on %s: env context %v, exprContext's %v", r, g.Name, envCtx, want)
			}
			// What a launch takes of them (launchPrepared) is JobEnv and
			// LaunchScript's.
			l := m.launchPrepared(r, tm, g)
			if want := tm.JobEnv(r.Inputs, g.Name); !reflect.DeepEqual(l.Env, want) {
				t.Errorf("row %s on %s: launch env %v, JobEnv %v", r, g.Name, l.Env, want)
			}
			text, _ := tm.launchScriptCtx(stepContext(in, envCtx, g.Name))
			if want := tm.LaunchScript(r.Inputs, env, g.Name); text != want {
				t.Errorf("row %s on %s: launch script\n%s\nLaunchScript\n%s", r, g.Name, text, want)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no row of the fixture has a job env")
	}
}
