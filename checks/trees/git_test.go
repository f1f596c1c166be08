package trees

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// testRepo builds throwaway repositories with the git command.
type testRepo struct {
	tb   testing.TB
	dir  string
	tick int
}

func requireGit(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git not on PATH")
	}
	// Neither the helper's commands nor the code under test may see the
	// machine's global config.
	tb.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
}

func newTestRepo(tb testing.TB) *testRepo {
	tb.Helper()
	requireGit(tb)
	r := &testRepo{tb: tb, dir: tb.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *testRepo) git(args ...string) string {
	r.tb.Helper()
	r.tick++
	date := fmt.Sprintf("@%d +0000", 1700000000+r.tick*60)
	cmd := exec.Command("git", append([]string{"-c", "core.autocrlf=false", "-c", "core.symlinks=true"}, args...)...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_COMMITTER_DATE="+date,
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *testRepo) write(files map[string]string) {
	r.tb.Helper()
	for p, content := range files {
		full := filepath.Join(r.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.tb.Fatal(err)
		}
	}
}

func (r *testRepo) remove(paths ...string) {
	r.tb.Helper()
	for _, p := range paths {
		if err := os.Remove(filepath.Join(r.dir, filepath.FromSlash(p))); err != nil {
			r.tb.Fatal(err)
		}
	}
}

func (r *testRepo) commit(msg string) string {
	r.tb.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func numbered(prefix string, from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%s%d\n", prefix, i)
	}
	return b.String()
}

// fixture is a repository with two commits whose difference exercises
// every kind of change git reports.
type fixture struct {
	*testRepo
	c1, c2 string
}

const gitlinkSHA = "0123456789abcdef0123456789abcdef01234567"

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	r := newTestRepo(tb)
	r.write(map[string]string{
		"changelog.yaml":    numbered("- entry: ", 1, 20),
		"recipes/a.sh":      "#!/bin/bash\necho a\n",
		"gone.txt":          "bye\n",
		"bin.dat":           "\x00\x01\x02binary\n",
		"noeol.txt":         "a\nb",
		"mv/pure.txt":       "pure content\nline 2\n",
		"mv/edit.txt":       numbered("edit ", 1, 10),
		"docs/old name.txt": "spaces 1\nspaces 2\n",
		"docs/a b.txt":      "renamed with spaces\n",
		"ünï.txt":           "héllo\n",
		"script.sh":         "echo hi\n",
	})
	if err := os.Symlink("recipes/a.sh", filepath.Join(r.dir, "link")); err != nil {
		tb.Fatal(err)
	}
	// An uninitialized submodule: an empty directory in the work tree and
	// a gitlink in the index.
	if err := os.MkdirAll(filepath.Join(r.dir, "vendor", "sub"), 0o755); err != nil {
		tb.Fatal(err)
	}
	r.git("update-index", "--add", "--cacheinfo", "160000,"+gitlinkSHA+",vendor/sub")
	c1 := r.commit("one")
	r.git("tag", "-a", "-m", "version one", "v1")
	r.git("tag", "light")
	r.git("branch", "old")

	r.write(map[string]string{
		"changelog.yaml":          strings.Replace(numbered("- entry: ", 1, 21), "- entry: 5\n", "- entry: five\n", 1),
		"recipes/b.sh":            "#!/bin/bash\necho b\n",
		"bin.dat":                 "\x00\x01\x03binary\n",
		"noeol.txt":               "a\nb\nc",
		"docs/old name.txt":       "spaces 1\nspaces two\n",
		"new dir/spaced file.txt": "fresh\n",
		"ünï.txt":                 "héllo wörld\n",
		"empty.txt":               "",
		"say \"hi\"\t\\.txt":      "hi\n", // git quotes this name even with core.quotepath=off
	})
	r.remove("gone.txt")
	if err := os.MkdirAll(filepath.Join(r.dir, "moved"), 0o755); err != nil {
		tb.Fatal(err)
	}
	r.git("mv", "mv/pure.txt", "moved/pure.txt")
	r.git("mv", "mv/edit.txt", "moved/edit.txt")
	r.write(map[string]string{"moved/edit.txt": strings.Replace(numbered("edit ", 1, 10), "edit 3\n", "edit three\n", 1)})
	r.git("mv", "docs/a b.txt", "docs/c d.txt")
	if err := os.Chmod(filepath.Join(r.dir, "script.sh"), 0o755); err != nil {
		tb.Fatal(err)
	}
	c2 := r.commit("two")
	return &fixture{testRepo: r, c1: c1, c2: c2}
}

// fixtureHead opens the fixture's repository and the tree of its second
// commit.
func fixtureHead(t *testing.T) (*fixture, *Repo, *GitTree) {
	t.Helper()
	f := newFixture(t)
	repo := openTestRepo(t, f.dir)
	tree, err := repo.Tree(context.Background(), f.c2)
	if err != nil {
		t.Fatal(err)
	}
	return f, repo, tree
}

func openTestRepo(tb testing.TB, dir string) *Repo {
	tb.Helper()
	repo, err := OpenRepo(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = repo.Close() })
	return repo
}

func TestOpenRepoErrors(t *testing.T) {
	requireGit(t)
	plain := t.TempDir()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "no", "such")
	// A directory inside a repository is not the repository.
	r := newTestRepo(t)
	r.write(map[string]string{"sub/x.txt": "x\n"})
	r.commit("c")
	inside := filepath.Join(r.dir, "sub")

	for _, tc := range []struct {
		name, dir, want string
	}{
		{"missing", missing, "repository " + missing + ": no such directory"},
		{"file", file, "repository " + file + ": not a directory"},
		{"plain dir", plain, "repository " + plain + ": not a git repository"},
		{"inside a repo", inside, "repository " + inside + ": not the top of a git repository: it is inside " + realPath(t, r.dir)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, err := OpenRepo(context.Background(), tc.dir)
			if err == nil {
				_ = repo.Close()
				t.Fatalf("OpenRepo(%s) succeeded", tc.dir)
			}
			if err.Error() != tc.want {
				t.Errorf("error = %q, want %q", err, tc.want)
			}
		})
	}
}

// FindRepo finds the repository a directory is in, as git does: from the
// top, a subdirectory, the git directory, and in a bare repository.
func TestFindRepo(t *testing.T) {
	r := newTestRepo(t)
	r.write(map[string]string{"sub/deeper/x.txt": "x\n"})
	r.commit("c")
	top := realPath(t, r.dir)
	bare := filepath.Join(t.TempDir(), "bare.git")
	r.git("clone", "-q", "--bare", r.dir, bare)
	plain := t.TempDir()
	for _, tc := range []struct {
		name, dir, want, err string
	}{
		{"top", r.dir, top, ""},
		{"subdirectory", filepath.Join(r.dir, "sub", "deeper"), top, ""},
		{"git directory", filepath.Join(r.dir, ".git"), filepath.Join(top, ".git"), ""},
		{"bare", bare, realPath(t, bare), ""},
		{"plain dir", plain, "", "repository " + plain + ": not a git repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FindRepo(context.Background(), tc.dir)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("FindRepo(%s) = %q, %v; want error %q", tc.dir, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("FindRepo(%s) = %q, %v; want %q", tc.dir, got, err, tc.want)
			}
			repo, err := OpenRepo(context.Background(), got)
			if err != nil {
				t.Fatalf("OpenRepo of what FindRepo found: %v", err)
			}
			_ = repo.Close()
		})
	}
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestOpenRepoWithoutGit(t *testing.T) {
	requireGit(t)
	dir := t.TempDir()
	t.Setenv("PATH", t.TempDir())
	_, err := OpenRepo(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), "git not found on PATH") {
		t.Fatalf("error = %v, want git not found", err)
	}
}

func TestOpenRepoKinds(t *testing.T) {
	f := newFixture(t)
	bare := filepath.Join(t.TempDir(), "bare.git")
	f.git("clone", "-q", "--bare", f.dir, bare)

	for _, tc := range []struct {
		name     string
		dir      string
		wantBare bool
	}{
		{"clone", f.dir, false},
		{"git dir", filepath.Join(f.dir, ".git"), false},
		{"bare", bare, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := openTestRepo(t, tc.dir)
			if repo.Bare() != tc.wantBare {
				t.Errorf("Bare() = %v, want %v", repo.Bare(), tc.wantBare)
			}
			head, err := repo.Resolve(context.Background(), "main")
			if err != nil {
				t.Fatal(err)
			}
			if head != f.c2 {
				t.Errorf("main = %s, want %s", head, f.c2)
			}
			tree, err := repo.Tree(context.Background(), head)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tree.ReadFile(context.Background(), "docs/old name.txt")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "spaces 1\nspaces two\n" {
				t.Errorf("content = %q", got)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	f := newFixture(t)
	repo := openTestRepo(t, f.dir)
	unknown := func(rev string) string { return fmt.Sprintf("unknown revision %q in %s", rev, filepath.Clean(f.dir)) }
	for _, tc := range []struct {
		rev, want, wantErr string
	}{
		{rev: "HEAD", want: f.c2},
		{rev: "main", want: f.c2},
		{rev: "HEAD~1", want: f.c1},
		{rev: f.c2 + "^", want: f.c1},
		{rev: f.c2[:10], want: f.c2},
		{rev: "v1", want: f.c1}, // annotated: peeled to the commit
		{rev: "light", want: f.c1},
		{rev: "old", want: f.c1},
		{rev: "refs/heads/old", want: f.c1},
		{rev: "nope", wantErr: unknown("nope")},
		{rev: "HEAD~5", wantErr: unknown("HEAD~5")},
		{rev: "HEAD^{tree}", wantErr: fmt.Sprintf("revision %q in %s is not a commit", "HEAD^{tree}", filepath.Clean(f.dir))},
		{rev: "-h", wantErr: `invalid revision "-h": must not start with '-'`},
		{rev: "--output=/tmp/x", wantErr: `invalid revision "--output=/tmp/x": must not start with '-'`},
		{rev: "", wantErr: "empty revision"},
	} {
		t.Run(tc.rev, func(t *testing.T) {
			got, err := repo.Resolve(context.Background(), tc.rev)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("Resolve(%q) = %q, %v; want error %q", tc.rev, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Resolve(%q) = %s, want %s", tc.rev, got, tc.want)
			}
		})
	}
}

func TestGitTree(t *testing.T) {
	f, repo, tree := fixtureHead(t)
	ctx := context.Background()

	t.Run("ReadFile", func(t *testing.T) {
		for _, tc := range []struct {
			path, want string
		}{
			{"noeol.txt", "a\nb\nc"},
			{"/recipes/b.sh", "#!/bin/bash\necho b\n"},
			{"./new dir/spaced file.txt", "fresh\n"},
			{"ünï.txt", "héllo wörld\n"},
			{"empty.txt", ""},
			{"bin.dat", "\x00\x01\x03binary\n"},
			{"link", "recipes/a.sh"}, // a symlink reads as its target, like git stores it
		} {
			got, err := tree.ReadFile(ctx, tc.path)
			if err != nil {
				t.Errorf("ReadFile(%q): %v", tc.path, err)
				continue
			}
			if string(got) != tc.want {
				t.Errorf("ReadFile(%q) = %q, want %q", tc.path, got, tc.want)
			}
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			path      string
			notExist  bool
			errSubstr string
		}{
			{path: "gone.txt", notExist: true},
			{path: "recipes/zzz.sh", notExist: true},
			{path: "recipes", errSubstr: "a directory, not a regular file"},
			{path: "vendor/sub", errSubstr: "is a submodule (commit " + gitlinkSHA + ")"},
		} {
			_, err := tree.ReadFile(ctx, tc.path)
			if err == nil {
				t.Errorf("ReadFile(%q) succeeded", tc.path)
				continue
			}
			if checks.IsNotExist(err) != tc.notExist {
				t.Errorf("ReadFile(%q): IsNotExist(%v) = %v", tc.path, err, !tc.notExist)
			}
			if !strings.Contains(err.Error(), tc.errSubstr) {
				t.Errorf("ReadFile(%q) = %v, want it to mention %q", tc.path, err, tc.errSubstr)
			}
		}
		if _, err := tree.ReadFile(ctx, "recipes"); checks.AsNotRegular(err) == nil {
			t.Errorf("ReadFile(dir) = %v, want a not-a-regular-file error", err)
		}
		// Nothing is beneath a file: no directory there, said as such.
		if _, err := tree.ReadDir(ctx, "noeol.txt"); !checks.IsNotDir(err) || !checks.IsNotExist(err) {
			t.Errorf("ReadDir(file) = %v, want a not-a-directory error", err)
		}
		if _, err := tree.ReadDir(ctx, "nowhere"); !checks.IsNotExist(err) {
			t.Errorf("ReadDir(missing) = %v, want not exist", err)
		}
	})

	t.Run("ReadDir", func(t *testing.T) {
		for _, tc := range []struct {
			dir  string
			want []string // dirs end in "/"
		}{
			{"", []string{"bin.dat", "changelog.yaml", "docs/", "empty.txt", "link", "moved/", "new dir/", "noeol.txt", "recipes/", "say \"hi\"\t\\.txt", "script.sh", "vendor/", "ünï.txt"}},
			{"docs/", []string{"docs/c d.txt", "docs/old name.txt"}},
			{"vendor", []string{"vendor/sub"}},
		} {
			entries, err := tree.ReadDir(ctx, tc.dir)
			if err != nil {
				t.Fatalf("ReadDir(%q): %v", tc.dir, err)
			}
			var got []string
			for _, e := range entries {
				n := e.Path
				if tc.dir == "" {
					n = e.Name()
				}
				if e.IsDir {
					n += "/"
				}
				got = append(got, n)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("ReadDir(%q) = %q, want %q", tc.dir, got, tc.want)
			}
		}
	})

	t.Run("Stat", func(t *testing.T) {
		root, err := tree.Stat(ctx, "")
		if err != nil || !root.IsDir {
			t.Errorf("Stat(root) = %+v, %v", root, err)
		}
		docs, err := tree.Stat(ctx, "docs/")
		if err != nil || !docs.IsDir || docs.Path != "docs" || len(docs.ID) != 40 {
			t.Errorf("Stat(docs/) = %+v, %v", docs, err)
		}
		sub, err := tree.Stat(ctx, "vendor/sub")
		if err != nil || sub.IsDir || sub.ID != gitlinkSHA {
			t.Errorf("Stat(vendor/sub) = %+v, %v", sub, err)
		}
		if _, err := tree.Stat(ctx, "gone.txt"); !checks.IsNotExist(err) {
			t.Errorf("Stat(gone.txt) = %v, want not exist", err)
		}
	})

	t.Run("IDs are blob SHAs", func(t *testing.T) {
		files, err := checks.Walk(ctx, tree, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 16 {
			t.Errorf("Walk found %d files, want 16", len(files))
		}
		for _, e := range files {
			if e.Path == "vendor/sub" {
				continue
			}
			b, err := tree.ReadFile(ctx, e.Path)
			if err != nil {
				t.Errorf("ReadFile(%q): %v", e.Path, err)
				continue
			}
			if e.ID != checks.BlobID(b) || e.Size != int64(len(b)) {
				t.Errorf("%s: ID %s size %d, content has ID %s size %d", e.Path, e.ID, e.Size, checks.BlobID(b), len(b))
			}
		}
	})

	t.Run("older revision", func(t *testing.T) {
		old, err := repo.Tree(ctx, "v1")
		if err != nil {
			t.Fatal(err)
		}
		if old.Commit() != f.c1 {
			t.Errorf("Commit() = %s, want %s", old.Commit(), f.c1)
		}
		got, err := old.ReadFile(ctx, "gone.txt")
		if err != nil || string(got) != "bye\n" {
			t.Errorf("ReadFile(gone.txt) at v1 = %q, %v", got, err)
		}
	})
}

func TestGitTreeBadCommit(t *testing.T) {
	f := newFixture(t)
	repo := openTestRepo(t, f.dir)
	tree, err := repo.Tree(context.Background(), strings.Repeat("e", 40))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the failure is remembered, not retried
		if _, err := tree.ReadFile(context.Background(), "x"); err == nil || checks.IsNotExist(err) {
			t.Fatalf("ReadFile in a missing commit = %v, want a listing error", err)
		}
	}
	if _, err := repo.Tree(context.Background(), "nope"); err == nil {
		t.Error("Tree(nope) succeeded")
	}
}

func TestGitReadRecovery(t *testing.T) {
	_, repo, tree := fixtureHead(t)
	read := func(ctx context.Context) (string, error) {
		b, err := tree.ReadFile(ctx, "recipes/b.sh")
		return string(b), err
	}
	const want = "#!/bin/bash\necho b\n"
	if got, err := read(context.Background()); err != nil || got != want {
		t.Fatalf("first read = %q, %v", got, err)
	}
	first := repo.batch

	// The batch process died behind our back: the next read restarts it.
	_ = first.cmd.Process.Kill()
	if got, err := read(context.Background()); err != nil || got != want {
		t.Fatalf("read after kill = %q, %v", got, err)
	}
	if repo.batch == first || repo.batch == nil {
		t.Error("batch process was not replaced")
	}

	// A cancelled context fails the read without harming later ones.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := read(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("read with cancelled context = %v, want context.Canceled", err)
	}
	if got, err := read(context.Background()); err != nil || got != want {
		t.Fatalf("read after cancel = %q, %v", got, err)
	}

	// Cancellation during an exchange kills the process, which ReadBlob
	// then discards.
	batch := repo.batch
	id := tree.index.entries["recipes/b.sh"].id
	if _, _, err := batch.read(ctx, []string{id}); !errors.Is(err, context.Canceled) {
		t.Fatalf("batch read with cancelled context = %v", err)
	}
	if err := batch.cmd.Wait(); err == nil {
		t.Error("batch process still ran after a cancelled read")
	}
	repo.batch = nil
	if got, err := read(context.Background()); err != nil || got != want {
		t.Fatalf("read after killed exchange = %q, %v", got, err)
	}

	// Missing objects are per-object errors; the process stays.
	batch = repo.batch
	if _, err := repo.ReadBlob(context.Background(), strings.Repeat("e", 40)); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("reading a missing blob = %v", err)
	}
	if repo.batch != batch {
		t.Error("a missing object restarted the process")
	}

	if err := repo.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := read(context.Background()); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("read after Close = %v, want closed error", err)
	}
}

func TestGitTreeReadFiles(t *testing.T) {
	_, repo, tree := fixtureHead(t)
	ctx := context.Background()
	got, err := tree.ReadFiles(ctx, []string{"noeol.txt", "gone.txt", "recipes", "vendor/sub", "/recipes/a.sh", "empty.txt", "link"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"noeol.txt": "a\nb\nc", "recipes/a.sh": "#!/bin/bash\necho a\n", "empty.txt": "", "link": "recipes/a.sh"}
	if len(got) != len(want) {
		t.Errorf("ReadFiles returned %d files, want %d", len(got), len(want))
	}
	for p, w := range want {
		if b, ok := got[p]; !ok || string(b) != w {
			t.Errorf("ReadFiles[%q] = %q, %v; want %q", p, b, ok, w)
		}
	}

	// Far more requests and answers than the pipes hold at once.
	entry, err := tree.Stat(ctx, "changelog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 5000)
	for i := range ids {
		ids[i] = entry.ID
	}
	ids[2500] = strings.Repeat("e", 40)
	data, errs, err := repo.readBlobs(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ids {
		switch {
		case i == 2500:
			if errs[i] == nil {
				t.Errorf("missing object %d read without error", i)
			}
		case errs[i] != nil || checks.BlobID(data[i]) != entry.ID:
			t.Fatalf("object %d: %v, content ID %s", i, errs[i], checks.BlobID(data[i]))
		}
	}
}

func TestGitTreeConcurrentReads(t *testing.T) {
	_, _, tree := fixtureHead(t)
	ctx := context.Background()
	want := map[string]string{
		"changelog.yaml": strings.Replace(numbered("- entry: ", 1, 21), "- entry: 5\n", "- entry: five\n", 1),
		"recipes/a.sh":   "#!/bin/bash\necho a\n",
		"moved/pure.txt": "pure content\nline 2\n",
		"noeol.txt":      "a\nb\nc",
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				for p, w := range want {
					got, err := tree.ReadFile(ctx, p)
					if err != nil {
						errs <- err
						return
					}
					if string(got) != w {
						errs <- fmt.Errorf("%s = %q, want %q", p, got, w)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// benchRepo commits 200 small recipes and returns the commit's tree, its
// listing read and its cat-file process started, and the recipes' paths.
func benchRepo(b *testing.B) (*GitTree, []string) {
	r := newTestRepo(b)
	files := map[string]string{}
	var paths []string
	for i := 0; i < 200; i++ {
		p := fmt.Sprintf("benchmarks/recipe_%03d.sh", i)
		files[p] = strings.Repeat(fmt.Sprintf("echo step %d of recipe %d\n", i, i), 40)
		paths = append(paths, p)
	}
	r.write(files)
	sha := r.commit("bench")
	// Clones hold their objects in packs; a fresh commit's loose objects
	// would measure zlib and open(2), not the reader.
	r.git("repack", "-a", "-d", "-q")
	repo := openTestRepo(b, r.dir)
	tree, err := repo.Tree(context.Background(), sha)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tree.ReadFile(context.Background(), paths[0]); err != nil {
		b.Fatal(err)
	}
	return tree, paths
}

// readEach reads paths from tree one request at a time.
func readEach(b *testing.B, tree *GitTree, paths []string) {
	b.Helper()
	ctx := context.Background()
	for _, p := range paths {
		if _, err := tree.ReadFile(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGitTreeRead200 reads 200 small files of one revision through the
// shared cat-file process (the listing and the process start are warm).
func BenchmarkGitTreeRead200(b *testing.B) {
	tree, paths := benchRepo(b)
	b.ResetTimer()
	for b.Loop() {
		readEach(b, tree, paths)
	}
}

// BenchmarkGitTreeReadFiles200 reads the same 200 files in one pipelined
// request.
func BenchmarkGitTreeReadFiles200(b *testing.B) {
	tree, paths := benchRepo(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		got, err := tree.ReadFiles(ctx, paths)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != len(paths) {
			b.Fatalf("read %d files, want %d", len(got), len(paths))
		}
	}
}

// BenchmarkGitTreeColdRead200 is the same from a fresh repository handle:
// listing the tree and starting cat-file included.
func BenchmarkGitTreeColdRead200(b *testing.B) {
	warm, paths := benchRepo(b)
	dir, commit := warm.repo.gitDir, warm.commit
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		repo, err := OpenRepo(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		tree, err := repo.Tree(ctx, commit)
		if err != nil {
			b.Fatal(err)
		}
		readEach(b, tree, paths)
		_ = repo.Close()
	}
}
