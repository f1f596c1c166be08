package app

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/app/metrics"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/all"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

const (
	testSecret   = "It's a Secret to Everybody"
	installID    = 1
	fixturesRoot = "../testdata/prs"
)

// reviewDate fixes the review date, so date-dependent rules answer the
// same every day.
var reviewDate = time.Date(2026, 8, 21, 12, 0, 0, 0, time.UTC)

// syncBuffer is a log sink shared by the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// harness is the App's real HTTP server in front of the fake GitHub, as an
// App installation (installation 1) with recorded retry sleeps.
type harness struct {
	t    testing.TB
	fake *fakegithub.Server
	// clock is the App's clock (review dates, the ledger's times): fixed
	// at the harness's date until a test moves it.
	clock   *testClock
	srv     *Server
	http    *httptest.Server
	sleeper *sleeper
	logs    *syncBuffer
	nextID  atomic.Int64
}

type harnessOption func(*Config)

func newHarness(t testing.TB, opts ...harnessOption) *harness {
	t.Helper()
	h := &harness{t: t, fake: fakegithub.New(), sleeper: &sleeper{}, logs: &syncBuffer{}}
	t.Cleanup(h.fake.Close)
	h.fake.SetAppKey(&appKey(t).PublicKey)
	log := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	mets := metrics.New()
	chain := ghapi.TransportChain(nil, testPolicy(h.sleeper), mets, log)
	auth, err := ghapi.NewAppAuth(h.fake.AppID, appKey(t), h.fake.APIURL(), chain, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{WebhookSecret: []byte(testSecret), Clients: ghapi.NewAppClients(auth, h.fake.APIURL(), chain),
		Metrics: mets, Logger: log, Now: func() time.Time { return reviewDate }}
	for _, o := range opts {
		o(&cfg)
	}
	h.clock = &testClock{t: cfg.Now()}
	cfg.Now = h.clock.Now
	if h.srv, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	h.http = httptest.NewServer(h.srv.Handler())
	t.Cleanup(func() {
		h.http.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.srv.Shutdown(ctx)
		if t.Failed() {
			t.Logf("server log:\n%s", h.logs.String())
		}
	})
	return h
}

// testClock is a clock a test sets.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// at runs fn with the App's clock at t, then puts it back.
func (h *harness) at(t time.Time, fn func()) {
	prev := h.clock.Now()
	h.clock.Set(t)
	defer h.clock.Set(prev)
	fn()
}

// pushed delivers the pull_request event GitHub sends for a push to pr
// (synchronize) at time at, and waits for the review it starts: the App
// records the new head then.
func (h *harness) pushed(pr *fakegithub.PR, at time.Time) {
	h.t.Helper()
	h.at(at, func() {
		h.deliver("pull_request", prPayload(h.t, h, pr, "synchronize"), http.StatusAccepted)
		h.wait()
	})
}

// install installs the App on repos as installation 1.
func (h *harness) install(repos ...string) { h.fake.Install(installID, repos...) }

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// servePayload serves the PR of a payload file with a fixture's contents
// and installs the App on its repository.
func (h *harness) servePayload(payloadFile, fixture string) (*fakegithub.PR, []byte) {
	h.t.Helper()
	payload := readFile(h.t, payloadFile)
	pr, err := h.fake.AddPayloadPR(context.Background(), payload, filepath.Join(fixturesRoot, fixture))
	if err != nil {
		h.t.Fatal(err)
	}
	h.install(pr.Base.FullName())
	return pr, payload
}

// post sends a delivery, signed unless sig is given.
func (h *harness) post(event string, body []byte, id, sig string) *http.Response {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.http.URL+"/webhook", bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if sig == "" {
		sig = Sign(body, []byte(testSecret))
	}
	req.Header.Set("X-Hub-Signature-256", sig)
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// deliver sends a signed delivery with a fresh id and checks the status.
func (h *harness) deliver(event string, body []byte, wantStatus int) string {
	h.t.Helper()
	id := fmt.Sprintf("delivery-%d", h.nextID.Add(1))
	if resp := h.post(event, body, id, ""); resp.StatusCode != wantStatus {
		h.t.Fatalf("%s delivery %s: status %d, want %d", event, id, resp.StatusCode, wantStatus)
	}
	return id
}

// wait blocks until every queued job has finished.
func (h *harness) wait() {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for h.srv.dispatch.Backlog() > 0 {
		if time.Now().After(deadline) {
			h.t.Fatal("jobs still running after 30s")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// posted renders everything the App posted on a PR, for goldens.
func (h *harness) posted(pr *fakegithub.PR) string {
	var b strings.Builder
	for i, r := range h.fake.Reviews(pr.Base, pr.Number) {
		fmt.Fprintf(&b, "## review %d (%s on %.12s)\n\n%s\n\n", i+1, r.Review.GetState(), r.Review.GetCommitID(), r.Review.GetBody())
		for _, c := range r.Comments {
			anchor := fmt.Sprintf("%s:%d", c.GetPath(), c.GetLine())
			if c.GetStartLine() > 0 {
				anchor = fmt.Sprintf("%s:%d-%d", c.GetPath(), c.GetStartLine(), c.GetLine())
			}
			fmt.Fprintf(&b, "### %s (%s)\n\n%s\n\n", anchor, c.GetSide(), c.GetBody())
		}
	}
	for _, c := range h.fake.IssueComments(pr.Base, pr.Number) {
		fmt.Fprintf(&b, "## comment by %s\n\n%s\n\n", c.GetUser().GetLogin(), c.GetBody())
	}
	for _, st := range h.fake.Statuses(pr.Base, pr.HeadSHA) {
		fmt.Fprintf(&b, "## status %s: %s — %s\n", st.GetContext(), st.GetState(), st.GetDescription())
	}
	return b.String()
}

// stableIDs replaces the ids the fake hands out in the bot's hidden
// markers, which depend on how many objects a test made before.
func stableIDs(s string) string {
	return regexp.MustCompile(`(<!-- reviewbot:signoff-source [a-z_]+=)\d+ -->`).ReplaceAllString(s, "${1}N -->")
}

func golden(t testing.TB, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test ./app -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", p, diff)
	}
}

// sharedWebhooks is ../shared/webhooks beside the repository, or "" when
// absent (CI has no copy). REVIEWBOT_SHARED overrides the location.
func sharedWebhooks(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("REVIEWBOT_SHARED"); dir != "" {
		return filepath.Join(dir, "webhooks")
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for ; ; dir = filepath.Dir(dir) {
		cand := filepath.Join(dir, "shared", "webhooks")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		if filepath.Dir(dir) == dir {
			t.Skip("../shared/webhooks not found")
		}
	}
}

// loadFixtureChange reviews a fixture locally, as `reviewbot review
// --fixture` does, for comparison with what the App posted.
func loadFixtureChange(fixture string, number int) (*reviewer.Report, error) {
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, filepath.Join(fixturesRoot, fixture))
	if err != nil {
		return nil, err
	}
	ch := fx.Change()
	ch.PR.Number = number
	ch.Date = reviewDate
	reg, err := all.Registry()
	if err != nil {
		return nil, err
	}
	res, err := checks.Review(ctx, reg, ch)
	if err != nil {
		return nil, err
	}
	return &reviewer.Report{Findings: res.Findings, Files: ch.Files, Stats: res.Stats, Errors: res.Errors}, nil
}

func memTreeOf(files map[string]string) checks.Tree { return checks.NewMemTree(files) }

// prPayload is a pull_request delivery for a PR of the fake, as GitHub
// would send it.
func prPayload(t testing.TB, h *harness, pr *fakegithub.PR, action string) []byte {
	t.Helper()
	ev := map[string]any{"action": action, "number": pr.Number, "installation": map[string]any{"id": installID}}
	b, err := h.fake.RewritePayload(context.Background(), mustJSON(t, ev), pr, installID)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
