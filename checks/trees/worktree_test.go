package trees

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// cloneShallow makes a real shallow clone (one commit of every branch) of
// the repository at src, the way actions/checkout's default fetch-depth: 1
// leaves a runner's workspace.
func cloneShallow(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "shallow")
	cmd := exec.Command("git", "clone", "-q", "--depth", "1", "--no-single-branch", "file://"+src, dst)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git clone --depth 1: %v\n%s", err, out)
	}
	return dst
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestOpenChangeShallowClone(t *testing.T) {
	r := newTestRepo(t)
	r.write(map[string]string{"perf-changelog.yaml": "- version: 1\n"})
	cut := r.commit("start")
	r.write(map[string]string{"perf-changelog.yaml": "- version: 1\n- version: main\n"})
	r.commit("main moves on")
	r.git("checkout", "-q", "-b", "feature", cut)
	r.write(map[string]string{"perf-changelog.yaml": "- version: 1\n- version: branch\n"})
	r.commit("branch entry")
	r.git("checkout", "-q", "main")
	shallow := cloneShallow(t, r.dir)
	ctx := context.Background()

	repo := openTestRepo(t, shallow)
	if ok, err := repo.Shallow(ctx); err != nil || !ok {
		t.Fatalf("Shallow() = %v, %v on a --depth 1 clone", ok, err)
	}
	if ok, err := openTestRepo(t, r.dir).Shallow(ctx); err != nil || ok {
		t.Fatalf("Shallow() = %v, %v on a full repository", ok, err)
	}

	_, err := OpenChange(ctx, shallow, "origin/main", "origin/feature")
	var nmb *NoMergeBaseError
	if !errors.As(err, &nmb) || !nmb.Shallow {
		t.Fatalf("err = %v, want a shallow NoMergeBaseError", err)
	}
	for _, want := range []string{"shallow clone", "fetch-depth: 0", "git fetch --unshallow", "merge-base SHA", "origin/main", "origin/feature"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %s", want, err)
		}
	}

	// The merge base itself was never fetched: naming it says why.
	_, err = OpenChange(ctx, shallow, cut, "origin/feature")
	if err == nil || !strings.Contains(err.Error(), "unknown revision") || !strings.Contains(err.Error(), "shallow clone") ||
		!strings.Contains(err.Error(), "fetch-depth: 0") {
		t.Errorf("unknown merge base in a shallow clone: %v", err)
	}

	// What the message says to do works.
	gitIn(t, shallow, "fetch", "-q", "--unshallow")
	c, err := OpenChange(ctx, shallow, "origin/main", "origin/feature")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.BaseSHA != cut || len(c.Files) != 1 || !cmp.Equal(c.Files[0].AddedLines(), []int{2}) || len(c.Files[0].RemovedLines()) != 0 {
		t.Errorf("after --unshallow: base %s, files %+v", c.BaseSHA, summarize(c.Files))
	}
}

func TestOpenWorktreeChange(t *testing.T) {
	r := newTestRepo(t)
	r.write(map[string]string{
		".gitignore":          "*.log\nbuild/\n",
		"perf-changelog.yaml": "- version: 1\n",
		"recipes/a.sh":        "#!/bin/bash\necho a\n",
		"recipes/b.sh":        "#!/bin/bash\necho b\n",
		"gone.txt":            "bye\n",
		"same.txt":            "same\n",
	})
	base := r.commit("base")
	r.write(map[string]string{"recipes/a.sh": "#!/bin/bash\necho a\necho committed\n"})
	head := r.commit("committed change")
	// Uncommitted: one unstaged edit, one staged edit, a deletion, an
	// untracked file, and files git ignores.
	r.write(map[string]string{
		"recipes/a.sh":        "#!/bin/bash\necho a\necho committed\necho unstaged\n",
		"perf-changelog.yaml": "- version: 1\n- version: staged\n",
		"recipes/new.sh":      "#!/bin/bash\necho new\n",
		"debug.log":           "ignored\n",
		"build/out.sh":        "ignored\n",
	})
	r.git("add", "perf-changelog.yaml")
	r.remove("gone.txt")
	ctx := context.Background()

	repo := openTestRepo(t, r.dir)
	if dirty, err := repo.Dirty(ctx); err != nil || !dirty {
		t.Fatalf("Dirty() = %v, %v with uncommitted changes", dirty, err)
	}

	c, err := OpenWorktreeChange(ctx, r.dir, "main~1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.BaseSHA != base || c.HeadSHA != head || c.Worktree == nil || c.HeadTree() != checks.Tree(c.Worktree) {
		t.Fatalf("base %s head %s worktree %v", c.BaseSHA, c.HeadSHA, c.Worktree)
	}
	var got []string
	for _, f := range c.Files {
		got = append(got, string(f.Status)+" "+f.Path)
	}
	want := []string{"deleted gone.txt", "modified perf-changelog.yaml", "modified recipes/a.sh", "added recipes/new.sh"}
	if !cmp.Equal(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	ch := &checks.Change{Files: c.Files}
	if added := ch.File("recipes/a.sh").AddedLines(); !cmp.Equal(added, []int{3, 4}) {
		t.Errorf("a.sh added lines %v: both the committed and the unstaged line are the PR's", added)
	}
	if added := ch.File("recipes/new.sh").AddedLines(); !cmp.Equal(added, []int{1, 2}) {
		t.Errorf("untracked new.sh added lines %v", added)
	}

	wt := c.Worktree
	b, err := wt.ReadFile(ctx, "recipes/a.sh")
	if err != nil || !strings.Contains(string(b), "unstaged") {
		t.Errorf("worktree a.sh = %q, %v", b, err)
	}
	for _, absent := range []string{"gone.txt", "debug.log", "build/out.sh", ".git/HEAD"} {
		if _, err := wt.ReadFile(ctx, absent); !checks.IsNotExist(err) {
			t.Errorf("ReadFile(%s) = %v, want not-exist", absent, err)
		}
	}
	es, err := wt.ReadDir(ctx, "recipes")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Path)
	}
	if !cmp.Equal(names, []string{"recipes/a.sh", "recipes/b.sh", "recipes/new.sh"}) {
		t.Errorf("ReadDir(recipes) = %v", names)
	}
	root, err := wt.ReadDir(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	for _, e := range root {
		names = append(names, e.Path)
	}
	if !cmp.Equal(names, []string{".gitignore", "perf-changelog.yaml", "recipes", "same.txt"}) {
		t.Errorf("ReadDir('') = %v", names)
	}
	// An unchanged file has the same blob ID as in git, so parse caches
	// keyed by ID are shared with the base tree.
	we, err := wt.Stat(ctx, "same.txt")
	if err != nil {
		t.Fatal(err)
	}
	be, err := c.Base.Stat(ctx, "same.txt")
	if err != nil || we.ID != be.ID || we.Size != 5 {
		t.Errorf("same.txt: worktree %+v base %+v %v", we, be, err)
	}
	if !cmp.Equal(wt.Untracked(), []string{"recipes/new.sh"}) {
		t.Errorf("untracked %v", wt.Untracked())
	}

	// Committing everything leaves nothing dirty.
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "all")
	if dirty, err := repo.Dirty(ctx); err != nil || dirty {
		t.Errorf("Dirty() = %v, %v after committing", dirty, err)
	}
}

// A linked worktree (git worktree add) keeps its index and HEAD in a
// directory of the main repository's .git: its own changes are reviewed.
func TestOpenWorktreeChangeLinked(t *testing.T) {
	r := newTestRepo(t)
	r.write(map[string]string{"a.txt": "a\n"})
	r.commit("one")
	linked := filepath.Join(t.TempDir(), "linked")
	r.git("worktree", "add", "-q", "-b", "topic", linked)
	if err := os.WriteFile(filepath.Join(linked, "a.txt"), []byte("a\nlinked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := OpenWorktreeChange(context.Background(), linked, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(c.Files) != 1 || c.Files[0].Path != "a.txt" || !cmp.Equal(c.Files[0].AddedLines(), []int{2}) {
		t.Errorf("linked worktree files %+v", summarize(c.Files))
	}
	// The main checkout is clean.
	if dirty, err := openTestRepo(t, r.dir).Dirty(context.Background()); err != nil || dirty {
		t.Errorf("main checkout Dirty() = %v, %v", dirty, err)
	}
}

func TestOpenWorktreeChangeBare(t *testing.T) {
	r := newTestRepo(t)
	r.write(map[string]string{"a.txt": "a\n"})
	r.commit("one")
	bare := filepath.Join(t.TempDir(), "bare.git")
	gitIn(t, r.dir, "clone", "-q", "--bare", r.dir, bare)
	_, err := OpenWorktreeChange(context.Background(), bare, "HEAD")
	if err == nil || !strings.Contains(err.Error(), "no working tree") {
		t.Errorf("bare: %v", err)
	}
	repo := openTestRepo(t, bare)
	if dirty, err := repo.Dirty(context.Background()); err != nil || dirty {
		t.Errorf("bare Dirty() = %v, %v", dirty, err)
	}
}
