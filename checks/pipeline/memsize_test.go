package pipeline

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

// TestMemSizeIsHonest compares what a parse cache is charged for the
// pipeline model of a tree (parsed inputs, evaluations, the kept model
// with every row resolved) with the heap the cache holds: the evaluations
// and the kept model grow after they are stored, and re-charge the cache
// as they do.
func TestMemSizeIsHonest(t *testing.T) {
	cases := map[string]struct {
		tree   func(t *testing.T) checks.Tree
		copies int
	}{
		"fixture": {func(t *testing.T) checks.Tree { return newIDTree(fixtureFiles(t)) }, 40},
		// The fixture's keys forty times over, under other names: the
		// evaluations and resolutions, not the parsed files, dominate.
		"many keys": {func(t *testing.T) checks.Tree {
			files := fixtureFiles(t)
			const p = "configs/nvidia-master.yaml"
			var b strings.Builder
			b.WriteString(files[p])
			for i := range 40 {
				b.WriteString("\n" + topKey.ReplaceAllString(files[p], fmt.Sprintf("${1}-copy%d:", i)))
			}
			files[p] = b.String()
			return newIDTree(files)
		}, 4},
		"real": {func(t *testing.T) checks.Tree { return mirrorTree(t, "main") }, 2},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tree := tc.tree(t)
			buildFor(t, tree, checks.NewParseCache(1<<30)).ResolveAll() // the tree's own caches warm
			checktest.SizeCheck(t, func() []any {
				out := make([]any, tc.copies)
				for i := range out {
					cache := checks.NewParseCache(1 << 30)
					buildFor(t, tree, cache).ResolveAll()
					out[i] = cache
				}
				return out
			}, func(v any) int64 { return v.(*checks.ParseCache).Bytes() })
		})
	}
}

// topKey is a master config's top-level key line.
var topKey = regexp.MustCompile(`(?m)^([a-z0-9][a-z0-9.-]*):$`)
