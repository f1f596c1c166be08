package pipeline

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/ghexpr"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// Template is what the bot reads of a benchmark workflow template
// (.github/workflows/benchmark-tmpl.yml, benchmark-multinode-tmpl.yml):
// the inputs with their defaults, the job's env block, and the step that
// runs the launcher.
type Template struct {
	// Path is the template's tree path; "" for the built-in table.
	Path   string
	Inputs map[string]Input
	Env    []EnvDef
	// Launch is the step that runs runners/launch_*.sh.
	Launch *LaunchStep
	// defs is lastDefs, made with the template (nil: made on each use).
	defs map[string]EnvDef
}

// Input is a workflow_call input.
type Input struct {
	Type       string
	Default    any
	HasDefault bool
	Line       int
}

// EnvDef is one variable of an env block: its expression as written.
type EnvDef struct {
	Var, Expr string
	At        Loc
}

// LaunchStep is the step that runs the launcher: its env block and its
// run script, whose first line is RunLine of the template.
type LaunchStep struct {
	Env     []EnvDef
	Run     string
	RunLine int
}

// maxTemplateBytes bounds a workflow template the bot reads.
const maxTemplateBytes = 512 << 10

// ParseTemplate reads a workflow template. A file that is not a
// workflow_call template with a step running a launcher is an error: the
// caller falls back to the built-in table.
func ParseTemplate(p string, b []byte) (*Template, error) {
	if len(b) > maxTemplateBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a template may have", p, len(b), maxTemplateBytes)
	}
	doc, err := yamlx.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	root := yamlx.Root(doc)
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a mapping", p)
	}
	t := &Template{Path: p, Inputs: map[string]Input{}}
	if on := yamlx.Get(root, "on"); on != nil {
		if in := yamlx.Get(yamlx.Get(on, "workflow_call"), "inputs"); in != nil {
			for _, kv := range yamlx.Pairs(in) {
				inp := Input{Line: kv.Key.Line, Type: yamlx.Scalar(yamlx.Get(kv.Value, "type"))}
				if d := yamlx.KeyNode(kv.Value, "default"); d != nil {
					inp.HasDefault = true
					inp.Default = typedScalar(yamlx.Get(kv.Value, "default"), inp.Type)
				}
				t.Inputs[kv.Key.Value] = inp
			}
		}
	}
	t.Env = envDefs(p, yamlx.Get(root, "env"))
	for _, job := range yamlx.Pairs(yamlx.Get(root, "jobs")) {
		for _, st := range yamlx.Get(job.Value, "steps").Content {
			run := yamlx.Get(st, "run")
			if run == nil || run.Kind != yaml.ScalarNode || !strings.Contains(run.Value, "runners/launch_") {
				continue
			}
			line := run.Line
			if run.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				line++
			}
			t.Launch = &LaunchStep{Env: envDefs(p, yamlx.Get(st, "env")), Run: run.Value, RunLine: line}
			break
		}
		if t.Launch != nil {
			break
		}
	}
	if t.Launch == nil {
		return nil, fmt.Errorf("%s: no step runs runners/launch_*.sh", p)
	}
	return t.indexEnv(), nil
}

func envDefs(p string, m *yaml.Node) []EnvDef {
	var out []EnvDef
	for _, kv := range yamlx.Pairs(m) {
		if kv.Value.Kind != yaml.ScalarNode {
			continue
		}
		out = append(out, EnvDef{Var: kv.Key.Value, Expr: kv.Value.Value, At: Loc{File: p, Line: kv.Key.Line}})
	}
	return out
}

// typedScalar reads an input default as the runner types it.
func typedScalar(n *yaml.Node, typ string) any {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	switch typ {
	case "boolean":
		return strings.EqualFold(n.Value, "true")
	case "number":
		return ghexpr.ToNumber(n.Value)
	}
	return n.Value
}

// JobEnv is the env a job of the template gets from its inputs: the env
// block, then the launch step's env, each variable evaluated over the
// inputs (with their defaults) and marked with its definition.
func (t *Template) JobEnv(inputs map[string]any, runnerName string) Env {
	return t.jobEnv(t.withDefaults(inputs), runnerName)
}

// withDefaults is inputs over the template's defaults.
func (t *Template) withDefaults(inputs map[string]any) map[string]any {
	in := make(map[string]any, len(t.Inputs)+len(inputs))
	for name, inp := range t.Inputs {
		if inp.HasDefault {
			in[name] = inp.Default
		}
	}
	for k, v := range inputs {
		in[k] = v
	}
	return in
}

// jobEnv is JobEnv with inputs as the expressions' inputs context (a map,
// or ghexpr.Unknown when every input is unknown).
func (t *Template) jobEnv(in any, runnerName string) Env {
	env, _ := t.jobEnvCtx(in, runnerName)
	return env
}

// jobEnvCtx is jobEnv and the env's known values as the expressions'
// env context (what exprContext makes of it).
func (t *Template) jobEnvCtx(in any, runnerName string) (Env, map[string]any) {
	return t.jobEnvOf(in, runnerName, false)
}

// openJobEnv is the job env on a runner every one of whose inputs is
// unknown, for a reading that stands for every job of the template on it:
// a variable whose expressions read one the expressions cannot know is
// unknown too (jobEnv has it read as unset, which is what a job's own env
// does but no value every job agrees on), so what it knows every job's
// env holds.
func (t *Template) openJobEnv(runnerName string) Env {
	env, _ := t.jobEnvOf(ghexpr.Unknown{}, runnerName, true)
	return env
}

// jobEnvOf is jobEnvCtx; partial has a variable whose value the
// expressions cannot know read as Unknown by the expressions after it.
func (t *Template) jobEnvOf(in any, runnerName string, partial bool) (Env, map[string]any) {
	strEnv := t.jobText(in, runnerName, partial)
	defs := t.lastDefs()
	env := make(Env, len(defs))
	for name, d := range defs {
		env[name] = envValue(d, strEnv)
	}
	return env, strEnv
}

// jobText is the known values of the job env (jobEnvOf) by name, as
// text: the expressions' env context. Each variable is evaluated in
// order, over the values of those before it.
func (t *Template) jobText(in any, runnerName string, partial bool) map[string]any {
	ctx := ghexpr.Context{"inputs": in, "secrets": ghexpr.Unknown{}, "vars": ghexpr.Unknown{}, "github": ghexpr.Unknown{},
		"runner": map[string]any{"name": runnerName}, "matrix": ghexpr.Unknown{}, "needs": ghexpr.Unknown{}}
	size := len(t.Env)
	if t.Launch != nil {
		size += len(t.Launch.Env)
	}
	strEnv := make(map[string]any, size)
	ctx["env"] = strEnv
	if partial {
		ctx["env"] = ghexpr.Partial(strEnv)
	}
	add := func(defs []EnvDef) {
		for _, d := range defs {
			if v, ok := ghexpr.Interpolate(d.Expr, ctx); ok {
				strEnv[d.Var] = v
			} else {
				delete(strEnv, d.Var)
			}
		}
	}
	add(t.Env)
	if t.Launch != nil {
		add(t.Launch.Env)
	}
	return strEnv
}

// envValue is the job env's variable of the definition d (the last of its
// name) over the env's known values text: its text where the expressions
// knew it, unknown where they did not, and where it is defined.
func envValue(d EnvDef, text map[string]any) sheval.Value {
	val := sheval.Opaque()
	if s, ok := text[d.Var].(string); ok {
		val = sheval.Str(s)
	}
	val.At = d.At
	return val
}

// lastDefs are the env blocks' variables by name, each with its last
// definition (the step's env after the job's, later after earlier): the
// one the job's env holds. It is made once per template (see
// indexEnv), or each time for one made otherwise.
func (t *Template) lastDefs() map[string]EnvDef {
	if t.defs != nil {
		return t.defs
	}
	return envIndex(t)
}

// indexEnv keeps the template's lastDefs; the template is not shared yet.
func (t *Template) indexEnv() *Template {
	t.defs = envIndex(t)
	return t
}

func envIndex(t *Template) map[string]EnvDef {
	out := make(map[string]EnvDef, len(t.Env)+8)
	for _, d := range t.Env {
		out[d.Var] = d
	}
	if t.Launch != nil {
		for _, d := range t.Launch.Env {
			out[d.Var] = d
		}
	}
	return out
}

// unknownVarPrefix names the shell variables that stand for expressions
// the bot cannot evaluate in a run script.
const unknownVarPrefix = "__REVIEWBOT_UNKNOWN_"

// LaunchScript is the launch step's run script with every `${{ }}`
// substituted as the runner does before bash sees it; an expression the
// bot cannot evaluate becomes a variable whose value is unknown. The text
// starts with blank lines so that its lines are the template's.
func (t *Template) LaunchScript(inputs map[string]any, env Env, runnerName string) string {
	return t.launchScript(t.withDefaults(inputs), env, runnerName)
}

// launchScript is LaunchScript with inputs as the expressions' inputs
// context (see jobEnv).
func (t *Template) launchScript(in any, env Env, runnerName string) string {
	text, _ := t.launchScriptExprs(in, env, runnerName)
	return text
}

// exprContext is the expressions' context of a job's launch step.
func exprContext(in any, env Env, runnerName string) ghexpr.Context {
	envCtx := map[string]any{}
	for k, v := range env {
		if s, ok := env.Get(k); ok && v.Set {
			envCtx[k] = s
		}
	}
	return stepContext(in, envCtx, runnerName)
}

// stepContext is exprContext with its env context given.
func stepContext(in, envCtx any, runnerName string) ghexpr.Context {
	return ghexpr.Context{"inputs": in, "env": envCtx, "secrets": ghexpr.Unknown{}, "vars": ghexpr.Unknown{}, "github": ghexpr.Unknown{},
		"runner": map[string]any{"name": runnerName}, "matrix": ghexpr.Unknown{}, "needs": ghexpr.Unknown{}}
}

// launchScriptExprs is launchScript and the expressions its unknown
// variables stand for, in order (the n-th is unknownVarPrefix+n).
func (t *Template) launchScriptExprs(in any, env Env, runnerName string) (string, []string) {
	return t.launchScriptCtx(exprContext(in, env, runnerName))
}

// openLaunchScript is launchScriptExprs for every job on a runner: every
// input unknown, and so every variable of the env its expressions make
// from one (see openJobEnv).
func (t *Template) openLaunchScript(runnerName string) (string, []string) {
	_, known := t.jobEnvOf(ghexpr.Unknown{}, runnerName, true)
	return t.launchScriptCtx(stepContext(ghexpr.Unknown{}, ghexpr.Partial(known), runnerName))
}

// launchScriptCtx is launchScriptExprs with the expressions' context.
func (t *Template) launchScriptCtx(ctx ghexpr.Context) (string, []string) {
	var b strings.Builder
	var exprs []string
	b.WriteString(strings.Repeat("\n", max(t.Launch.RunLine-1, 0)))
	s := t.Launch.Run
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		v, err := ghexpr.Eval(s[i+3:i+j], ctx)
		if err != nil || ghexpr.IsUnknown(v) {
			exprs = append(exprs, s[i+3:i+j])
			fmt.Fprintf(&b, "${%s%d}", unknownVarPrefix, len(exprs))
		} else {
			b.WriteString(ghexpr.String(v))
		}
		s = s[i+j+2:]
	}
	return b.String(), exprs
}
