package history

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// Run hands out each record before it reviews the next PR and keeps none:
// a replay of a repository's whole history holds one review at a time.
func TestRunStreams(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for i := 1; i <= 5; i++ {
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(strconv.Itoa(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", ".")
		git("commit", "-q", "-m", "Change "+strconv.Itoa(i)+" (#"+strconv.Itoa(i)+")")
	}
	ctx := context.Background()
	repo, err := trees.OpenRepo(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	emitted, reviews := 0, 0
	reg, err := checks.NewRegistry(&checks.Rule{ID: "T001", Severity: checks.Warning, Title: "t", Doc: "d",
		Run: func(p *checks.Pass) error {
			if emitted != reviews {
				t.Errorf("review %d started with %d records handed out", reviews+1, emitted)
			}
			reviews++
			p.Report(checks.Finding{Path: "f.txt", Line: 1, Title: "t", Body: "b"})
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	var prs []int
	s, err := Run(ctx, repo, reg, Options{Config: &checks.Config{}}, func(r *Record) error {
		emitted++
		prs = append(prs, r.PR)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The first commit has no parent to review against: an error record.
	if len(prs) != 5 || prs[0] != 5 || s.PRs != 5 || s.Reviewed != 4 || s.Rules[0].Warning != 4 {
		t.Errorf("records %v, summary %+v", prs, s)
	}
}
