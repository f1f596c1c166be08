package fakegithub

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func client(t *testing.T, s *Server) *github.Client {
	t.Helper()
	s.AddToken("tok", "alice")
	c := github.NewClient(nil).WithAuthToken("tok")
	c, err := c.WithEnterpriseURLs(s.APIURL(), s.APIURL())
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL.Path = "/"
	return c
}

// TestObjectIDsAreGits checks the fake's tree and commit-free object IDs
// against git itself.
func TestObjectIDsAreGits(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	files := map[string]string{"a.txt": "a\n", "dir/b.sh": "echo b\n", "dir/sub/c": "", "dir.txt": "x"}
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		_ = os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	want := git("write-tree")
	o := newObjects()
	in := map[string][]byte{}
	for p, c := range files {
		in[p] = []byte(c)
	}
	if got := o.writeTree(in); got != want {
		t.Fatalf("tree %s, git says %s", got, want)
	}
}

func TestPRFilesPagesAndPatches(t *testing.T) {
	s := New()
	defer s.Close()
	ctx := context.Background()
	base := map[string]string{"keep.txt": "k\n", "edit.sh": "a\nb\nc\n", "gone.txt": "g\n", "noeol.txt": "x"}
	head := map[string]string{"keep.txt": "k\n", "edit.sh": "a\nB\nc\n", "noeol.txt": "y"}
	for i := range 150 {
		head[strings.Repeat("n", 1)+"/f"+string(rune('a'+i%26))+string(rune('a'+i/26))+".txt"] = "new\n"
	}
	pr, err := s.AddPR(ctx, PRSpec{Repo: "o/r", Number: 7, Base: checks.NewMemTree(base), Head: checks.NewMemTree(head)})
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, s)
	var all []*github.CommitFile
	opts := &github.ListOptions{PerPage: 100}
	for {
		files, resp, err := c.PullRequests.ListFiles(ctx, "o", "r", 7, opts)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, files...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(all) != 153 {
		t.Fatalf("%d files, want 153", len(all))
	}
	byName := map[string]*github.CommitFile{}
	for _, f := range all {
		byName[f.GetFilename()] = f
	}
	if f := byName["edit.sh"]; f.GetStatus() != "modified" || f.GetPatch() != "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c" || f.GetSHA() != checks.BlobID([]byte("a\nB\nc\n")) {
		t.Errorf("edit.sh: %s %q %s", f.GetStatus(), f.GetPatch(), f.GetSHA())
	}
	if f := byName["gone.txt"]; f.GetStatus() != "removed" {
		t.Errorf("gone.txt: %s", f.GetStatus())
	}
	if f := byName["noeol.txt"]; f.GetPatch() != "@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file" {
		t.Errorf("noeol.txt patch %q", f.GetPatch())
	}
	got, _, err := c.PullRequests.Get(ctx, "o", "r", 7)
	if err != nil || got.GetHead().GetSHA() != pr.HeadSHA || got.GetChangedFiles() != 153 {
		t.Fatalf("PR: %+v %v", got, err)
	}
}

func TestReviewValidationAndFaults(t *testing.T) {
	s := New()
	defer s.Close()
	ctx := context.Background()
	base := map[string]string{"a.sh": strings.Repeat("x\n", 20)}
	head := map[string]string{"a.sh": strings.Repeat("x\n", 10) + "new\n" + strings.Repeat("x\n", 10)}
	pr, err := s.AddPR(ctx, PRSpec{Repo: "o/r", Number: 1, Base: checks.NewMemTree(base), Head: checks.NewMemTree(head)})
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, s)
	review := func(line int) error {
		_, _, err := c.PullRequests.CreateReview(ctx, "o", "r", 1, &github.PullRequestReviewRequest{
			CommitID: github.String(pr.HeadSHA), Event: github.String("COMMENT"), Body: github.String("b"),
			Comments: []*github.DraftReviewComment{{Path: github.String("a.sh"), Line: github.Int(line), Side: github.String("RIGHT"), Body: github.String("c")}}})
		return err
	}
	if err := review(11); err != nil {
		t.Fatalf("comment on the added line: %v", err)
	}
	if err := review(13); err != nil {
		t.Fatalf("comment on a context line: %v", err)
	}
	if err := review(20); err == nil || !strings.Contains(err.Error(), "422") {
		t.Fatalf("comment outside the hunk: %v", err)
	}
	s.RejectComments(func(path string, line int) bool { return line == 11 })
	if err := review(11); err == nil {
		t.Fatal("rejected comment accepted")
	}
	f := s.Inject(&Fault{Route: RoutePull, Times: 1, Status: http.StatusBadGateway, Body: `{"message":"x"}`})
	if _, _, err := c.PullRequests.Get(ctx, "o", "r", 1); err == nil || f.Fired() != 1 {
		t.Fatalf("fault: %v (fired %d)", err, f.Fired())
	}
	if _, _, err := c.PullRequests.Get(ctx, "o", "r", 1); err != nil {
		t.Fatalf("fault fired more than Times: %v", err)
	}
	calls := s.CallsTo(RoutePull)
	if len(calls) != 2 || !calls[0].Fault || calls[1].Fault || calls[0].Status != 502 {
		t.Fatalf("recorded %+v", calls)
	}
	// Unauthenticated requests are refused.
	resp, err := http.Get(s.URL + "/repos/o/r/pulls/1")
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || body["message"] != "Bad credentials" {
		t.Fatalf("anonymous request: %d %v", resp.StatusCode, body)
	}
}
