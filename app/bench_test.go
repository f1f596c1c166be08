package app

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/state"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

// seedSizedBase is the fixture repository grown to the size of the real
// one's recipe directory: ~200 agentic sibling recipes (copies of the
// fixture's, each a distinct blob) beside the master configs and changelog.
func seedSizedBase(b *testing.B) (checks.Tree, checks.Tree) {
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, fixturesRoot+"/sh003-seed001-lmcache-arm")
	if err != nil {
		b.Fatal(err)
	}
	dir := "benchmarks/single_node/agentic"
	siblings, err := fx.Base.ReadDir(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	extra := map[string]string{}
	for i := 0; len(extra) < 200-len(siblings); i++ {
		src := siblings[i%len(siblings)]
		if src.IsDir {
			continue
		}
		body, err := fx.Base.ReadFile(ctx, src.Path)
		if err != nil {
			b.Fatal(err)
		}
		name := strings.TrimSuffix(src.Name(), ".sh")
		extra[path.Join(dir, fmt.Sprintf("%s_v%d.sh", name, i))] = string(body) + fmt.Sprintf("# variant %d\n", i)
	}
	grown := checks.NewMemTree(extra)
	return &trees.Overlay{Lower: fx.Base, Upper: grown}, &trees.Overlay{Lower: fx.Head, Upper: grown}
}

// headVariant is head with the changed recipe made unique, so every
// iteration reviews a new head (a new push) against the same base.
func headVariant(head checks.Tree, i int) checks.Tree {
	p := "benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh"
	body, _ := head.ReadFile(context.Background(), p)
	return &trees.Overlay{Lower: head, Upper: checks.NewMemTree(map[string]string{p: string(body) + fmt.Sprintf("# push %d\n", i)})}
}

// reviewOnce opens PR number on the fake and waits for the App to post.
func reviewOnce(b *testing.B, h *harness, base, head checks.Tree, number int) int {
	ctx := context.Background()
	b.StopTimer()
	pr, err := h.fake.AddPR(ctx, fakegithub.PRSpec{Repo: "SemiAnalysisAI/InferenceX", Number: number, Base: base,
		Head: headVariant(head, number), Labels: []string{"full-sweep-fail-fast"}})
	if err != nil {
		b.Fatal(err)
	}
	payload := prPayload(b, h, pr, "opened")
	h.fake.ResetCalls()
	b.StartTimer()
	h.deliver("pull_request", payload, http.StatusAccepted)
	for len(h.fake.Statuses(pr.Base, pr.HeadSHA)) == 0 {
		time.Sleep(50 * time.Microsecond)
	}
	b.StopTimer()
	h.wait()
	if n := len(h.fake.Reviews(pr.Base, pr.Number)); n != 1 {
		b.Fatalf("%d reviews posted, want 1", n)
	}
	calls := 0
	for _, c := range h.fake.Calls() {
		if c.Route != fakegithub.RouteAccessToken && c.Route != "GET /app" {
			calls++ // per-process setup is not the review's
		}
	}
	b.StartTimer()
	return calls
}

// BenchmarkWebhookToReview measures from the delivery of `opened` to the
// commit status (the App's last post) for a seed-sized PR against the fake
// API on loopback. cold: a fresh server per review (empty blob, tree and
// parse caches); warm: one server, each review a new head of the same
// repository.
func BenchmarkWebhookToReview(b *testing.B) {
	base, head := seedSizedBase(b)
	b.Run("cold", func(b *testing.B) {
		h := newHarness(b)
		h.install("SemiAnalysisAI/InferenceX")
		calls := 0
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			srv, err := New(h.srv.cfg)
			if err != nil {
				b.Fatal(err)
			}
			h.srv = srv
			h.http.Config.Handler = srv.Handler()
			b.StartTimer()
			calls += reviewOnce(b, h, base, head, 1000+i)
		}
		b.ReportMetric(float64(calls)/float64(b.N), "calls/review")
	})
	b.Run("warm", func(b *testing.B) {
		h := newHarness(b)
		h.install("SemiAnalysisAI/InferenceX")
		reviewOnce(b, h, base, head, 999) // fills the caches
		calls := 0
		for i := 0; i < b.N; i++ {
			calls += reviewOnce(b, h, base, head, 2000+i)
		}
		b.ReportMetric(float64(calls)/float64(b.N), "calls/review")
	})
}

// blockingLocker never grants a lease before the benchmark ends, so the
// ack benchmark measures acknowledgements, not reviews.
type blockingLocker struct{}

func (blockingLocker) Lock(ctx context.Context, _ string) (state.Lease, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// BenchmarkWebhookAck measures /webhook acknowledgements over loopback
// HTTP: body read, signature check, delivery dedup, payload parse,
// routing and enqueue (waiting jobs of one PR merge).
func BenchmarkWebhookAck(b *testing.B) {
	h := newHarness(b, func(c *Config) { c.Locker = blockingLocker{}; c.MaxQueued = 1 << 20 })
	payload := readFile(b, payloadPath(seed001))
	bodies := make([][]byte, 64)
	for i := range bodies {
		bodies[i] = bytes.Replace(payload, []byte(`"number": 2232`), []byte(fmt.Sprintf(`"number": %d`, 5000+i)), -1)
	}
	sigs := make([]string, len(bodies))
	for i, body := range bodies {
		sigs[i] = Sign(body, []byte(testSecret))
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var seq atomic.Int64
	b.SetBytes(int64(len(payload)))
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := seq.Add(1)
			i := int(n) % len(bodies)
			req, _ := http.NewRequest(http.MethodPost, h.http.URL+"/webhook", bytes.NewReader(bodies[i]))
			req.Header.Set("X-Hub-Signature-256", sigs[i])
			req.Header.Set("X-GitHub-Event", "pull_request")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("ack-%d", n))
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "acks/s")
	b.StopTimer()
	// The jobs wait on the blocking locker; cancel them.
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_ = h.srv.Shutdown(ctx)
}
