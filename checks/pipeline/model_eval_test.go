package pipeline

import (
	"context"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/sheval"
)

// A recipe the tree lacks may be in the clone the launcher copied the
// tree's recipes into: the outcome is unknown, not broken.
func TestOutcomeOfARecipeInTheClone(t *testing.T) {
	files := map[string]string{
		"benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml": "name: a\n",
		"runners/launch_x.sh": `#!/usr/bin/bash
git clone https://example.invalid/srt.git srt
cd srt
cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/m" recipes/m
srtctl apply -f "$CONFIG_FILE"
`,
	}
	tf := sheval.NewTreeFiles(context.Background(), checks.NewMemTree(files), nil)
	ev := &Eval{Files: tf}
	res, err := ev.Run("runners/launch_x.sh", envOf("CONFIG_FILE", "recipes/m/missing.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := &Model{files: tf}
	if o := m.Outcome(&Launch{Result: res}); o.Broken || !o.Unknown {
		t.Errorf("outcome %+v", o)
	}
}

func TestParseGenerator(t *testing.T) {
	g := ParseGenerator("gen.py", []byte("import json\nMIN_EVAL_CONC = 16\nMAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB = 1_000_000  # cap\n"))
	if g.MaxAgenticDRAMMiB != 1_000_000 || g.Path != "gen.py" {
		t.Errorf("got %+v", g)
	}
	if g := ParseGenerator("gen.py", []byte("x = 1\n")); g.MaxAgenticDRAMMiB != defaultGenerator.MaxAgenticDRAMMiB {
		t.Errorf("a generator without the constant keeps the default, got %+v", g)
	}
}
