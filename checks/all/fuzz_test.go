package all

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// fuzzSeeds are recipes in the real structure and the nesting that used
// to crash the process or take quadratic time, in every shape the shell
// parser recurses on.
func fuzzSeeds(tb testing.TB) []string {
	var seeds []string
	for _, glob := range []string{"../recipe/script/testdata/*.sh", "../recipe/script/testdata/*/*.sh", "../../testdata/trees/inferencex/benchmarks/*/*/*.sh"} {
		paths, err := filepath.Glob(glob)
		if err != nil {
			tb.Fatal(err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			seeds = append(seeds, string(b))
		}
	}
	for _, n := range []struct{ open, leaf, close string }{
		{"(", "true", ")"}, {"( ", "true", " )"}, {"$(", "true", ")"}, {"\"$(", "true", ")\""},
		{"$((", "1", "))"}, {"{ ", "true", "; }"}, {"if true; then ", "true", "; fi"},
		{"while true; do ", "true", "; done"}, {"case x in x) ", "true", ";; esac"},
		{"${X:-", "1", "}"}, {"f() { ", "true", "; }"}, {"cat <(", "true", ")"}, {"$(cat <<E\n", "x", "\nE\n)"},
	} {
		for _, depth := range []int{3, 300, 3000} {
			seeds = append(seeds, "#!/usr/bin/env bash\n"+strings.Repeat(n.open, depth)+n.leaf+strings.Repeat(n.close, depth)+"\nvllm serve \"$MODEL\" --port 8888\n")
		}
	}
	for _, chain := range []string{" && true", " | cat", " || :"} {
		seeds = append(seeds, "#!/usr/bin/env bash\ntrue"+strings.Repeat(chain, 3000)+"\n")
	}
	seeds = append(seeds, "#!/usr/bin/env bash\nX=$(("+strings.Repeat("1+", 3000)+"1))\n",
		"#!/usr/bin/env bash\n"+strings.Repeat("# comment\n", 3000)+"vllm serve m\n",
		"\x7fELF\x02\x01\x01\x00\x00\x00")
	return seeds
}

// FuzzReviewRecipe takes what a PR's recipe goes through, end to end: the
// bounds, the shell parser, fact extraction and every rule of the
// registry, with the recipe's siblings and the PR's other changes around
// it. Whatever the bytes, the review must finish with no rule error and
// no panic (a stack overflow would kill the fuzzer); a recipe it could
// not parse is an SH014 finding, never a silent nothing.
//
//	go test ./checks/all -run '^$' -fuzz FuzzReviewRecipe -fuzztime 10m
func FuzzReviewRecipe(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add([]byte(s))
	}
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, filepath.Join(fixturesDir, "sh003-seed001-lmcache-arm"))
	if err != nil {
		f.Fatal(err)
	}
	reg, err := Registry()
	if err != nil {
		f.Fatal(err)
	}
	cache := checks.NewParseCache(0)
	const target = "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh"
	f.Fuzz(func(t *testing.T, src []byte) {
		head := &trees.Overlay{Lower: fx.Head, Upper: checks.NewMemTree(map[string]string{target: string(src)})}
		files, err := trees.Diff(ctx, fx.Base, head)
		if err != nil {
			t.Fatal(err)
		}
		res, err := checks.Review(ctx, reg, &checks.Change{Base: fx.Base, Head: head, Files: files, PR: fx.PR, Date: fixtureDate, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Errors {
			t.Errorf("rule error: %v", e)
		}
		changed := false
		for _, fc := range files {
			changed = changed || fc.Path == target && fc.Changed()
		}
		if _, perr := script.Parse(target, src); changed && script.IsParseError(perr) {
			for _, f := range res.Findings {
				if f.Rule == "SH014" && f.Path == target {
					return
				}
			}
			t.Errorf("the recipe does not parse (%v) and SH014 says nothing", perr)
		}
	})
}
