package fakegithub

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// TestTarballAnswersLikeGitHub: the API redirects to codeload; codeload
// serves a gzipped tar of the commit under {owner}-{repo}-{short sha}/
// to whoever has the URL, and nothing to whoever has not.
func TestTarballAnswersLikeGitHub(t *testing.T) {
	files := map[string]string{"a.txt": "a\n", "dir/b.sh": "echo b\n", "dir/sub/c": ""}
	s, pr := archivePR(t, files)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(url, tok string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if tok != "" {
			req.Header.Set("Authorization", "token "+tok)
		}
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	api := s.URL + "/repos/acme/widgets/tarball/"
	if resp := get(api+pr.BaseSHA, ""); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no credentials: %s, want 401", resp.Status)
	}
	if resp := get(api+strings.Repeat("0", 40), "tok"); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown ref: %s, want 404", resp.Status)
	}
	resp := get(api+pr.BaseSHA, "tok")
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.Contains(loc, "/legacy.tar.gz/"+pr.BaseSHA) {
		t.Fatalf("tarball: %s Location %q, want 302 to codeload", resp.Status, loc)
	}
	if resp := get(strings.Replace(loc, "token=", "token=x", 1), ""); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("forged codeload URL: %s, want 404", resp.Status)
	}
	resp = get(loc, "") // the URL is the credential
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("codeload: %s", resp.Status)
	}
	gz, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	top := "acme-widgets-" + pr.BaseSHA[:7] + "/"
	got := map[string]string{}
	var comment string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch h.Typeflag {
		case tar.TypeXGlobalHeader:
			comment = h.PAXRecords["comment"]
		case tar.TypeReg:
			name, ok := strings.CutPrefix(h.Name, top)
			if !ok {
				t.Fatalf("entry %q outside %s", h.Name, top)
			}
			b, _ := io.ReadAll(tr)
			got[name] = string(b)
		}
	}
	if comment != pr.BaseSHA {
		t.Errorf("pax comment %q, want the commit SHA", comment)
	}
	if len(got) != len(files) {
		t.Fatalf("archive has %v, want %v", got, files)
	}
	for p, c := range files {
		if got[p] != c {
			t.Errorf("%s: %q, want %q", p, got[p], c)
		}
	}
}

// TestCallRecordedWhenAnswered checks that a call is in Calls by the time
// its client has read the whole answer: a body of known length ends at
// the client before the handler returns, and a test that counts the
// calls of one step must not find the previous step's download in them.
func TestCallRecordedWhenAnswered(t *testing.T) {
	files := map[string]string{}
	for i := range 64 {
		// Text that does not compress: the answer is larger than the
		// server's write buffer, and leaves in the handler's one write.
		files[fmt.Sprintf("dir/f%03d.txt", i)] = randomHex(2048)
	}
	s, pr := archivePR(t, files)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/repos/acme/widgets/tarball/"+pr.BaseSHA, nil)
	req.Header.Set("Authorization", "token tok")
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	for i := range 300 {
		s.ResetCalls()
		resp, err := http.Get(loc)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || n == 0 {
			t.Fatalf("download %d: %d bytes, %v", i, n, err)
		}
		calls := s.Calls()
		if len(calls) != 1 || calls[0].Route != RouteCodeload || calls[0].Status != http.StatusOK {
			t.Fatalf("download %d read to its end: calls %+v, want the one codeload call, answered 200", i, calls)
		}
	}
}

// archivePR is a fake with PR 1 of acme/widgets, whose base holds files,
// and the token "tok" of alice.
func archivePR(t *testing.T, files map[string]string) (*Server, *PR) {
	t.Helper()
	s := New()
	t.Cleanup(s.Close)
	pr, err := s.AddPR(context.Background(), PRSpec{Repo: "acme/widgets", Number: 1, Base: checks.NewMemTree(files),
		Head: checks.NewMemTree(map[string]string{"a.txt": "b\n"})})
	if err != nil {
		t.Fatal(err)
	}
	s.AddToken("tok", "alice")
	return s, pr
}
