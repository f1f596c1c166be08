package history

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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

// Review reviews one change from the merge base of its base and head, with
// the PR's number, title and date, as `reviewbot review` does.
func TestReview(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", ".")
		git("commit", "-q", "-m", name)
	}
	git("init", "-q", "-b", "main")
	write("f.txt", "1\n")
	fork := git("rev-parse", "HEAD")
	git("checkout", "-q", "-b", "side")
	write("g.txt", "side\n")
	head := git("rev-parse", "HEAD")
	git("checkout", "-q", "main")
	write("h.txt", "main moved on\n")

	ctx := context.Background()
	repo, err := trees.OpenRepo(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	var seen checks.PRInfo
	var files []string
	var date time.Time
	reg, err := checks.NewRegistry(&checks.Rule{ID: "T001", Severity: checks.Warning, Title: "t", Doc: "d",
		Run: func(p *checks.Pass) error {
			seen, date = p.Change.PR, p.Change.Date
			for _, f := range p.Change.Files {
				files = append(files, f.Path)
				p.Report(checks.Finding{Path: f.Path, Line: 1, Title: "t", Body: "b"})
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	opts := Options{Config: &checks.Config{}, Owner: "o", Repo: "r"}
	rec := Review(ctx, repo, reg, checks.NewParseCache(0), Target{Base: "main", Head: "side", PR: 9, Title: "Side", Date: day}, opts)
	if rec.Error != "" || rec.PR != 9 || !rec.Date.Equal(day) || rec.BaseSHA != fork || rec.HeadSHA != head || rec.Files != 1 || len(rec.Findings) != 1 {
		t.Errorf("record %+v", rec)
	}
	if seen.Number != 9 || seen.Title != "Side" || seen.Owner != "o" || seen.Repo != "r" || !date.Equal(day) || len(files) != 1 || files[0] != "g.txt" {
		t.Errorf("the rule saw %+v on %v, files %v", seen, date, files)
	}
	rec = Review(ctx, repo, reg, nil, Target{Base: "main", Head: "refs/pull/9/head", PR: 9}, opts)
	if rec.Error == "" || rec.HeadSHA != "" || len(rec.Findings) != 0 {
		t.Errorf("a missing head: %+v", rec)
	}
}
