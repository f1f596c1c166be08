package trees

import (
	"context"
	"errors"
	"fmt"
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
	if len(nr) != 1 || nr[0].Path != "benchmarks/p.sh" || nr[0].Reason != "a named pipe, not a regular file" {
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
	gc := openWorktreeWithin(t, r.dir)
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

// hostileSecret is planted outside the trees; nothing read from a tree
// may hold it.
const hostileSecret = "SECRET-TOKEN-123"

// Whichever way a local tree is read (a directory, a working tree, a
// fixture's layers over a shared tree), a link is its target text, as
// git stores it: an absolute link, a relative one climbing out of the
// tree and a link to another file of the tree alike; a directory link
// lists nothing.
func TestLinksReadAsTheirTarget(t *testing.T) {
	outside := writeTree(t, map[string]string{"secret.sh": "echo " + hostileSecret + "\n", "sub/a.sh": "echo " + hostileSecret + "\n"})
	t.Setenv("REVIEWBOT_TEST_ENV_SECRET", hostileSecret)
	files := map[string]string{"benchmarks/a.sh": "echo a\n"}
	// links returns the links to make under dir (its root), by path.
	links := func(dir string) map[string]string {
		rel, err := filepath.Rel(filepath.Join(dir, "benchmarks"), filepath.Join(outside, "secret.sh"))
		if err != nil || !strings.HasPrefix(rel, "..") {
			t.Fatalf("relative link %q, %v", rel, err)
		}
		return map[string]string{
			"benchmarks/passwd.sh":  "/etc/passwd",
			"benchmarks/environ.sh": "/proc/self/environ",
			"benchmarks/secret.sh":  filepath.Join(outside, "secret.sh"),
			"benchmarks/rel.sh":     rel,
			"benchmarks/same.sh":    "a.sh",
			"benchmarks/sub":        filepath.Join(outside, "sub"),
		}
	}
	mklinks := func(t *testing.T, dir string) map[string]string {
		ls := links(dir)
		for p, target := range ls {
			if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(p))); err != nil {
				t.Fatal(err)
			}
		}
		return ls
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		open func(t *testing.T) (checks.Tree, map[string]string)
	}{
		{"directory", func(t *testing.T) (checks.Tree, map[string]string) {
			dir := writeTree(t, files)
			ls := mklinks(t, dir)
			tr, err := OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			return tr, ls
		}},
		{"working tree", func(t *testing.T) (checks.Tree, map[string]string) {
			r := newTestRepo(t)
			r.write(files)
			r.commit("one")
			ls := mklinks(t, r.dir)
			gc, err := OpenWorktreeChange(ctx, r.dir, "HEAD")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { gc.Close() })
			return gc.Worktree, ls
		}},
		{"fixture", func(t *testing.T) (checks.Tree, map[string]string) {
			shared := writeTree(t, files)
			fx := writeTree(t, map[string]string{"pr.json": `{"tree": "` + filepath.ToSlash(shared) + `"}`, "head/benchmarks/b.sh": "echo b\n"})
			ls := mklinks(t, filepath.Join(fx, "head"))
			f, err := LoadFixture(ctx, fx)
			if err != nil {
				t.Fatal(err)
			}
			return f.Head, ls
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, ls := tc.open(t)
			for p, target := range ls {
				b, err := tr.ReadFile(ctx, p)
				if err != nil || string(b) != filepath.ToSlash(target) {
					t.Errorf("ReadFile(%s) = %q, %v; want the link's target %q", p, b, err, target)
				}
			}
			if _, err := tr.ReadDir(ctx, "benchmarks/sub"); err == nil {
				t.Error("ReadDir listed the directory a link points at")
			}
			if b, err := tr.ReadFile(ctx, "benchmarks/sub/a.sh"); err == nil {
				t.Errorf("read through a directory link: %q", b)
			}
			es, err := checks.Walk(ctx, tr, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range es {
				b, err := tr.ReadFile(ctx, e.Path)
				if err != nil {
					t.Errorf("%s: %v", e.Path, err)
				}
				if strings.Contains(string(b), hostileSecret) || strings.Contains(string(b), "root:") {
					t.Errorf("%s reads what is outside the tree: %q", e.Path, b)
				}
			}
		})
	}
}

// A fixture's own files (pr.json, the patches) and its layers are read
// only as regular files and directories: a named pipe is not opened (the
// load would wait forever) and a link is not followed out of the fixture.
// A named pipe in a layer is a file not reviewed, not a failed load.
func TestLoadFixtureHostileOwnFiles(t *testing.T) {
	outside := writeTree(t, map[string]string{
		"pr.json":   `{"number": 7}`,
		"pr.patch":  "diff --git a/x.sh b/x.sh\nnew file mode 100644\n--- /dev/null\n+++ b/x.sh\n@@ -0,0 +1 @@\n+echo " + hostileSecret + "\n",
		"head/x.sh": "echo " + hostileSecret + "\n",
	})
	for _, tc := range []struct {
		name, path string
		make       func(full string) error
		want       string // in the error; "" for a load that succeeds
	}{
		{"pr.json is a named pipe", "pr.json", mkfifoErr, "read pr.json: a named pipe, not a regular file"},
		{"pr.patch is a named pipe", "pr.patch", mkfifoErr, "read pr.patch: a named pipe, not a regular file"},
		{"base.patch is a named pipe", "base.patch", mkfifoErr, "read base.patch: a named pipe, not a regular file"},
		{"pr.json links out", "pr.json", linkTo(filepath.Join(outside, "pr.json")), "read pr.json: a symbolic link, not a regular file"},
		{"pr.patch links out", "pr.patch", linkTo(filepath.Join(outside, "pr.patch")), "read pr.patch: a symbolic link, not a regular file"},
		{"head links out", "head", linkTo(filepath.Join(outside, "head")), "head is a symbolic link, not a directory"},
		{"base links out", "base", linkTo(filepath.Join(outside, "head")), "base is a symbolic link, not a directory"},
		{"a file of head/ is a named pipe", "head/y.sh", mkfifoErr, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"pr.json": `{"number": 7}`, "head/a.sh": "echo a\n"}
			delete(files, tc.path)
			if tc.path == "head" {
				delete(files, "head/a.sh")
			}
			fx := writeTree(t, files)
			if err := tc.make(filepath.Join(fx, tc.path)); err != nil {
				if errors.Is(err, errNoFifo) {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			type loaded struct {
				fx  *Fixture
				err error
			}
			done := make(chan loaded, 1)
			go func() {
				f, err := LoadFixture(context.Background(), fx)
				done <- loaded{f, err}
			}()
			var got loaded
			select {
			case got = <-done:
			case <-time.After(time.Minute):
				t.Fatal("LoadFixture has not returned in a minute: it is blocked on a named pipe")
			}
			if tc.want == "" {
				if got.err != nil {
					t.Fatal(got.err)
				}
				nr := got.fx.Change().NotReviewed()
				if len(nr) != 1 || nr[0].Path != "y.sh" || nr[0].Reason != "a named pipe, not a regular file" {
					t.Errorf("NotReviewed = %v", nr)
				}
				if len(got.fx.Files) != 1 || got.fx.Files[0].Path != "a.sh" {
					t.Errorf("files %v", summarize(got.fx.Files))
				}
				return
			}
			if got.err == nil || !strings.Contains(got.err.Error(), tc.want) {
				t.Errorf("LoadFixture = %v, want an error with %q", got.err, tc.want)
			}
			if got.fx != nil {
				for _, f := range got.fx.Files {
					t.Errorf("reviewed %s from outside the fixture", f.Path)
				}
			}
		})
	}
}

var errNoFifo = errors.New("mkfifo unavailable")

func mkfifoErr(full string) error {
	if err := syscall.Mkfifo(full, 0o644); err != nil {
		return fmt.Errorf("%w: %v", errNoFifo, err)
	}
	return nil
}

func linkTo(target string) func(string) error {
	return func(full string) error { return os.Symlink(target, full) }
}

// In a fixture, what head/ has at a path hides what the shared tree has
// there: a link (a file) hides the directory beneath it, and a directory
// where the shared tree has a file is a directory, not a failed listing.
func TestOverlayUpperHidesLower(t *testing.T) {
	ctx := context.Background()
	shared := writeTree(t, map[string]string{"configs/m.yaml": "a: 1\n", "benchmarks/a.sh": "echo a\n", "log.yaml": "- x\n"})
	fx := writeTree(t, map[string]string{"pr.json": `{"tree": "` + filepath.ToSlash(shared) + `"}`, "head/log.yaml/x.yaml": "b: 2\n"})
	if err := os.Symlink("elsewhere", filepath.Join(fx, "head", "configs")); err != nil {
		t.Fatal(err)
	}
	f, err := LoadFixture(ctx, fx)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"configs":         "elsewhere",
		"configs/m.yaml":  "not exist",
		"log.yaml":        "a directory, not a regular file",
		"log.yaml/x.yaml": "b: 2\n",
		"benchmarks/a.sh": "echo a\n",
	} {
		b, err := f.Head.ReadFile(ctx, p)
		got := string(b)
		if err != nil {
			got = err.Error()
			if checks.IsNotExist(err) {
				got = "not exist"
			}
		}
		if !strings.HasSuffix(got, want) {
			t.Errorf("ReadFile(%s) = %q, want %q", p, got, want)
		}
	}
	if _, err := f.Head.ReadDir(ctx, "configs"); !checks.IsNotDir(err) {
		t.Errorf("ReadDir(configs) = %v, want not a directory", err)
	}
	if _, err := f.Head.Stat(ctx, "configs/m.yaml"); !checks.IsNotExist(err) {
		t.Errorf("Stat(configs/m.yaml) = %v", err)
	}
	var got []string
	for _, fc := range f.Files {
		got = append(got, fmt.Sprintf("%s %s", fc.Status, fc.Path))
	}
	want := "added configs, deleted configs/m.yaml, deleted log.yaml, added log.yaml/x.yaml"
	if strings.Join(got, ", ") != want {
		t.Errorf("files: %s\nwant:  %s", strings.Join(got, ", "), want)
	}
}

// A tracked file the working tree has replaced by a named pipe is named
// as not reviewed; git's diff, which stops at a file it cannot hash,
// still reviews the others.
func TestWorktreeTrackedSpecialFile(t *testing.T) {
	r := newTestRepo(t)
	r.write(map[string]string{"benchmarks/a.sh": "echo a\n", "benchmarks/p*.sh": "echo p\n", "notes.txt": "n\n"})
	r.commit("one")
	r.write(map[string]string{"notes.txt": "n2\n"})
	p := filepath.Join(r.dir, "benchmarks", "p*.sh")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	gc := openWorktreeWithin(t, r.dir)
	if gc == nil {
		return
	}
	defer gc.Close()
	if got := summarize(gc.Files); len(got) != 1 || got[0].Path != "notes.txt" {
		t.Errorf("files %v", got)
	}
	nr := gc.Change().NotReviewed()
	if len(nr) != 1 || nr[0].Path != "benchmarks/p*.sh" || nr[0].Reason != "a named pipe, not a regular file" {
		t.Errorf("NotReviewed = %v", nr)
	}
}

// openWorktreeWithin opens the working tree change of dir against HEAD,
// failing the test when that has not returned in a minute (blocked on a
// named pipe); nil when it failed.
func openWorktreeWithin(t *testing.T, dir string) *GitChange {
	t.Helper()
	done := make(chan *GitChange, 1)
	go func() {
		gc, err := OpenWorktreeChange(context.Background(), dir, "HEAD")
		if err != nil {
			t.Error(err)
		}
		done <- gc
	}()
	select {
	case gc := <-done:
		return gc
	case <-time.After(time.Minute):
		t.Fatal("opening a working tree with a named pipe has not returned in a minute")
		return nil
	}
}
