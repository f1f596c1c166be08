package convention

import (
	"context"
	"fmt"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// bigGroup is a directory of n vLLM recipes that vary the way real ones
// do: arms present or not, model-specific values, optional flags.
func bigGroup(n int) map[string]any {
	files := map[string]any{}
	for i := 0; i < n; i++ {
		var arms []armSpec
		if i%2 == 0 {
			arms = append(arms, alphaArm(i%17 != 0))
		}
		if i%3 == 0 {
			arms = append(arms, betaArm())
		}
		flags := []string{
			fmt.Sprintf("--gpu-memory-utilization 0.%d", 80+i%15),
			fmt.Sprintf("--max-model-len %d", 1024*(1+i%8)),
			"--kv-cache-dtype fp8",
		}
		if i%5 != 0 {
			flags = append(flags, toolFlags...)
		}
		if i%4 == 0 {
			flags = append(flags, "--enable-prefix-caching", fmt.Sprintf("--block-size %d", 16<<(i%3)))
		}
		top := []string{
			fmt.Sprintf("export MODEL_DIR=/models/m%d", i),
			"export VLLM_ENGINE_READY_TIMEOUT_S=3600",
		}
		if i%7 == 0 {
			top = append(top, fmt.Sprintf("export ACC_LEN=2.%d", i%9), "export ACC_METHOD=match")
		}
		files[agentic(fmt.Sprintf("m%03d_fp4_b200", i))] = recipeSpec{top: top, arms: arms, flags: flags}
	}
	return files
}

// BenchmarkMineGroup mines a 200-recipe group from scratch (parsing
// included): the cost of a first review of a directory.
func BenchmarkMineGroup(b *testing.B) {
	tr := tree(bigGroup(200))
	ctx := context.Background()
	cfg := &checks.Config{}
	if err := cfg.ResolveLayout(ctx, tr); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ch := &checks.Change{Base: tr, Head: tr, Config: cfg}
		m, err := loadGroup(ctx, ch, agentic("m000_fp4_b200"), "vllm", DefaultThresholds)
		if err != nil || len(m.members) != 200 {
			b.Fatal(err)
		}
	}
}

// BenchmarkReviewWarm reviews a one-file change to a 200-recipe group
// with a warm parse cache (scripts parsed and the group mined by an
// earlier review): the steady state of the App.
func BenchmarkReviewWarm(b *testing.B) {
	base := bigGroup(200)
	p := agentic("m001_fp4_b200")
	head := with(base, p, recipeSpec{arms: []armSpec{alphaArm(false)}, flags: toolFlags})
	bt, ht := tree(base), tree(head)
	ctx := context.Background()
	files, err := trees.Diff(ctx, bt, ht)
	if err != nil {
		b.Fatal(err)
	}
	reg, err := checks.NewRegistry(CV001)
	if err != nil {
		b.Fatal(err)
	}
	cache := checks.NewParseCache(0)
	run := func() *checks.Result {
		ch := &checks.Change{Base: bt, Head: ht, Files: files, Cache: cache}
		res, err := checks.Review(ctx, reg, ch)
		if err != nil || len(res.Errors) > 0 {
			b.Fatal(err, res.Errors)
		}
		return res
	}
	if res := run(); len(res.Findings) != 1 {
		b.Fatalf("findings %+v", res.Findings)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		run()
	}
}
