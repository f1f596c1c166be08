package app

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

// readyz is the answer of h's /readyz: its status and body.
func readyz(t *testing.T, h *harness) (int, string) {
	t.Helper()
	resp, err := http.Get(h.http.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

func warmOn(repos ...string) harnessOption { return func(c *Config) { c.Warm = repos } }

// TestWarmBeforeReady: a replica told to warm a repository reads its
// default branch and builds the pipeline model before /readyz says it is
// ready; the first review of a PR against that branch then reads no
// tarball and posts what a cold replica posts.
func TestWarmBeforeReady(t *testing.T) {
	h := newHarness(t)
	pr, payload := h.servePayload(payloadPath(seed001), "sh003-seed001-lmcache-arm")
	release := make(chan struct{})
	h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteBranch, Times: 1, Before: func() { <-release }})
	srv := newReplica(t, h, warmOn(pr.Base.FullName()))
	useReplica(h, srv)
	if code, body := readyz(t, h); code != http.StatusServiceUnavailable || body != "warming" {
		t.Fatalf("/readyz while warming: %d %q, want 503 warming", code, body)
	}
	close(release)
	waitFor(t, 30*time.Second, func() bool { code, _ := readyz(t, h); return code == http.StatusOK })
	for _, route := range []string{fakegithub.RouteRepo, fakegithub.RouteBranch, fakegithub.RouteTarball} {
		if n := len(h.fake.CallsTo(route)); n != 1 {
			t.Errorf("warming called %s %d times, want once", route, n)
		}
	}
	if srv.parseCache.Len() == 0 {
		t.Fatal("warming kept nothing in the parse cache")
	}
	if !strings.Contains(h.logs.String(), "warmed the caches") {
		t.Error("warming did not log that it was done")
	}

	h.fake.ResetCalls()
	h.deliver("pull_request", payload, http.StatusAccepted)
	h.wait()
	if n := len(h.fake.CallsTo(fakegithub.RouteTarball)); n != 0 {
		t.Errorf("the first review read the tarball of a merge base the replica warmed (%d calls)", n)
	}
	golden(t, "seed001.posted.md", h.posted(pr))
}

// TestWarmFailureIsNotFatal: a repository that cannot be warmed (the App
// is not installed on it, its branch is gone) is logged, and the replica
// is ready all the same.
func TestWarmFailureIsNotFatal(t *testing.T) {
	h := newHarness(t)
	pr, _ := h.servePayload(payloadPath(seed001), "sh003-seed001-lmcache-arm")
	h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteBranch, Status: http.StatusNotFound, Body: `{"message":"Branch not found"}`})
	useReplica(h, newReplica(t, h, warmOn("nobody/nothing", pr.Base.FullName())))
	waitFor(t, 30*time.Second, func() bool { code, _ := readyz(t, h); return code == http.StatusOK })
	logs := h.logs.String()
	for _, repo := range []string{"nobody/nothing", pr.Base.FullName()} {
		if !strings.Contains(logs, "could not warm the caches") || !strings.Contains(logs, repo) {
			t.Errorf("no warning that %s could not be warmed", repo)
		}
	}
}

// TestWarmIsBounded: warming that does not finish within WarmTimeout is
// given up, and the replica is ready.
func TestWarmIsBounded(t *testing.T) {
	h := newHarness(t)
	pr, _ := h.servePayload(payloadPath(seed001), "sh003-seed001-lmcache-arm")
	release := make(chan struct{})
	defer close(release)
	h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteBranch, Before: func() {
		select {
		case <-release:
		case <-time.After(20 * time.Second):
		}
	}})
	useReplica(h, newReplica(t, h, warmOn(pr.Base.FullName()), func(c *Config) { c.WarmTimeout = 200 * time.Millisecond }))
	// The branch read is held for 20 s: only the bound makes it ready
	// before that.
	waitFor(t, 15*time.Second, func() bool { code, _ := readyz(t, h); return code == http.StatusOK })
}
