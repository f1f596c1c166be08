package pipeline

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/ghexpr"
)

// The sweep workflow (.github/workflows/run-sweep.yml) calls the benchmark
// templates with a matrix of the generator's entries, one job per scenario
// bucket, and says in each job's `with:` which matrix field becomes which
// input. Those blocks are the link from a row's fields to the job's
// inputs; a block that hard-codes an input (`spec-decoding: 'none'`)
// drops what the row declares.

// SweepPath is where the repository keeps its sweep workflow.
const SweepPath = ".github/workflows/run-sweep.yml"

// Sweep is what the bot reads of the sweep workflow.
type Sweep struct {
	Path string
	Jobs []*SweepJob
}

// SweepJob is a job that calls a benchmark template.
type SweepJob struct {
	Name     string
	Line     int
	Template string
	// Matrix is the expression of its matrix's config.
	Matrix string
	// With are the inputs it passes, as expressions, with their lines.
	With  map[string]string
	Lines map[string]int
}

// ParseSweep reads the sweep workflow's template calls.
func ParseSweep(p string, b []byte) (*Sweep, error) {
	if len(b) > maxTemplateBytes {
		return nil, fmt.Errorf("%s: too large", p)
	}
	doc, err := yamlx.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	s := &Sweep{Path: p}
	for _, job := range yamlx.Pairs(yamlx.Get(yamlx.Root(doc), "jobs")) {
		uses := yamlx.Scalar(yamlx.Get(job.Value, "uses"))
		if !strings.Contains(uses, "benchmark") || !strings.HasSuffix(uses, "-tmpl.yml") {
			continue
		}
		j := &SweepJob{Name: job.Key.Value, Line: job.Key.Line, Template: strings.TrimPrefix(uses, "./"),
			With: map[string]string{}, Lines: map[string]int{}}
		j.Matrix = yamlx.Scalar(yamlx.Get(yamlx.Get(yamlx.Get(job.Value, "strategy"), "matrix"), "config"))
		with := yamlx.Get(job.Value, "with")
		for with != nil && with.Kind == yaml.AliasNode {
			with = with.Alias
		}
		for _, kv := range yamlx.Pairs(with) {
			v := kv.Value
			for v.Kind == yaml.AliasNode {
				v = v.Alias
			}
			if v.Kind == yaml.ScalarNode {
				j.With[kv.Key.Value] = v.Value
				j.Lines[kv.Key.Value] = kv.Key.Line
			}
		}
		s.Jobs = append(s.Jobs, j)
	}
	if len(s.Jobs) == 0 {
		return nil, fmt.Errorf("%s: no job calls a benchmark template", p)
	}
	return s, nil
}

// Job returns the job that runs a row: the one calling the row's template
// whose matrix is the row's bucket (agentic, or its sequence length), not
// a canary, eval or profile job.
func (s *Sweep) Job(kind JobKind, agentic bool, seqLen string) *SweepJob {
	if s == nil {
		return nil
	}
	tmpl := TemplatePaths[kind]
	var fallback *SweepJob
	for _, j := range s.Jobs {
		if j.Template != tmpl {
			continue
		}
		m := j.Matrix
		if strings.Contains(m, "eval") || strings.Contains(j.Name, "eval") || strings.Contains(j.Name, "canary") {
			continue
		}
		isAgentic := strings.Contains(m, "agentic")
		if isAgentic != agentic {
			continue
		}
		if agentic || strings.Contains(m, "'"+seqLen+"'") {
			return j
		}
		if fallback == nil {
			fallback = j
		}
	}
	return fallback
}

// Inputs evaluates the job's `with:` block for a matrix entry.
func (j *SweepJob) Inputs(pt Point) map[string]any {
	ctx := ghexpr.Context{"matrix": map[string]any{"config": map[string]any(pt)}, "github": ghexpr.Unknown{},
		"needs": ghexpr.Unknown{}, "secrets": ghexpr.Unknown{}, "vars": ghexpr.Unknown{}, "inputs": ghexpr.Unknown{}}
	in := make(map[string]any, len(j.With))
	for name, expr := range j.With {
		in[name] = withValue(expr, ctx)
	}
	return in
}

// withValue is an input's value: an expression's typed value when the
// whole value is one `${{ }}`, otherwise the interpolated string.
func withValue(expr string, ctx ghexpr.Context) any {
	t := strings.TrimSpace(expr)
	if strings.HasPrefix(t, "${{") && strings.HasSuffix(t, "}}") && strings.Count(t, "${{") == 1 {
		v, err := ghexpr.Eval(t[3:len(t)-2], ctx)
		if err != nil {
			return ghexpr.Unknown{}
		}
		return v
	}
	s, ok := ghexpr.Interpolate(expr, ctx)
	if !ok {
		return ghexpr.Unknown{}
	}
	return s
}
