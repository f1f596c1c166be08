package trees

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// A local tree is read as git stores it: a link in any component of a path
// is not followed, so a `.github` linking outside the tree reads nothing
// from there (only the last component was checked before).
func TestDirTreeDoesNotFollowLinks(t *testing.T) {
	outside := writeTree(t, map[string]string{"reviewbot.yml": "rules:\n  SH001: off\n", "secret": "s3cret\n"})
	dir := writeTree(t, map[string]string{"benchmarks/a.sh": "echo a\n"})
	if err := os.Symlink(outside, filepath.Join(dir, ".github")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("benchmarks", filepath.Join(dir, "bm")); err != nil {
		t.Fatal(err)
	}
	tr, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []string{".github/reviewbot.yml", ".github/secret", "bm/a.sh"} {
		if b, err := tr.ReadFile(ctx, p); err == nil {
			t.Errorf("ReadFile(%s) read through a link: %q", p, b)
		} else if !checks.IsNotExist(err) {
			t.Errorf("ReadFile(%s) = %v, want not-exist", p, err)
		}
		if _, err := tr.Stat(ctx, p); !checks.IsNotExist(err) {
			t.Errorf("Stat(%s) = %v, want not-exist", p, err)
		}
	}
	if _, err := tr.ReadDir(ctx, ".github"); err == nil {
		t.Error("ReadDir(.github) listed the link's target")
	}
	// The links themselves are files whose content is their target.
	if b, err := tr.ReadFile(ctx, ".github"); err != nil || string(b) != filepath.ToSlash(outside) {
		t.Errorf("ReadFile(.github) = %q, %v", b, err)
	}
	cfg, err := checks.LoadConfig(ctx, tr)
	if err != nil || cfg.Setting("SH001").Disabled {
		t.Errorf("the configuration came from outside the tree: %+v, %v", cfg, err)
	}
	es, err := checks.Walk(ctx, tr, "")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, e := range es {
		paths = append(paths, e.Path)
	}
	if got := strings.Join(paths, ","); got != ".github,benchmarks/a.sh,bm" {
		t.Errorf("walk = %s", got)
	}
}

// A named pipe (or any file that is not regular) is never opened: reading
// it is an error that names it, and a review of the tree names it as not
// reviewed and goes on with the other files. Opening the pipe would wait
// for a writer forever.
func TestSpecialFilesDoNotBlock(t *testing.T) {
	base := writeTree(t, map[string]string{"benchmarks/a.sh": "echo a\n", "benchmarks/p.sh": "echo p\n"})
	head := writeTree(t, map[string]string{"benchmarks/a.sh": "echo a; echo b\n"})
	if err := syscall.Mkfifo(filepath.Join(head, "benchmarks", "p.sh"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	bt, err := OpenDir(base)
	if err != nil {
		t.Fatal(err)
	}
	ht, err := OpenDir(head)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *checks.Change, 1)
	go func() {
		ch, err := DiffChange(context.Background(), bt, ht)
		if err != nil {
			t.Error(err)
		}
		done <- ch
	}()
	var ch *checks.Change
	select {
	case ch = <-done:
	case <-time.After(time.Minute):
		t.Fatal("diffing a tree with a named pipe has not returned in a minute: it is blocked on the pipe")
	}
	if ch == nil {
		return
	}
	if len(ch.Files) != 1 || ch.Files[0].Path != "benchmarks/a.sh" {
		t.Errorf("files %v", summarize(ch.Files))
	}
	nr := ch.NotReviewed()
	if len(nr) != 1 || nr[0].Path != "benchmarks/p.sh" || nr[0].Reason != "it could not be read: a named pipe, not a regular file: not read" {
		t.Errorf("NotReviewed = %v", nr)
	}
	var pe *fs.PathError
	if _, err := ht.ReadFile(context.Background(), "benchmarks/p.sh"); !errors.As(err, &pe) {
		t.Errorf("ReadFile of the pipe = %v", err)
	}
	// The strict Diff reports it as an error rather than blocking.
	if _, err := Diff(context.Background(), bt, ht); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("Diff = %v", err)
	}
}

// One file whose diff git writes but that cannot be parsed fails only
// itself: the others are reviewed, and it is named with the reason.
func TestParseEachFile(t *testing.T) {
	good := func(name string) string {
		return "diff --git a/" + name + " b/" + name + "\nindex 1111111..2222222 100644\n--- a/" + name + "\n+++ b/" + name +
			"\n@@ -1 +1 @@\n-old\n+new\n"
	}
	broken := "diff --git a/bad.sh b/bad.sh\nindex 1111111..2222222 100644\n--- a/bad.sh\n+++ b/bad.sh\n@@ -1,3 +1,3 @@\n-only one line\n"
	files, skipped := parseEachFile([]byte(good("a.sh") + broken + good("z.sh")))
	if got := summarize(files); len(got) != 2 || got[0].Path != "a.sh" || got[1].Path != "z.sh" {
		t.Errorf("files %v", got)
	}
	if len(skipped) != 1 || skipped[0].Path != "bad.sh" || !strings.HasPrefix(skipped[0].Reason, "its diff could not be read (") {
		t.Errorf("skipped %v", skipped)
	}
}

// A directory that became a link (the case that failed a whole review in
// the App) diffs as its files deleted and the link added; the review of
// the repository goes through.
func TestDirectoryBecameLink(t *testing.T) {
	r := newTestRepo(t)
	r.write(map[string]string{"benchmarks/x/a.sh": "echo a\n", "benchmarks/y/b.sh": "echo b\n", "notes.txt": "n\n"})
	c1 := r.commit("one")
	if err := os.RemoveAll(filepath.Join(r.dir, "benchmarks", "x")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("y", filepath.Join(r.dir, "benchmarks", "x")); err != nil {
		t.Fatal(err)
	}
	r.write(map[string]string{"notes.txt": "n2\n"})
	c2 := r.commit("two")
	gc, err := OpenChange(context.Background(), r.dir, c1, c2)
	if err != nil {
		t.Fatal(err)
	}
	defer gc.Close()
	got := summarize(gc.Files)
	want := []summary{
		{"benchmarks/x", "", checks.Added, false, 1},
		{"benchmarks/x/a.sh", "benchmarks/x/a.sh", checks.Deleted, false, 1},
		{"notes.txt", "notes.txt", checks.Modified, false, 1},
	}
	if len(got) != len(want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("file %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if len(gc.NotReviewed) != 0 {
		t.Errorf("NotReviewed %v", gc.NotReviewed)
	}
	if b, err := gc.Head.ReadFile(context.Background(), "benchmarks/x"); err != nil || string(b) != "y" {
		t.Errorf("the link reads %q, %v", b, err)
	}
}

// The working tree is read the same way: a tracked directory replaced by
// a link out of the tree reads nothing from there, and an untracked named
// pipe is named as not reviewed rather than read.
func TestWorktreeHostileFiles(t *testing.T) {
	r := newTestRepo(t)
	r.write(map[string]string{".github/reviewbot.yml": "rules: {}\n", "benchmarks/a.sh": "echo a\n"})
	r.commit("one")
	outside := writeTree(t, map[string]string{"reviewbot.yml": "rules:\n  SH001: off\n"})
	if err := os.RemoveAll(filepath.Join(r.dir, ".github")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.dir, ".github")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(r.dir, "benchmarks", "p.sh"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan *GitChange, 1)
	go func() {
		gc, err := OpenWorktreeChange(context.Background(), r.dir, "HEAD")
		if err != nil {
			t.Error(err)
		}
		done <- gc
	}()
	var gc *GitChange
	select {
	case gc = <-done:
	case <-time.After(time.Minute):
		t.Fatal("opening a working tree with a named pipe has not returned in a minute")
	}
	if gc == nil {
		return
	}
	defer gc.Close()
	if b, err := gc.Worktree.ReadFile(context.Background(), ".github/reviewbot.yml"); err == nil {
		t.Errorf("read through the link: %q", b)
	}
	// git does not list a pipe among the untracked files; were it listed,
	// it would be named, never opened.
	for _, n := range gc.NotReviewed {
		if n.Path != "benchmarks/p.sh" || !strings.Contains(n.Reason, "named pipe") {
			t.Errorf("NotReviewed = %v", gc.NotReviewed)
		}
	}
	if _, err := gc.Worktree.ReadFile(context.Background(), "benchmarks/p.sh"); err == nil {
		t.Error("the pipe was read")
	}
	for _, fc := range gc.Files {
		if fc.Path == "benchmarks/p.sh" {
			t.Error("the pipe is among the files to review")
		}
	}
	ch := gc.Change()
	cfg, err := checks.LoadConfig(context.Background(), ch.Head)
	if err != nil || cfg.Setting("SH001").Disabled {
		t.Errorf("configuration from outside the tree: %v", err)
	}
}
