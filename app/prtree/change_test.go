package prtree

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

// reviewDate fixes the review date of the loaded changes.
var reviewDate = time.Date(2026, 8, 21, 12, 0, 0, 0, time.UTC)

// noWaits is the production retry policy without its sleeps.
func noWaits() ghapi.RetryPolicy {
	p := ghapi.DefaultRetryPolicy()
	p.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	return p
}

func TestFileChangeFromTheFilesAPI(t *testing.T) {
	tests := []struct {
		name      string
		file      github.CommitFile
		want      checks.FileStatus
		oldPath   string
		binary    bool
		added     []int
		removed   []int
		wantPatch bool
	}{
		{
			name: "modified",
			file: github.CommitFile{Filename: github.String("a.sh"), Status: github.String("modified"), Additions: github.Int(1), Deletions: github.Int(1),
				Patch: github.String("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c")},
			want: checks.Modified, oldPath: "a.sh", added: []int{2}, removed: []int{2}, wantPatch: true,
		},
		{
			name: "added without final newline",
			file: github.CommitFile{Filename: github.String("new.sh"), Status: github.String("added"), Additions: github.Int(2),
				Patch: github.String("@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file")},
			want: checks.Added, added: []int{1, 2}, wantPatch: true,
		},
		{
			name: "removed",
			file: github.CommitFile{Filename: github.String("gone.sh"), Status: github.String("removed"), Deletions: github.Int(1),
				Patch: github.String("@@ -1 +0,0 @@\n-x")},
			want: checks.Deleted, oldPath: "gone.sh", removed: []int{1}, wantPatch: true,
		},
		{
			name: "renamed and edited",
			file: github.CommitFile{Filename: github.String("b.sh"), PreviousFilename: github.String("a.sh"), Status: github.String("renamed"),
				Additions: github.Int(1), Patch: github.String("@@ -1,2 +1,3 @@\n a\n+n\n c")},
			want: checks.Renamed, oldPath: "a.sh", added: []int{2}, wantPatch: true,
		},
		{
			name: "pure rename",
			file: github.CommitFile{Filename: github.String("b.sh"), PreviousFilename: github.String("a.sh"), Status: github.String("renamed")},
			want: checks.Renamed, oldPath: "a.sh",
		},
		{
			name: "binary",
			file: github.CommitFile{Filename: github.String("logo.png"), Status: github.String("modified"), Additions: github.Int(0), Deletions: github.Int(0)},
			want: checks.Modified, oldPath: "logo.png", binary: true,
		},
		{
			name: "mode change",
			file: github.CommitFile{Filename: github.String("run.sh"), Status: github.String("changed")},
			want: checks.Modified, oldPath: "run.sh",
		},
		{
			name: "copy",
			file: github.CommitFile{Filename: github.String("copy.sh"), PreviousFilename: github.String("orig.sh"), Status: github.String("copied"),
				Additions: github.Int(1), Patch: github.String("@@ -1,2 +1,3 @@\n a\n+n\n c")},
			want: checks.Added, added: []int{1, 2, 3}, wantPatch: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc, patch, err := fileChange(&tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if fc.Status != tt.want || fc.OldPath != tt.oldPath || fc.Binary != tt.binary {
				t.Fatalf("got status %s old %q binary %v", fc.Status, fc.OldPath, fc.Binary)
			}
			if (patch != nil) != tt.wantPatch {
				t.Fatalf("patch = %v", patch)
			}
			if tt.want == checks.Added {
				for _, n := range tt.added {
					if !fc.IsAdded(n) {
						t.Errorf("line %d not added", n)
					}
				}
				return
			}
			if got := fc.AddedLines(); !equalInts(got, tt.added) {
				t.Errorf("added %v, want %v", got, tt.added)
			}
			if got := fc.RemovedLines(); !equalInts(got, tt.removed) {
				t.Errorf("removed %v, want %v", got, tt.removed)
			}
		})
	}
	if _, _, err := fileChange(&github.CommitFile{Filename: github.String("x"), Status: github.String("exploded")}); err == nil {
		t.Error("unknown status accepted")
	}
	if fc, _, _ := fileChange(&github.CommitFile{Filename: github.String("x"), Status: github.String("unchanged")}); fc != nil {
		t.Error("unchanged file listed")
	}
	if _, _, err := fileChange(&github.CommitFile{Filename: github.String("x"), Status: github.String("modified"),
		Patch: github.String("@@ -1,2 +1,2 @@\n garbage without hunk body")}); err == nil {
		t.Error("a malformed patch was accepted")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// apiFixture serves a two-commit repository and returns trees over both.
func apiFixture(t *testing.T, baseFiles, headFiles map[string]string) (*fakegithub.Server, *fakegithub.PR, *Caches, *github.Client) {
	t.Helper()
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	fake.AddToken("tok", "someone")
	pr, err := fake.AddPR(context.Background(), fakegithub.PRSpec{Repo: "o/r", Number: 1,
		Base: checks.NewMemTree(baseFiles), Head: checks.NewMemTree(headFiles)})
	if err != nil {
		t.Fatal(err)
	}
	clients, err := ghapi.NewTokenClients("tok", "", fake.APIURL(), ghapi.TransportChain(nil, noWaits(), nil, slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	gh, _ := clients.Installation(context.Background(), 0, "o", "r")
	caches := NewCaches(state.NewBlobCache(1<<20, nil), nil, 1<<20, 4, nil)
	return fake, pr, caches, gh
}

func TestAPITree(t *testing.T) {
	files := map[string]string{"a.txt": "a\n", "dir/b.sh": "echo b\n", "dir/sub/c.yaml": "c: 1\n"}
	for _, truncate := range []int{0, 2} {
		fake, pr, caches, gh := apiFixture(t, files, files)
		fake.TruncateTreesOver = truncate
		tree := newAPITree(gh, "o", "r", pr.HeadSHA, caches)
		ctx := context.Background()
		b, err := tree.ReadFile(ctx, "dir/sub/c.yaml")
		if err != nil || string(b) != "c: 1\n" {
			t.Fatalf("truncate=%d: ReadFile = %q, %v", truncate, b, err)
		}
		e, err := tree.Stat(ctx, "dir/b.sh")
		if err != nil || e.ID != checks.BlobID([]byte("echo b\n")) || e.Size != 7 {
			t.Fatalf("Stat = %+v, %v", e, err)
		}
		entries, err := tree.ReadDir(ctx, "dir")
		if err != nil || len(entries) != 2 || entries[0].Path != "dir/b.sh" || !entries[1].IsDir {
			t.Fatalf("ReadDir = %+v, %v", entries, err)
		}
		if _, err := tree.ReadFile(ctx, "nope.txt"); !checks.IsNotExist(err) {
			t.Fatalf("missing file: %v", err)
		}
		if _, err := tree.ReadDir(ctx, "nope"); !checks.IsNotExist(err) {
			t.Fatalf("missing dir: %v", err)
		}
		if _, err := tree.ReadFile(ctx, "dir"); err == nil {
			t.Fatal("read a directory as a file")
		}
		walked, err := checks.Walk(ctx, tree, "")
		if err != nil || len(walked) != 3 {
			t.Fatalf("Walk = %v, %v", walked, err)
		}
		got, err := tree.ReadFiles(ctx, []string{"a.txt", "dir/b.sh", "missing"})
		if err != nil || len(got) != 2 {
			t.Fatalf("ReadFiles = %v, %v", got, err)
		}
		blobCalls := len(fake.CallsTo(fakegithub.RouteBlob))
		// A second tree of the same commit is served from the caches.
		again := newAPITree(gh, "o", "r", pr.HeadSHA, caches)
		if _, err := again.ReadFile(ctx, "dir/sub/c.yaml"); err != nil {
			t.Fatal(err)
		}
		if n := len(fake.CallsTo(fakegithub.RouteBlob)); n != blobCalls {
			t.Fatalf("truncate=%d: warm read fetched %d blobs", truncate, n-blobCalls)
		}
		if truncate == 0 && len(fake.CallsTo(fakegithub.RouteTree)) != 1 {
			t.Fatalf("%d tree calls, want 1 recursive", len(fake.CallsTo(fakegithub.RouteTree)))
		}
	}
}

func TestDerivedHeadFilesCostNoBlobCall(t *testing.T) {
	base := map[string]string{"r.sh": strings.Repeat("line\n", 50) + "end\n"}
	head := map[string]string{"r.sh": strings.Repeat("line\n", 50) + "changed\n", "new.sh": "#!/bin/bash\necho new"}
	// r.sh costs its base version, which the rules read anyway: in the
	// merge base's tarball, or one blob call without archives; new.sh
	// comes from its patch alone.
	for _, tc := range []struct {
		archiveBytes       int64
		blobs, tarballCall int
	}{{DefaultArchiveBytes, 0, 1}, {0, 1, 0}} {
		fake, pr, caches, gh := apiFixture(t, base, head)
		caches.SetArchiveBytes(tc.archiveBytes)
		s := &Loader{Caches: caches, MergeBases: state.NewLRU("merge_base", 1<<20, state.StringEntryBytes, nil), Now: func() time.Time { return reviewDate }}
		prJSON, err := fake.PRJSON(context.Background(), pr)
		if err != nil {
			t.Fatal(err)
		}
		lc, err := s.Load(context.Background(), gh, prJSON)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		for p, want := range head {
			b, err := lc.Change.Head.ReadFile(ctx, p)
			if err != nil || string(b) != want {
				t.Fatalf("%s = %q, %v", p, b, err)
			}
		}
		if _, err := lc.Change.Base.ReadFile(ctx, "r.sh"); err != nil {
			t.Fatal(err)
		}
		if n := len(fake.CallsTo(fakegithub.RouteBlob)); n != tc.blobs {
			t.Errorf("archives up to %d bytes: %d blob calls, want %d", tc.archiveBytes, n, tc.blobs)
		}
		if n := len(fake.CallsTo(fakegithub.RouteTarball)); n != tc.tarballCall {
			t.Errorf("archives up to %d bytes: %d tarball calls, want %d", tc.archiveBytes, n, tc.tarballCall)
		}
	}
}

func TestDerivationIsVerified(t *testing.T) {
	head := map[string]string{"new.sh": "echo new\n"}
	fake, pr, caches, gh := apiFixture(t, map[string]string{"x": "x\n"}, head)
	tree := newAPITree(gh, "o", "r", pr.HeadSHA, caches)
	fc := &checks.FileChange{Path: "new.sh", Status: checks.Added}
	lying, err := parseGitHubPatch(fc, "@@ -0,0 +1 @@\n+echo something else", false)
	if err != nil {
		t.Fatal(err)
	}
	tree.derive = map[string]derivation{"new.sh": {patch: lying}}
	b, err := tree.ReadFile(context.Background(), "new.sh")
	if err != nil || string(b) != "echo new\n" {
		t.Fatalf("ReadFile = %q, %v; a patch that does not match the blob SHA must not be used", b, err)
	}
	if n := len(fake.CallsTo(fakegithub.RouteBlob)); n != 1 {
		t.Fatalf("%d blob calls, want the fallback fetch", n)
	}
}

// fakeWithToken is an empty fake and a client of it with a user token.
func fakeWithToken(t *testing.T) (*fakegithub.Server, *github.Client) {
	t.Helper()
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	fake.AddToken("tok", "someone")
	return fake, tokenClient(t, fake.APIURL())
}

// tokenClient is a client of the API at apiURL with the token "tok".
func tokenClient(t *testing.T, apiURL string) *github.Client {
	t.Helper()
	clients, err := ghapi.NewTokenClients("tok", "", apiURL, ghapi.TransportChain(nil, noWaits(), nil, slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	gh, _ := clients.Installation(context.Background(), 0, "o", "r")
	return gh
}
