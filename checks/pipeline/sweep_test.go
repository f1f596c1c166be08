package pipeline

import (
	"reflect"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/pipeline/ghexpr"
)

func mustSweep(t *testing.T, text string) *Sweep {
	t.Helper()
	s, err := ParseSweep(SweepPath, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestParseSweep: the sweep workflow's jobs that call a benchmark
// template, with their matrix expression and `with:` inputs (a block
// shared by a YAML anchor is read at each alias; non-scalar values are
// not inputs). Other jobs are left out.
func TestParseSweep(t *testing.T) {
	s := mustSweep(t, smallFiles[SweepPath])
	var names []string
	for _, j := range s.Jobs {
		names = append(names, j.Name)
	}
	if want := []string{"sweep-single-node-1k1k", "sweep-single-node-8k1k", "sweep-single-node-eval", "sweep-agentic", "sweep-multi-node-8k1k"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("jobs %v, want %v (setup calls no template)", names, want)
	}
	first, aliased := s.Jobs[0], s.Jobs[1]
	if first.Template != TemplatePaths[SingleNode] || first.Line != 13 {
		t.Errorf("first job: template %q at line %d", first.Template, first.Line)
	}
	if !strings.Contains(first.Matrix, "single_node['1k1k']") {
		t.Errorf("matrix %q", first.Matrix)
	}
	if len(first.With) != 15 || first.With["tp"] != "${{ matrix.config.tp }}" {
		t.Errorf("with %v", first.With)
	}
	if !reflect.DeepEqual(aliased.With, first.With) || !reflect.DeepEqual(aliased.Lines, first.Lines) {
		t.Error("the aliased with: block should read as the anchored one")
	}
	if first.Lines["tp"] != 31 {
		t.Errorf("tp passed at line %d, want 31", first.Lines["tp"])
	}
	if s.Jobs[4].Template != TemplatePaths[MultiNode] {
		t.Errorf("multi-node job calls %q", s.Jobs[4].Template)
	}

	odd := mustSweep(t, `jobs:
  a:
    uses: ./.github/workflows/benchmark-tmpl.yml
    with:
      list: [1, 2]
      map: {x: 1}
      ok: 'none'
  b:
    uses: ./.github/workflows/benchmark-tmpl.yml
    with: lots
  c:
    uses: org/repo/.github/workflows/benchmark-multinode-tmpl.yml@v1
`)
	if got := odd.Jobs[0].With; !reflect.DeepEqual(got, map[string]string{"ok": "none"}) {
		t.Errorf("with of scalars only: %v", got)
	}
	if len(odd.Jobs[1].With) != 0 || odd.Jobs[1].Matrix != "" {
		t.Errorf("a scalar with: passes nothing: %+v", odd.Jobs[1])
	}
	if len(odd.Jobs) != 2 {
		t.Errorf("%d jobs; a call pinned to another repository (ending in @v1) is not a template of the tree", len(odd.Jobs))
	}
}

// TestParseSweepRejects: a sweep the bot cannot read is an error (the
// model then passes matrix fields as inputs), never a panic.
func TestParseSweepRejects(t *testing.T) {
	for name, text := range map[string]string{
		"bad YAML":          "jobs: {a: [\n",
		"no jobs":           "name: x\n",
		"jobs is a list":    "jobs: [a, b]\n",
		"no template calls": "jobs:\n  a:\n    uses: ./.github/workflows/lint.yml\n",
		"empty":             "",
		"too large":         "x: '" + strings.Repeat("a", maxTemplateBytes) + "'\n",
	} {
		t.Run(name, func(t *testing.T) {
			s, err := ParseSweep(SweepPath, []byte(text))
			if err == nil || s != nil {
				t.Fatalf("got %+v, %v; want an error", s, err)
			}
			if !strings.Contains(err.Error(), SweepPath) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestParseSweepSelfAlias: a with: block that is an alias of its own job
// (a recursive anchor) is read once, its scalars as inputs, without
// looping.
func TestParseSweepSelfAlias(t *testing.T) {
	s := mustSweep(t, "jobs:\n  a: &a\n    uses: ./.github/workflows/benchmark-tmpl.yml\n    with: *a\n")
	if len(s.Jobs) != 1 || !reflect.DeepEqual(s.Jobs[0].With, map[string]string{"uses": "./.github/workflows/benchmark-tmpl.yml"}) {
		t.Errorf("got %+v", s.Jobs)
	}
}

// TestSweepJob: the job that runs a row: the one calling the row's
// template whose matrix is the row's bucket (agentic, or its sequence
// length by short name), never an eval or canary job; a fixed-seq-len row
// of a length no job names falls back to the template's first such job.
func TestSweepJob(t *testing.T) {
	s := mustSweep(t, smallFiles[SweepPath]+`
  canary-multi-node-1k1k:
    uses: ./.github/workflows/benchmark-multinode-tmpl.yml
    strategy:
      matrix:
        config: ${{ fromJson(needs.setup.outputs.search-space-config).multi_node['1k1k'] }}
`)
	for _, c := range []struct {
		kind    JobKind
		agentic bool
		seqLen  string
		want    string
	}{
		{SingleNode, false, "1k1k", "sweep-single-node-1k1k"},
		{SingleNode, false, "8k1k", "sweep-single-node-8k1k"},
		{SingleNode, false, "2048_512", "sweep-single-node-1k1k"},
		{SingleNode, true, "0_0", "sweep-agentic"},
		{MultiNode, false, "8k1k", "sweep-multi-node-8k1k"},
		{MultiNode, false, "1k1k", "sweep-multi-node-8k1k"},
		{MultiNode, true, "0_0", ""},
	} {
		got := s.Job(c.kind, c.agentic, c.seqLen)
		name := ""
		if got != nil {
			name = got.Name
		}
		if name != c.want {
			t.Errorf("Job(%s, agentic %v, %s) = %q, want %q", c.kind, c.agentic, c.seqLen, name, c.want)
		}
	}
	if (*Sweep)(nil).Job(SingleNode, false, "1k1k") != nil {
		t.Error("no sweep: no job")
	}
}

// TestSweepJobInputs: a job's inputs for a matrix entry: a whole `${{ }}`
// keeps the value's type, text around expressions makes a string, a
// hard-coded value stays as written, and what the bot cannot evaluate
// (another context, a bad expression) is unknown.
func TestSweepJobInputs(t *testing.T) {
	j := &SweepJob{With: map[string]string{
		"tp":        "${{ matrix.config.tp }}",
		"dp-attn":   "${{ matrix.config.dp-attn }}",
		"conc-list": "${{ toJson(matrix.config.conc) }}",
		"backend":   "${{ matrix.config['kv-offload-backend'].name }}",
		"exp":       "run-${{ matrix.config.exp-name }}",
		"fixed":     "none",
		"missing":   "${{ matrix.config.nope }}",
		"secret":    "${{ secrets.TOKEN }}",
		"mixed":     "${{ secrets.TOKEN }}-x",
		"bad":       "${{ matrix.config.tp +* }}",
	}}
	in := j.Inputs(Point{"tp": 8, "dp-attn": true, "conc": []any{1, 2}, "exp-name": "m_1k1k",
		"kv-offload-backend": map[string]any{"name": "lmcache"}})
	for k, want := range map[string]any{
		"tp": 8, "dp-attn": true, "backend": "lmcache", "exp": "run-m_1k1k", "fixed": "none", "missing": nil,
	} {
		if !reflect.DeepEqual(in[k], want) {
			t.Errorf("%s = %#v, want %#v", k, in[k], want)
		}
	}
	if s, _ := in["conc-list"].(string); strings.Join(strings.Fields(s), "") != "[1,2]" {
		t.Errorf("conc-list = %#v", in["conc-list"])
	}
	for _, k := range []string{"secret", "mixed", "bad"} {
		if !ghexpr.IsUnknown(in[k]) {
			t.Errorf("%s = %#v, want unknown", k, in[k])
		}
	}
	if len(in) != len(j.With) {
		t.Errorf("%d inputs for %d with: entries", len(in), len(j.With))
	}
}
