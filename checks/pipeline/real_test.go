package pipeline

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/pipeline/schema"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// mirror is the local mirror of the real repository; tests that read it
// skip when it is absent (CI has no copy).
const mirror = "/work/.mirror/SemiAnalysisAI+InferenceX/repo"

func mirrorTree(t testing.TB, rev string) checks.Tree {
	t.Helper()
	if _, err := os.Stat(mirror); err != nil {
		t.Skip("no mirror of the real repository")
	}
	ctx := context.Background()
	repo, err := trees.OpenRepo(ctx, mirror)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { repo.Close() })
	tr, err := repo.Tree(ctx, rev)
	if err != nil {
		t.Fatal(err)
	}
	return checks.NewCachedTree(tr)
}

func TestRealModelExplore(t *testing.T) {
	rev := os.Getenv("PL_REV")
	if rev == "" {
		t.Skip("set PL_REV")
	}
	tree := mirrorTree(t, rev)
	ctx := context.Background()
	cfg, _ := checks.LoadConfig(ctx, tree)
	if err := cfg.ResolveLayout(ctx, tree); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	m, err := Build(ctx, tree, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("build %v: %d rows, templates err %v, runners %v", time.Since(start), len(m.Rows), m.TemplateErr, m.RunnersErr)
	start = time.Now()
	m.ResolveAll()
	t.Logf("resolve all %v", time.Since(start))
	broken, unknown, ok := 0, 0, 0
	for _, r := range m.Rows {
		for _, l := range m.Resolve(r).Groups {
			o := m.Outcome(l)
			switch {
			case l.Err != nil:
				t.Logf("ERR %s %s: %v", r, l.Group.Name, l.Err)
			case o.Broken:
				broken++
				if os.Getenv("PL_V") != "" {
					var tg []string
					for _, x := range o.Targets {
						tg = append(tg, x.Run.Path)
					}
					t.Logf("BROKEN %s on %s via %s: targets %v exits %v", r, l.Group.Name, l.Launcher, tg, o.Exits)
				}
			case o.Unknown:
				unknown++
				if os.Getenv("PL_U") != "" {
					t.Logf("UNKNOWN %s on %s via %s incomplete=%v", r, l.Group.Name, l.Launcher, l.Result != nil && l.Result.Incomplete)
				}
			default:
				ok++
			}
		}
	}
	t.Logf("launches: ok %d broken %d unknown %d", ok, broken, unknown)
}

func TestSchemaRealValidation(t *testing.T) {
	for _, rev := range []string{"main", "bcf78399f^", "9c0fcc9af"} {
		tree := mirrorTree(t, rev)
		b, err := tree.ReadFile(context.Background(), "utils/matrix_logic/validation.py")
		if err != nil {
			t.Fatal(err)
		}
		s, err := schema.Parse("validation.py", b)
		if err != nil {
			t.Errorf("%s: %v", rev, err)
			continue
		}
		if len(s.Fields) < 20 || s.Models["WorkerConfig"] == nil {
			t.Errorf("%s: %d fields, models %d", rev, len(s.Fields), len(s.Models))
		}
	}
}
