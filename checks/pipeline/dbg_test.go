package pipeline

import (
	"context"
	"os"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func TestDbgOne(t *testing.T) {
	rev := os.Getenv("PL_REV")
	if rev == "" {
		t.Skip()
	}
	tree := mirrorTree(t, rev)
	ctx := context.Background()
	cfg, _ := checks.LoadConfig(ctx, tree)
	cfg.ResolveLayout(ctx, tree)
	m, _ := Build(ctx, tree, cfg, nil)
	for _, r := range m.Key(os.Getenv("PL_KEY"))[:1] {
		for _, l := range m.Resolve(r).Groups {
			t.Logf("group %s launcher %s err %v", l.Group.Name, l.Launcher, l.Err)
			if l.Result == nil {
				continue
			}
			for i, p := range l.Result.Paths {
				t.Logf("path %d exit %v certain %v runs %d", i, p.Exit, p.Certain, len(p.Runs))
				for _, run := range p.Runs {
					t.Logf("   run %s %q known=%v at %v", run.Path, run.Text, run.Known, run.At)
				}
				for _, d := range p.Decisions {
					t.Logf("   dec %v %v %s", d.At, d.Took, d.Text())
				}
			}
		}
	}
}
