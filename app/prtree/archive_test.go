package prtree

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

// gitRepo makes a repository with an executable, a symlink, nested
// directories and, if submodule is set, a submodule, and returns its
// directory and HEAD.
func gitRepo(t *testing.T, submodule bool) (string, func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	write := func(p, body string, mode os.FileMode) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("README.md", "hello\n", 0o644)
	write("benchmarks/run.sh", "#!/bin/bash\necho run\n", 0o755)
	write("benchmarks/single_node/a.yaml", "a: 1\n", 0o644)
	write("benchmarks/single_node/b-b.yaml", "b: 2\n", 0o644)
	write("benchmarks/single_node.txt", "sorts after the directory in git's order\n", 0o644)
	write("utils/x.py", "print(1)\n", 0o644)
	if err := os.Symlink("../benchmarks/run.sh", filepath.Join(dir, "utils", "link.sh")); err != nil {
		t.Skip("no symlinks here")
	}
	git("add", "-A")
	if submodule {
		git("update-index", "--add", "--cacheinfo", "160000,754356e9a39acc6cc6afb242d123bb57c3fb6f75,utils/aiperf")
		git("update-index", "--add", "--cacheinfo", "160000,754356e9a39acc6cc6afb242d123bb57c3fb6f75,vendor/only/sub")
	}
	git("commit", "-q", "-m", "c")
	return dir, git
}

// TestArchiveListingIsGits: an archive git wrote reads as the trees API
// lists the commit — the same blob and tree SHAs, sizes, directories,
// symlinks as blobs of their target, submodules left out — and its root
// tree SHA is the commit's unless a submodule hides a gitlink.
func TestArchiveListingIsGits(t *testing.T) {
	for _, sub := range []bool{false, true} {
		_, git := gitRepo(t, sub)
		head := strings.TrimSpace(git("rev-parse", "HEAD"))
		tree := strings.TrimSpace(git("rev-parse", "HEAD^{tree}"))
		raw := git("archive", "--format=tar.gz", "--prefix=o-r-"+head[:7]+"/", "HEAD")
		a, err := readArchive(strings.NewReader(raw), head, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]checks.Entry{}
		for _, line := range strings.Split(strings.TrimSpace(git("ls-tree", "-r", "-t", "-l", "HEAD")), "\n") {
			meta, p, _ := strings.Cut(line, "\t")
			f := strings.Fields(meta) // mode type sha size
			switch f[1] {
			case "tree":
				want[p] = checks.Entry{Path: p, IsDir: true, ID: f[2]}
			case "blob":
				size, _ := strconv.ParseInt(f[3], 10, 64)
				want[p] = checks.Entry{Path: p, Size: size, ID: f[2]}
			}
		}
		for p, w := range want {
			got, ok := a.listing.entries[p]
			if sub && w.IsDir && (p == "utils" || strings.HasPrefix("vendor/only", p)) {
				// Trees holding a submodule cannot be named from an
				// archive; what they hold can.
				w.ID, got.ID = "", ""
			}
			if !ok || got != w {
				t.Errorf("submodule=%v: %s = %+v, want %+v", sub, p, got, w)
			}
		}
		for p := range a.listing.entries {
			if _, ok := want[p]; !ok {
				t.Errorf("submodule=%v: %s listed, git has no such blob or tree", sub, p)
			}
		}
		if kids := a.listing.children["vendor/only"]; sub && len(kids) != 0 {
			t.Errorf("vendor/only lists %v, want nothing (its only entry is a submodule)", kids)
		}
		if sub {
			if a.gitlinks != 2 || a.listing.sha == tree || !a.verified(tree) {
				t.Errorf("with submodules: %d gitlinks, root %s (commit's %s), verified %v", a.gitlinks, a.listing.sha, tree, a.verified(tree))
			}
		} else if a.listing.sha != tree || !a.verified(tree) || a.verified(strings.Repeat("0", 40)) {
			t.Errorf("root tree %s, want %s", a.listing.sha, tree)
		}
		link := a.listing.entries["utils/link.sh"]
		if string(a.blobs[link.ID]) != "../benchmarks/run.sh" {
			t.Errorf("symlink content %q, want its target", a.blobs[link.ID])
		}
	}
}

// tarGz writes a gzipped tar of the entries.
func tarGz(t *testing.T, entries ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, h := range entries {
		body := h.Linkname
		if h.Typeflag == tar.TypeReg {
			body, h.Linkname = h.Linkname, ""
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			_, _ = tw.Write([]byte(body))
		}
	}
	_ = tw.Close()
	_ = gz.Close()
	return buf.Bytes()
}

// file is a regular file entry; its content rides in Linkname until
// tarGz writes it.
func file(name, body string) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Linkname: body}
}

// TestArchiveBoundsAndMalformed: an archive over the budget (however
// well it compresses) or not shaped as git archive writes one is an
// error, never a partial listing.
func TestArchiveBoundsAndMalformed(t *testing.T) {
	sha := strings.Repeat("a", 40)
	var bomb bytes.Buffer
	gz := gzip.NewWriter(&bomb)
	tw := tar.NewWriter(gz)
	_ = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "o-r-aaaaaaa/zeros", Mode: 0o644, Size: 32 << 20})
	zeros := make([]byte, 1<<20)
	for i := 0; i < 32; i++ {
		_, _ = tw.Write(zeros)
	}
	_ = tw.Close()
	_ = gz.Close()
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"gzip bomb", bomb.Bytes(), "budget"},
		{"over the budget", tarGz(t, file("o-r-aaaaaaa/a", strings.Repeat("x", 2<<20))), "budget"},
		{"many small files over the budget", tarGz(t, func() []*tar.Header {
			var hs []*tar.Header
			for i := 0; i < 40; i++ {
				hs = append(hs, file("o-r-aaaaaaa/f"+strconv.Itoa(i), strings.Repeat("y", 64<<10)))
			}
			return hs
		}()...), "budget"},
		{"not gzip", []byte("PK\x03\x04 a zip"), "not gzip"},
		{"cut short", func() []byte { b := tarGz(t, file("o-r-aaaaaaa/a", strings.Repeat("x", 4096))); return b[:len(b)*2/3] }(), "malformed"},
		{"two top directories", tarGz(t, file("o-r-aaaaaaa/a", "a"), file("other/b", "b")), "outside"},
		{"path leaving the top", tarGz(t, file("o-r-aaaaaaa/../etc/passwd", "x")), "unclean"},
		{"hard link", tarGz(t, file("o-r-aaaaaaa/a", "a"), &tar.Header{Typeflag: tar.TypeLink, Name: "o-r-aaaaaaa/b", Linkname: "o-r-aaaaaaa/a"}), "tar type"},
		{"another commit", tarGz(t, &tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header",
			PAXRecords: map[string]string{"comment": strings.Repeat("b", 40)}, Format: tar.FormatPAX}, file("o-r-bbbbbbb/a", "a")), "not aaaa"},
		{"empty", tarGz(t), "empty"},
		{"too deep", tarGz(t, file("o-r-aaaaaaa/"+strings.Repeat("d/", maxArchiveDepth)+"f", "x")), "nested"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := readArchive(bytes.NewReader(tc.body), sha, 1<<20)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("readArchive = %v, %v; want an error mentioning %q", a, err, tc.want)
			}
			if tc.want == "budget" && !errors.Is(err, errArchiveTooLarge) {
				t.Fatalf("%v is not errArchiveTooLarge", err)
			}
		})
	}
}

// loadWith loads the fake's PR 1 with caches whose archives are bounded
// by archiveBytes, and reads every file of both trees.
func loadWith(t *testing.T, fake *fakegithub.Server, pr *fakegithub.PR, gh *github.Client, caches *Caches) *Loaded {
	t.Helper()
	ctx := context.Background()
	prJSON, err := fake.PRJSON(ctx, pr)
	if err != nil {
		t.Fatal(err)
	}
	l := &Loader{Caches: caches, MergeBases: state.NewLRU("merge_base", 1<<20, state.StringEntryBytes, nil), Now: func() time.Time { return reviewDate }}
	lc, err := l.Load(ctx, gh, prJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, tree := range []checks.Tree{lc.Change.Base, lc.Change.Head} {
		entries, err := checks.Walk(ctx, tree, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.IsDir {
				if _, err := tree.ReadFile(ctx, e.Path); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return lc
}

// TestArchiveFallsBack: a tarball over the budget, or one the App cannot
// read, costs the review nothing but the calls of the trees API.
func TestArchiveFallsBack(t *testing.T) {
	base := map[string]string{"a.sh": "echo a\n", "dir/b.yaml": "b: 1\n", "dir/c.yaml": strings.Repeat("c: 1\n", 300)}
	head := map[string]string{"a.sh": "echo A\n", "dir/b.yaml": "b: 1\n", "dir/c.yaml": strings.Repeat("c: 1\n", 300)}
	tests := []struct {
		name   string
		budget int64
		fault  *fakegithub.Fault
	}{
		{"over the budget", 1000, nil},
		{"garbage", DefaultArchiveBytes, &fakegithub.Fault{Route: fakegithub.RouteCodeload, Status: http.StatusOK, Body: "not a tarball"}},
		{"codeload down", DefaultArchiveBytes, &fakegithub.Fault{Route: fakegithub.RouteCodeload, Status: http.StatusNotFound, Body: "gone"}},
		{"no archives", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake, pr, caches, gh := apiFixture(t, base, head)
			caches.SetArchiveBytes(tc.budget)
			if tc.fault != nil {
				fake.Inject(tc.fault)
			}
			loadWith(t, fake, pr, gh, caches)
			if n := len(fake.CallsTo(fakegithub.RouteTree)); n != 2 {
				t.Errorf("%d tree calls, want 2 (base and head listed)", n)
			}
			if n := len(fake.CallsTo(fakegithub.RouteBlob)); n == 0 {
				t.Error("no blob call: the base was not read by blob")
			}
			if n := len(fake.CallsTo(fakegithub.RouteTarball)); (tc.budget > 0) != (n == 1) {
				t.Errorf("%d tarball calls with a budget of %d", n, tc.budget)
			}
		})
	}
}

// TestArchiveOnEnterpriseServer: on GHES the API is under /api/v3/ and
// codeload is on the same host; the tarball is read with the App's
// credentials there, and the review needs no blob call.
func TestArchiveOnEnterpriseServer(t *testing.T) {
	fake := fakegithub.NewUnstarted()
	api := fake.Config.Handler
	mux := http.NewServeMux()
	mux.Handle("/api/v3/", http.StripPrefix("/api/v3", api))
	mux.Handle("/_codeload/", api)
	fake.Config.Handler = mux
	fake.Start()
	t.Cleanup(fake.Close)
	fake.AddToken("tok", "someone")
	pr, err := fake.AddPR(context.Background(), fakegithub.PRSpec{Repo: "o/r", Number: 1,
		Base: checks.NewMemTree(map[string]string{"a.sh": "echo a\n", "b.yaml": "b: 1\n"}),
		Head: checks.NewMemTree(map[string]string{"a.sh": "echo A\n", "b.yaml": "b: 1\n"})})
	if err != nil {
		t.Fatal(err)
	}
	gh := tokenClient(t, fake.URL+"/api/v3/")
	caches := NewCaches(state.NewBlobCache(1<<20, nil), nil, 1<<20, 4, nil)
	loadWith(t, fake, pr, gh, caches)
	calls := fake.Calls()
	tarball, codeload := 0, 0
	for _, c := range calls {
		switch c.Route {
		case fakegithub.RouteTarball:
			tarball++
			if !strings.HasPrefix(c.Path, "/repos/o/r/tarball/") {
				t.Errorf("tarball asked at %s", c.Path)
			}
		case fakegithub.RouteCodeload:
			codeload++
		case fakegithub.RouteBlob:
			t.Errorf("blob call %s: the tarball should have served it", c.Path)
		}
	}
	if tarball != 1 || codeload != 1 {
		t.Fatalf("%d tarball and %d codeload calls, want 1 each", tarball, codeload)
	}
}

// TestArchiveFromAnotherHost: on github.com codeload is another host; the
// download carries the URL's credential only, never the token.
func TestArchiveFromAnotherHost(t *testing.T) {
	fake, pr, caches, gh := apiFixture(t, map[string]string{"a.sh": "echo a\n"}, map[string]string{"a.sh": "echo A\n"})
	codeload := httptest.NewServer(fake.Config.Handler)
	t.Cleanup(codeload.Close)
	fake.Locked(func() { fake.CodeloadURL = codeload.URL })
	loadWith(t, fake, pr, gh, caches)
	calls := fake.CallsTo(fakegithub.RouteCodeload)
	if len(calls) != 1 {
		t.Fatalf("%d codeload calls, want 1", len(calls))
	}
	if a := calls[0].Header.Get("Authorization"); a != "" {
		t.Fatalf("the codeload host got Authorization %q", a)
	}
	if n := len(fake.CallsTo(fakegithub.RouteBlob)); n != 0 {
		t.Fatalf("%d blob calls, want none", n)
	}
}

// TestArchiveOfAFork: the merge base is read from the base repository's
// tarball; the head from the fork, or from the base repository when the
// fork answers 404 (private to the App, or deleted).
func TestArchiveOfAFork(t *testing.T) {
	for _, private := range []bool{false, true} {
		fake, gh := fakeWithToken(t)
		if private {
			fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteTree, Status: http.StatusNotFound, Body: `{"message":"Not Found"}`,
				Match: func(r *http.Request, _ []byte) bool { return strings.HasPrefix(r.URL.Path, "/repos/fork/r/") }})
		}
		pr, err := fake.AddPR(context.Background(), fakegithub.PRSpec{Repo: "o/r", HeadRepo: "fork/r", Number: 1,
			Base: checks.NewMemTree(map[string]string{"a.sh": "echo a\n", "b.yaml": "b: 1\n"}),
			Head: checks.NewMemTree(map[string]string{"a.sh": "echo A\n", "b.yaml": "b: 1\n", "c.sh": "echo c\n"})})
		if err != nil {
			t.Fatal(err)
		}
		caches := NewCaches(state.NewBlobCache(1<<20, nil), nil, 1<<20, 4, nil)
		lc := loadWith(t, fake, pr, gh, caches)
		if b, err := lc.Change.Head.ReadFile(context.Background(), "c.sh"); err != nil || string(b) != "echo c\n" {
			t.Fatalf("private=%v: head c.sh = %q, %v", private, b, err)
		}
		for _, c := range fake.CallsTo(fakegithub.RouteTarball) {
			if !strings.HasPrefix(c.Path, "/repos/o/r/") {
				t.Errorf("private=%v: tarball read from %s, want the base repository", private, c.Path)
			}
		}
		forkTrees := 0
		for _, c := range fake.CallsTo(fakegithub.RouteTree) {
			if strings.HasPrefix(c.Path, "/repos/fork/r/") {
				forkTrees++
			}
		}
		if forkTrees != 1 {
			t.Errorf("private=%v: %d tree calls to the fork, want 1 (the head)", private, forkTrees)
		}
	}
}

// TestKnownMergeBaseCostsNothing: a second PR against the same merge base
// reads neither its tarball nor a blob of it again; the cached listing
// and the blob cache serve it.
func TestKnownMergeBaseCostsNothing(t *testing.T) {
	base := map[string]string{"a.sh": "echo a\n", "dir/b.yaml": "b: 1\n"}
	fake, pr, caches, gh := apiFixture(t, base, map[string]string{"a.sh": "echo A\n", "dir/b.yaml": "b: 1\n"})
	loadWith(t, fake, pr, gh, caches)
	second, err := fake.AddPR(context.Background(), fakegithub.PRSpec{Repo: "o/r", Number: 2, Base: checks.NewMemTree(base),
		Head: checks.NewMemTree(map[string]string{"a.sh": "echo a\n", "dir/b.yaml": "b: 2\n"})})
	if err != nil {
		t.Fatal(err)
	}
	if second.BaseSHA != pr.BaseSHA {
		t.Fatalf("the fixture's PRs have other bases: %s, %s", second.BaseSHA, pr.BaseSHA)
	}
	fake.ResetCalls()
	loadWith(t, fake, second, gh, caches)
	for _, c := range fake.Calls() {
		switch c.Route {
		case fakegithub.RouteTarball, fakegithub.RouteCodeload, fakegithub.RouteBlob:
			t.Errorf("%s %s: the merge base was read before", c.Method, c.Path)
		}
	}
}

// TestExportAttributesAreNotTrusted: git archive rewrites files marked
// export-subst and drops export-ignore ones, so such an archive is not
// the commit, even when its recomputed tree happens to be named.
func TestExportAttributesAreNotTrusted(t *testing.T) {
	sha := strings.Repeat("a", 40)
	a, err := readArchive(bytes.NewReader(tarGz(t, file("o-r-aaaaaaa/.gitattributes", "VERSION export-subst\n"),
		file("o-r-aaaaaaa/VERSION", "$Format:%H$\n"))), sha, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if a.verified(a.listing.sha) {
		t.Fatal("an archive with export attributes was trusted")
	}
}
