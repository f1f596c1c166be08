package all

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// mirror is a local copy of the real repository; the benchmarks below skip
// without it (CI has none).
const mirror = "/work/.mirror/SemiAnalysisAI+InferenceX/repo"

// mirrorPR is the PR the mirror benchmarks review: #2707, which changes a
// single-node agentic recipe and its config row (the common shape), at the
// head GitHub showed.
const mirrorPR = 2707

func openMirror(b testing.TB) *trees.Repo {
	b.Helper()
	if _, err := os.Stat(mirror); err != nil {
		b.Skip("no mirror of the real repository at " + mirror)
	}
	repo, err := trees.OpenRepo(context.Background(), mirror)
	if err != nil {
		b.Skip(err)
	}
	b.Cleanup(func() { repo.Close() })
	return repo
}

// mirrorMain is the mirror's main tree and its configuration.
func mirrorMain(b *testing.B) (checks.Tree, *checks.Config) {
	b.Helper()
	repo := openMirror(b)
	ctx := context.Background()
	tree, err := repo.Tree(ctx, "main")
	if err != nil {
		b.Fatal(err)
	}
	cfg, err := checks.LoadConfig(ctx, tree)
	if err != nil {
		b.Fatal(err)
	}
	if err := cfg.ResolveLayout(ctx, tree); err != nil {
		b.Fatal(err)
	}
	return tree, cfg
}

// BenchmarkPipelineModel builds the pipeline model of the real tree at the
// mirror's main and resolves every row (what PL002 and a changed launcher
// need). cold starts from an empty parse cache; warm reuses one, as the
// next review of a tree whose launchers did not change does.
func BenchmarkPipelineModel(b *testing.B) {
	ctx := context.Background()
	tree, cfg := mirrorMain(b)
	build := func(cache *checks.ParseCache) {
		m, err := pipeline.Build(ctx, checks.NewCachedTree(tree), cfg, cache)
		if err != nil {
			b.Fatal(err)
		}
		m.ResolveAll()
		if len(m.Rows) == 0 {
			b.Fatal("no rows")
		}
	}
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			build(checks.NewParseCache(0))
		}
	})
	b.Run("warm", func(b *testing.B) {
		cache := checks.NewParseCache(0)
		build(cache)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			build(cache)
		}
	})
}

// BenchmarkPipelineReachers asks a cold model of the real tree which rows
// run one recipe (what a PR changing it needs): the launch readings admit
// a few rows, and only those are resolved.
func BenchmarkPipelineReachers(b *testing.B) {
	ctx := context.Background()
	tree, cfg := mirrorMain(b)
	const recipe = "benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh"
	b.ReportAllocs()
	for b.Loop() {
		m, err := pipeline.Build(ctx, checks.NewCachedTree(tree), cfg, checks.NewParseCache(0))
		if err != nil {
			b.Fatal(err)
		}
		if len(m.Reachers(recipe)) == 0 {
			b.Fatal("no row runs " + recipe)
		}
	}
}

// BenchmarkMirrorReview reviews a real PR of the mirror with every rule:
// cold from an empty parse cache, warm with the cache of a first review.
func BenchmarkMirrorReview(b *testing.B) {
	repo := openMirror(b)
	ctx := context.Background()
	pr := mirrorPR
	if s := os.Getenv("BENCH_PR"); s != "" {
		fmt.Sscan(s, &pr)
	}
	prs, err := repo.MergedPRs(ctx, "main", 0)
	if err != nil {
		b.Fatal(err)
	}
	var sha string
	for _, p := range prs {
		if p.Number == pr {
			sha = p.SHA
		}
	}
	if sha == "" {
		b.Skipf("PR #%d is not in the mirror", pr)
	}
	head := sha
	if ref := fmt.Sprintf("refs/pull/%d/head", pr); repo.HasRevision(ctx, ref) {
		head = ref
	}
	gc, err := repo.OpenChange(ctx, sha+"^", head)
	if err != nil {
		b.Fatal(err)
	}
	reg, err := Registry()
	if err != nil {
		b.Fatal(err)
	}
	run := func(cache *checks.ParseCache) *checks.Result {
		ch := &checks.Change{Base: gc.Base, Head: gc.Head, Files: gc.Files, Cache: cache,
			PR:   checks.PRInfo{Number: pr, Owner: "SemiAnalysisAI", Repo: "InferenceX", BaseSHA: gc.BaseSHA, HeadSHA: gc.HeadSHA},
			Date: time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC)}
		res, err := checks.Review(ctx, reg, ch)
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	benchColdWarm(b, run)
}
