package pipeline

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// TestScanHistory lists, for each revision of the mirror in PL_SCAN
// (space-separated), the rows whose job misses a required variable and the
// tests constant over their domain, whether a PR changed them or not: how
// the real cases PL005 and PL006 were looked for. It skips unless PL_SCAN
// is set and the mirror is present.
func TestScanHistory(t *testing.T) {
	revs := os.Getenv("PL_SCAN")
	if revs == "" {
		t.Skip()
	}
	cache := checks.NewParseCache(0)
	for _, rev := range strings.Fields(revs) {
		tree := mirrorTree(t, rev)
		ctx := context.Background()
		cfg, _ := checks.LoadConfig(ctx, tree)
		_ = cfg.ResolveLayout(ctx, tree)
		m, err := Build(ctx, tree, cfg, cache)
		if err != nil {
			t.Logf("%s: %v", rev, err)
			continue
		}
		m.ResolveAll()
		seen := map[string]bool{}
		scripts := map[string]bool{}
		for _, r := range m.Rows {
			for _, x := range requirements(m, r) {
				k := r.Key.Name + " " + x.fp()
				if !seen[k] {
					seen[k] = true
					t.Logf("%s PL005 %s %s at %s (%s) via %s", rev, r.Key.Name, x.req.Var, x.req.At, x.req.How, x.launch.Launcher)
				}
			}
			for _, l := range m.Resolve(r).Groups {
				for _, tg := range m.Outcome(l).Targets {
					if tg.Exists && tg.Run.Kind == RunScript {
						scripts[tg.Run.Path] = true
					}
				}
			}
		}
		for s := range scripts {
			for _, ct := range constantTests(m, s, m.Reachers(s)) {
				t.Logf("%s PL006 %s:%d", rev, s, ct.cond.Line)
			}
		}
	}
}
