package convention

import (
	"context"
	"fmt"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// bigCorpus is n vLLM recipes of n/4 model families that vary the way
// real ones do: connector arms present or not, speculative configs of two
// methods, optional options, model-specific values.
func bigCorpus(n int) map[string]string {
	files := map[string]string{}
	hw := []string{"b200", "b300", "h200", "mi355x"}
	for i := 0; i < n; i++ {
		var arms []arm
		if i%2 == 0 {
			arms = append(arms, mooncakeArm(i%17 != 0))
		}
		if i%3 == 0 {
			arms = append(arms, nativeArm())
		}
		flags := []string{
			fmt.Sprintf("--gpu-memory-utilization 0.%d", 80+i%15),
			fmt.Sprintf("--max-model-len %d", 1024*(1+i%8)),
			"--kv-cache-dtype fp8",
		}
		if i%5 != 0 {
			flags = append(flags, "--tool-call-parser x", "--enable-auto-tool-choice")
		}
		if i%4 == 0 {
			flags = append(flags, "--enable-prefix-caching", fmt.Sprintf("--block-size %d", 16<<(i%3)))
		}
		if i%3 == 1 {
			flags = append(flags, "--kv_offloading_backend native", fmt.Sprintf("--kv_offloading_size %d", 64+i))
		}
		switch i % 7 {
		case 0:
			flags = append(flags, fmt.Sprintf(`--speculative-config '{"method":"eagle3","model":"org/m%d-eagle3","num_speculative_tokens":3}'`, i))
		case 1, 2:
			flags = append(flags, `--speculative-config '{"method":"mtp","num_speculative_tokens":2}'`)
		}
		files[agentic(fmt.Sprintf("m%03d_fp4_%s_vllm", i/4, hw[i%4]))] = vllmRecipe(arms, flags...)
	}
	return files
}

// BenchmarkMineCorpus mines a 200-recipe engine corpus from scratch
// (parsing included) and evaluates every candidate: the cost of a first
// review of a base tree, or of `reviewbot conventions`.
func BenchmarkMineCorpus(b *testing.B) {
	tr := memTree(bigCorpus(200))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ch := &checks.Change{Base: tr, Head: tr}
		c, err := loadCorpus(ctx, ch, script.VLLM)
		if err != nil || len(c.profiles) != 200 {
			b.Fatal(err)
		}
		if len(beliefsOf(c, nil)) == 0 {
			b.Fatal("no beliefs")
		}
	}
}

// BenchmarkReviewWarm reviews a one-file change against a 200-recipe
// corpus with a warm parse cache (scripts parsed and the corpus mined by
// an earlier review of the same base tree): the steady state of the App.
func BenchmarkReviewWarm(b *testing.B) {
	base := bigCorpus(200)
	p := agentic("m001_fp4_b300_vllm")
	head := with(base, p, vllmRecipe([]arm{mooncakeArm(false), nativeArm()}, "--max-num-seqs 8"))
	bt, ht := memTree(base), memTree(head)
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
