package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/reviewbot-dev/reviewbot/app/internal/redistest"
	"github.com/reviewbot-dev/reviewbot/app/metrics"
	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

func withRedis(r *state.Redis) harnessOption { return func(c *Config) { c.Redis = r } }

// addSeedVariant serves the seed001 fixture as PR number, its head made
// unique (one more comment line at the end of the changed recipe), so
// every PR has its own head commit and statuses.
func addSeedVariant(t testing.TB, fake *fakegithub.Server, number int) *fakegithub.PR {
	t.Helper()
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, fixturesRoot+"/sh003-seed001-lmcache-arm")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := fake.AddPR(ctx, fakegithub.PRSpec{Repo: fx.PR.RepoSlug(), Number: number, Base: fx.Base,
		Head: headVariant(fx.Head, number), Title: fx.PR.Title, Author: fx.PR.Author, Labels: fx.PR.Labels})
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

// postedOnce checks a PR carries exactly one review, the welcome and the
// summary, and one status on its head.
func postedOnce(t *testing.T, fake *fakegithub.Server, pr *fakegithub.PR) {
	t.Helper()
	if n := len(fake.Reviews(pr.Base, pr.Number)); n != 1 {
		t.Errorf("%s#%d: %d reviews, want 1", pr.Base.FullName(), pr.Number, n)
	}
	var welcome, summary int
	for _, c := range fake.IssueComments(pr.Base, pr.Number) {
		switch {
		case reviewer.HasWelcomeMarker(c.GetBody()):
			welcome++
		case reviewer.ParseSummaryMarker(c.GetBody()):
			summary++
		}
	}
	if welcome != 1 || summary != 1 {
		t.Errorf("%s#%d: %d welcome and %d summary comments, want 1 each", pr.Base.FullName(), pr.Number, welcome, summary)
	}
	if n := len(fake.Statuses(pr.Base, pr.HeadSHA)); n != 1 {
		t.Errorf("%s#%d: %d statuses on the head, want 1", pr.Base.FullName(), pr.Number, n)
	}
}

// TestLostRedisCausesNoDuplicatePost: Redis forgets everything (a crash
// without persistence, a flush) after a review; GitHub redelivers the
// delivery and sends another for the same head. The App reviews again and
// posts nothing twice, because what it posted is read back from GitHub.
func TestLostRedisCausesNoDuplicatePost(t *testing.T) {
	p := redistest.Start(t)
	r := newTestRedis(t, p)
	h, pr, payload := serveSeed001(t, withRedis(r))
	if resp := h.post("pull_request", payload, "lost-1", ""); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("first delivery: %d", resp.StatusCode)
	}
	h.wait()
	postedOnce(t, h.fake, pr)
	if resp := h.post("pull_request", payload, "lost-1", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("redelivery with Redis intact: %d, want 200", resp.StatusCode)
	}

	p.Restart() // empty
	waitFor(t, 5*time.Second, r.Up)
	if n, _ := p.Client().DBSize(context.Background()).Result(); n != 0 {
		t.Fatalf("the restarted Redis holds %d keys", n)
	}
	files := reviewRuns(h.fake)
	if resp := h.post("pull_request", payload, "lost-1", ""); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("redelivery after Redis lost it: %d, want 202 (processed again)", resp.StatusCode)
	}
	h.deliver("pull_request", withAction(t, payload, "synchronize"), http.StatusAccepted)
	h.wait()
	if n := reviewRuns(h.fake); n == files {
		t.Fatal("the deliveries were not reviewed again; the test proves nothing")
	}
	// The summary is edited in place (it now says nothing is new), never
	// posted again.
	postedOnce(t, h.fake, pr)
}

// TestRedisOutage: with Redis down, deliveries are acknowledged (202, not
// 503), /readyz says not ready, the errors are counted, and the waiting
// work holds one goroutine per PR, not per delivery. When Redis is back
// every PR is reviewed once, duplicates among the deliveries are dropped,
// and the goroutines go back to where they were.
func TestRedisOutage(t *testing.T) {
	p := redistest.Start(t)
	r := newTestRedis(t, p)
	h := newHarness(t, withRedis(r))
	ctx := context.Background()
	const prs, ids = 10, 10
	var pulls []*fakegithub.PR
	for i := range prs {
		pulls = append(pulls, addSeedVariant(t, h.fake, 100+i))
	}
	h.install(pulls[0].Base.FullName())
	payloads := make([][]byte, prs)
	for i, pr := range pulls {
		payloads[i] = prPayload(t, h, pr, "opened")
	}
	readyz := func() int {
		resp, err := http.Get(h.http.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := readyz(); code != http.StatusOK {
		t.Fatalf("/readyz %d before the outage", code)
	}
	http.DefaultClient.CloseIdleConnections()
	baseline := runtime.NumGoroutine()

	p.Stop()
	waitFor(t, 5*time.Second, func() bool { return !r.Up() })
	if code := readyz(); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz %d while Redis is down, want 503", code)
	}
	// Every delivery twice (a redelivery), from a few senders at once.
	var wg sync.WaitGroup
	statuses := make(chan int, prs*ids*2)
	for i := range prs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range ids * 2 {
				statuses <- h.post("pull_request", payloads[i], fmt.Sprintf("outage-%d-%d", i, k%ids), "").StatusCode
			}
		}()
	}
	wg.Wait()
	close(statuses)
	for code := range statuses {
		if code != http.StatusAccepted {
			t.Fatalf("a delivery got %d during the outage, want 202", code)
		}
	}
	http.DefaultClient.CloseIdleConnections()
	// The outage lasts: the waiting jobs retry with backoff, and nothing
	// piles up as the retries go on.
	var samples []int
	for range 4 {
		time.Sleep(600 * time.Millisecond)
		samples = append(samples, runtime.NumGoroutine())
	}
	lo, hi := samples[0], samples[0]
	for _, n := range samples {
		lo, hi = min(lo, n), max(hi, n)
	}
	if hi > baseline+prs+10 {
		t.Fatalf("%d goroutines during the outage for %d PRs (%d before): they grow with the deliveries", hi, prs, baseline)
	}
	if hi-lo > 2 {
		t.Fatalf("goroutines %v during the outage: they grow with time", samples)
	}
	if n := redisCount(r, "reviewbot_redis_errors_total", "dedup"); n < prs {
		t.Errorf("%v failed dedup calls counted; the waiting jobs are not retrying", n)
	}
	if n := redisCount(r, "reviewbot_redis_errors_total", "ping"); n == 0 {
		t.Error("failed pings were not counted")
	}
	if n := redisCount(r, "reviewbot_redis_events_total", "deferred"); n != prs*ids*2 {
		t.Errorf("%v deferred deliveries counted, want %d", n, prs*ids*2)
	}
	for _, pr := range pulls {
		if len(h.fake.Reviews(pr.Base, pr.Number)) != 0 {
			t.Fatal("a review ran without Redis")
		}
	}

	p.Restart()
	waitFor(t, 5*time.Second, r.Up)
	waitFor(t, 60*time.Second, func() bool {
		for _, pr := range pulls {
			if len(h.fake.Statuses(pr.Base, pr.HeadSHA)) == 0 {
				return false
			}
		}
		return h.srv.dispatch.Backlog() == 0
	})
	for _, pr := range pulls {
		postedOnce(t, h.fake, pr)
	}
	if n := redisCount(r, "reviewbot_redis_events_total", "duplicate_late"); n != prs*ids {
		t.Errorf("%v duplicates found once Redis answered, want %d", n, prs*ids)
	}
	if code := readyz(); code != http.StatusOK {
		t.Fatalf("/readyz %d after Redis came back", code)
	}
	c := p.Client()
	if n, _ := c.ZCard(ctx, "reviewbot:pending").Result(); n != 0 {
		t.Errorf("%d PRs still pending in Redis", n)
	}
	left := h.srv.dispatch.Keys()
	if left != 0 {
		t.Errorf("the dispatcher still tracks %d PRs", left)
	}
	http.DefaultClient.CloseIdleConnections()
	waitFor(t, 5*time.Second, func() bool { return runtime.NumGoroutine() <= baseline+2 })
}

// replica is a second App server on the harness's fake GitHub, sharing
// state through its own connection to the same Redis.
func (h *harness) replica(t *testing.T, r *state.Redis) (*Server, *httptest.Server) {
	t.Helper()
	cfg := h.srv.cfg
	cfg.Redis, cfg.Deliveries, cfg.Locker, cfg.Metrics = r, nil, nil, metrics.New()
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return srv, hs
}

// TestReplicasShareBlobs: a replica with a cold cache reviews a PR of a
// repository another replica has read, and gets the files from Redis
// instead of GitHub. The tier serves the blob-by-blob reads, so tarballs
// are off here (a merge base read as a tarball needs no blob call).
func TestReplicasShareBlobs(t *testing.T) {
	p := redistest.Start(t)
	budget := func(o *state.RedisOptions) { o.BlobCacheBytes = 64 << 20 }
	// The first replica sweeps for unclaimed work only at start: the
	// second PR's work, stored by the second replica, must be run there.
	slowSweep := func(o *state.RedisOptions) { o.LeaseTTL = time.Minute }
	ra, rb := newTestRedis(t, p, budget, slowSweep), newTestRedis(t, p, budget)
	h := newHarness(t, withRedis(ra), func(c *Config) { c.ArchiveBytes = -1 })
	prA, prB := addSeedVariant(t, h.fake, 1), addSeedVariant(t, h.fake, 2)
	h.install(prA.Base.FullName())
	h.deliver("pull_request", prPayload(t, h, prA, "opened"), http.StatusAccepted)
	h.wait()
	blobsA := len(h.fake.CallsTo(fakegithub.RouteBlob))
	if blobsA == 0 {
		t.Fatal("the first review read no blob; the test proves nothing")
	}

	srvB, hsB := h.replica(t, rb)
	h.fake.ResetCalls()
	body := prPayload(t, h, prB, "opened")
	req, _ := http.NewRequest(http.MethodPost, hsB.URL+"/webhook", strings.NewReader(string(body)))
	req.Header.Set("X-Hub-Signature-256", Sign(body, []byte(testSecret)))
	req.Header.Set("X-GitHub-Event", "pull_request")
	req.Header.Set("X-GitHub-Delivery", "blobs-b")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("delivery to the second replica: %v %v", resp, err)
	}
	resp.Body.Close()
	waitFor(t, 30*time.Second, func() bool { return len(h.fake.Statuses(prB.Base, prB.HeadSHA)) > 0 && srvB.dispatch.Backlog() == 0 })
	postedOnce(t, h.fake, prB)
	if n := len(h.fake.CallsTo(fakegithub.RouteBlob)); n != 0 {
		t.Errorf("the second replica fetched %d blobs from GitHub (the first fetched %d); want all from Redis", n, blobsA)
	}
	if hits := testutil.ToFloat64(srvB.metrics.CacheCounter("blob_redis", "hit")); hits < float64(blobsA) {
		t.Errorf("%v hits in the shared tier, want at least %d", hits, blobsA)
	}
}

// TestSeedReviewsWithRedis: through Redis (stored work, a lease, the work
// taken back out) a review posts exactly what the in-memory server posts.
func TestSeedReviewsWithRedis(t *testing.T) {
	p := redistest.Start(t)
	for _, tc := range seedCases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, withRedis(newTestRedis(t, p, func(o *state.RedisOptions) { o.Prefix = tc.name + ":" })))
			pr, payload := h.servePayload(payloadPath(tc.payload), tc.fixture)
			h.deliver("pull_request", payload, http.StatusAccepted)
			h.wait()
			golden(t, tc.name+".posted.md", h.posted(pr))
			postedOnce(t, h.fake, pr)
		})
	}
}

// TestSlowRedis: Redis answers, but slower than an acknowledgement may
// wait. The delivery is acknowledged without its answer, checked against
// the dedup later, and reviewed once.
func TestSlowRedis(t *testing.T) {
	p := redistest.Start(t)
	proxy := redistest.StartSlowProxy(t, fmt.Sprintf("127.0.0.1:%d", p.Port), 150*time.Millisecond)
	r := newTestRedis(t, p, func(o *state.RedisOptions) {
		o.URL, o.LeaseTTL, o.AckTimeout = proxy.URL(), 3*time.Second, 100*time.Millisecond
	})
	h, pr, payload := serveSeed001(t, withRedis(r))
	if !r.Up() {
		t.Fatal("a slow Redis counts as down")
	}
	if resp := h.post("pull_request", payload, "slow-1", ""); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("delivery: %d", resp.StatusCode)
	}
	if n := redisCount(r, "reviewbot_redis_events_total", "deferred"); n != 1 {
		t.Fatalf("%v deferred deliveries, want 1: the acknowledgement waited for the slow Redis", n)
	}
	waitFor(t, 60*time.Second, func() bool {
		return len(h.fake.Statuses(pr.Base, pr.HeadSHA)) > 0 && h.srv.dispatch.Backlog() == 0
	})
	postedOnce(t, h.fake, pr)
	// The dedup was recorded after all: a redelivery is a duplicate.
	h.post("pull_request", payload, "slow-1", "")
	h.wait() // its late check, if the acknowledgement could not wait for it
	postedOnce(t, h.fake, pr)
	if n := reviewRuns(h.fake); n != 1 {
		t.Fatalf("%d review runs, want 1", n)
	}
}

// TestSeed004WithRedis: the reuse commands and the sign-off of seed 004,
// stored as work in Redis and taken back out by the lease holder, get the
// same replies and verdict as in memory (the work hash carries commands
// and sign-offs).
func TestSeed004WithRedis(t *testing.T) {
	p := redistest.Start(t)
	h := newHarness(t, atDate(seed004Day.Add(13*time.Hour)),
		withRedis(newTestRedis(t, p, func(o *state.RedisOptions) { o.Prefix = "seed004:" })))
	sd := serveSeed004(t, h, nil)
	sd.deliverComment(t, sd.bare, "created", "", http.StatusAccepted)
	sd.deliverComment(t, sd.pinned, "created", "", http.StatusAccepted)
	h.wait()
	golden(t, "seed004.reuse-bare.md", replyTo(t, h, sd.pr, sd.bare.GetID()))
	golden(t, "seed004.reuse-pinned.md", replyTo(t, h, sd.pr, sd.pinned.GetID()))

	body := string(readFile(t, filepath.Join(seed004Fixture, "signoff.md")))
	sd.postComment(t, "Ankur-singh", "COLLABORATOR", body, seed004Signoff)
	h.wait()
	golden(t, "seed004.signoff.md", stableIDs(verdictFor(t, h, sd.pr, seed004Head)))
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
		t.Errorf("status %s %q", st.GetState(), st.GetDescription())
	}
}
