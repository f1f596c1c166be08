package all

import (
	"context"
	"fmt"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// siblingsPR is a PR that adds n recipes to the 200 of the benchmark
// directory: every rule that judges a recipe by its siblings sees the
// group grow with the PR.
func siblingsPR(tb testing.TB, n int) (*recipeBenchTree, *recipeBenchTree, []*checks.FileChange) {
	base, head, _ := recipeBenchPR(tb)
	for i := range n {
		head[recipeBenchDir+fmt.Sprintf("new%04d_", i)+recipeBenchName(200+i)] = recipeBenchRecipe(200 + i)
	}
	bt, ht := newRecipeBenchTree(base), newRecipeBenchTree(head)
	files, err := trees.Diff(context.Background(), bt, ht)
	if err != nil {
		tb.Fatal(err)
	}
	return bt, ht, files
}

// BenchmarkReviewSiblingsPR reviews a PR adding 100, 500 and 1,000 sibling
// recipes with the full registry, from a cold parse cache: the cost must
// grow with the number of recipes, not its square.
//
//	go test ./checks/all -run '^$' -bench BenchmarkReviewSiblingsPR -benchmem
func BenchmarkReviewSiblingsPR(b *testing.B) {
	reg, err := Registry()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100, 500, 1000} {
		bt, ht, files := siblingsPR(b, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				ch := &checks.Change{Base: bt, Head: ht, Files: files, PR: checks.PRInfo{Number: 1}, Date: fixtureDate, Cache: checks.NewParseCache(0)}
				res, err := checks.Review(context.Background(), reg, ch)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Errors) > 0 {
					b.Fatal(res.Errors)
				}
			}
			cpu.report(b)
		})
	}
}
