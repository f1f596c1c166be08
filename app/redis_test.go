package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/reviewbot-dev/reviewbot/app/ghapi"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

func TestRedisURLValidation(t *testing.T) {
	for _, tt := range []struct {
		url string
		ok  bool
	}{
		{"redis://127.0.0.1:6379/0", true},
		{"rediss://user:s3cret@redis.example:6380/2", true},
		{"redis://:s3cret@localhost", true},
		{"redis://127.0.0.1:6379/0?dial_timeout=3s", true},
		{"unix:///run/redis.sock", true},
		{"http://127.0.0.1:6379", false},
		{"127.0.0.1:6379", false},
		{"redis://:s3cret@host/notadb", false},
		{"redis://:s3cret@host/0?no_such_option=1", false},
	} {
		err := ValidateRedisURL(tt.url)
		if (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.url, err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the message shows the password: %v", tt.url, err)
		}
	}
}

func TestRedisDeliveries(t *testing.T) {
	p := startRedis(t)
	ctx := context.Background()
	r := newTestRedis(t, p)
	d := r.Deliveries()
	if first, err := d.Claim(ctx, "abc", "n-abc"); err != nil || !first {
		t.Fatalf("first sighting: %v %v", first, err)
	}
	// Claimed a moment ago, its work not stored yet: the first replica may
	// still be storing it.
	if _, err := d.FirstSeen(ctx, "abc"); !errors.Is(err, errClaimPending) {
		t.Fatalf("redelivery of an unconfirmed claim: %v", err)
	}
	if _, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error { d.confirm(ctx, p, "abc", "n-abc"); return nil }); err != nil {
		t.Fatal(err)
	}
	if first, err := d.FirstSeen(ctx, "abc"); err != nil || first {
		t.Fatalf("redelivery taken for new: %v %v", first, err)
	}
	ttl, err := p.client().TTL(ctx, "reviewbot:delivery:abc").Result()
	if err != nil || ttl < 71*time.Hour || ttl > 72*time.Hour {
		t.Fatalf("dedup key TTL %v (%v), want about 72h", ttl, err)
	}
	if err := d.Forget(ctx, "abc"); err != nil {
		t.Fatal(err)
	}
	if first, _ := d.FirstSeen(ctx, "abc"); !first {
		t.Fatal("a forgotten delivery still counts as seen")
	}
	// A claim whose answer was lost is retried with its nonce: still first.
	if first, _ := d.Claim(ctx, "n1", "nonce-a"); !first {
		t.Fatal("claim")
	}
	if first, _ := d.Claim(ctx, "n1", "nonce-a"); !first {
		t.Fatal("the retried claim was taken for a duplicate of itself")
	}
	if first, _ := d.Claim(ctx, "n1", "nonce-b"); first {
		t.Fatal("another claim of the same delivery was accepted")
	}

	// Two replicas racing for the same deliveries: each is accepted once.
	other := newTestRedis(t, p).Deliveries()
	var wins [20]atomic.Int32
	var wg sync.WaitGroup
	for g := range 40 {
		ds := d
		if g%2 == 1 {
			ds = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range wins {
				if first, err := ds.FirstSeen(ctx, fmt.Sprintf("race-%d", i)); err == nil && first {
					wins[i].Add(1)
				}
			}
		}()
	}
	wg.Wait()
	for i := range wins {
		if n := wins[i].Load(); n != 1 {
			t.Errorf("delivery race-%d accepted %d times", i, n)
		}
	}
}

func TestRedisLeaseExclusionAndFencing(t *testing.T) {
	p := startRedis(t)
	ctx := context.Background()
	ttl := 400 * time.Millisecond
	a := newTestRedis(t, p, func(o *RedisOptions) { o.LeaseTTL = ttl })
	b := newTestRedis(t, p, func(o *RedisOptions) { o.LeaseTTL = ttl })

	la, err := a.Locker().TryLock(ctx, "o/r#1", nil)
	if err != nil || la == nil {
		t.Fatalf("first lease: %v %v", la, err)
	}
	if lb, err := b.Locker().TryLock(ctx, "o/r#1", nil); err != nil || lb != nil {
		t.Fatalf("a second holder got the lease: %v %v", lb, err)
	}
	other, _ := b.Locker().TryLock(ctx, "o/r#2", nil)
	if other == nil {
		t.Fatal("another PR's lease was not granted")
	}
	_ = other.Release(ctx)

	// Renewal keeps it past several TTLs.
	time.Sleep(3 * ttl)
	if lb, _ := b.Locker().TryLock(ctx, "o/r#1", nil); lb != nil {
		t.Fatal("a renewed lease was taken over")
	}
	if err := la.Check(ctx); err != nil {
		t.Fatalf("the holder's check: %v", err)
	}

	// The holder stalls (a GC pause, a frozen VM): no renewal. After the
	// TTL another replica takes over, with a larger token.
	la.halt()
	var lb *RedisLease
	lost := make(chan struct{})
	deadline := time.Now().Add(5 * ttl)
	for lb == nil && time.Now().Before(deadline) {
		lb, _ = b.Locker().TryLock(ctx, "o/r#1", func() { close(lost) })
		time.Sleep(ttl / 10)
	}
	if lb == nil {
		t.Fatal("the stalled holder's lease did not expire")
	}
	if lb.Token() <= la.Token() {
		t.Fatalf("token %d after %d: fencing tokens must increase", lb.Token(), la.Token())
	}
	// The stalled holder wakes up: it finds out before writing.
	if err := la.Check(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("the expired lease checks %v, want ErrLeaseLost", err)
	}
	// Nor can it touch the PR's work in Redis, or release the new lease.
	w := &sharedWork{r: a}
	if _, err := w.take(ctx, la); !errors.Is(err, errNotHolder) {
		t.Fatalf("take with an expired lease: %v", err)
	}
	if _, err := w.finish(ctx, la); !errors.Is(err, errNotHolder) {
		t.Fatalf("finish with an expired lease: %v", err)
	}
	_ = la.Release(ctx)
	if err := lb.Check(ctx); err != nil {
		t.Fatalf("the old holder's release ended the new lease: %v", err)
	}

	// A blocking Lock waits for the release.
	got := make(chan Lease, 1)
	go func() {
		l, err := a.Locker().Lock(ctx, "o/r#1")
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	select {
	case <-got:
		t.Fatal("Lock returned while the lease was held")
	case <-time.After(2 * ttl):
	}
	if err := lb.Release(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-got:
		if l.Token() <= lb.Token() {
			t.Fatalf("token %d after %d", l.Token(), lb.Token())
		}
		_ = l.Release(ctx)
	case <-time.After(5 * time.Second):
		t.Fatal("Lock did not get the released lease")
	}
	select {
	case <-lost:
		t.Fatal("a released lease reported itself lost")
	default:
	}
}

// TestRedisLeaseCheckWithoutRedis: cut off from Redis, a holder keeps
// writing only while its last renewal guarantees nobody else can hold the
// lease, and the loss cancels its work.
func TestRedisLeaseCheckWithoutRedis(t *testing.T) {
	p := startRedis(t)
	ctx := context.Background()
	ttl := 600 * time.Millisecond
	a := newTestRedis(t, p, func(o *RedisOptions) { o.LeaseTTL = ttl; o.OpTimeout = 100 * time.Millisecond })
	lost := make(chan struct{})
	l, err := a.Locker().TryLock(ctx, "o/r#1", func() { close(lost) })
	if err != nil || l == nil {
		t.Fatal(err)
	}
	p.stop()
	if err := l.Check(ctx); err != nil {
		t.Fatalf("check right after the last renewal: %v", err)
	}
	select {
	case <-lost:
	case <-time.After(3 * ttl):
		t.Fatal("the lease was not given up after its TTL without Redis")
	}
	if err := l.Check(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("check after the TTL: %v", err)
	}
}

// TestExpiredLeaseCannotPost runs the executor with a lease another
// replica took over: it posts nothing at all.
func TestExpiredLeaseCannotPost(t *testing.T) {
	p := startRedis(t)
	ctx := context.Background()
	h, pr, _ := serveSeed001(t)
	ttl := 300 * time.Millisecond
	a := newTestRedis(t, p, func(o *RedisOptions) { o.LeaseTTL = ttl })
	b := newTestRedis(t, p, func(o *RedisOptions) { o.LeaseTTL = ttl })
	key := "semianalysisai/inferencex#2232"
	la, _ := a.Locker().TryLock(ctx, key, nil)
	la.halt() // stalls
	var lb *RedisLease
	for lb == nil {
		time.Sleep(ttl / 5)
		lb, _ = b.Locker().TryLock(ctx, key, nil)
	}
	defer lb.Release(ctx)

	gh, err := h.srv.cfg.Clients.Installation(ctx, installID, pr.Base.Owner, pr.Base.Name)
	if err != nil {
		t.Fatal(err)
	}
	h.fake.ResetCalls()
	ex := &executor{s: h.srv, rc: &ghapi.Repo{Client: gh, Owner: pr.Base.Owner, Name: pr.Base.Name}, number: pr.Number,
		head: pr.HeadSHA, lease: la, login: "reviewbot-test[bot]"}
	plan := &reviewer.Plan{
		Inline:  []reviewer.InlineComment{{Path: "benchmarks/single_node/agentic/dsv4_fp4_b300_vllm.sh", Line: 2, Side: "RIGHT", Body: "x"}},
		Summary: "summary", Status: reviewer.Status{State: "failure", Description: "1 blocking finding"},
	}
	if err := ex.execute(ctx, plan, nil); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("execute with an expired lease: %v, want ErrLeaseLost", err)
	}
	if err := ex.postWelcome(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("welcome with an expired lease: %v", err)
	}
	for _, c := range h.fake.Calls() {
		if c.Method != http.MethodGet {
			t.Errorf("a replica whose lease expired wrote to GitHub: %s %s", c.Method, c.Path)
		}
	}
	if len(h.fake.Reviews(pr.Base, pr.Number)) != 0 || len(h.fake.IssueComments(pr.Base, pr.Number)) != 0 {
		t.Fatal("something was posted")
	}
}

func TestRedisWorkQueue(t *testing.T) {
	p := startRedis(t)
	ctx := context.Background()
	r := newTestRedis(t, p)
	c := p.client()
	w := &sharedWork{r: r, dedup: r.Deliveries(), locker: r.Locker()}
	mk := func(id string, review, welcome bool, react ...int64) *job {
		j := newPRJob(7, "Org", "Repo", 5)
		j.req.review, j.req.welcome, j.req.reactTo = review, welcome, react
		j.deliveries = []*delivery{{id: id, event: "pull_request", action: "opened", received: time.UnixMilli(1000 + int64(len(id)))}}
		return j
	}
	if err := w.store(ctx, mk("d1", false, true, 11), time.Second); err != nil {
		t.Fatal(err)
	}
	if err := w.store(ctx, mk("d22", true, false, 12), time.Second); err != nil {
		t.Fatal(err)
	}
	key := "org/repo#5"
	if n, _ := c.ZCard(ctx, "reviewbot:pending").Result(); n != 1 {
		t.Fatalf("%d pending PRs, want 1", n)
	}
	lease, _ := w.locker.TryLock(ctx, key, nil)
	fields, err := w.take(ctx, lease)
	if err != nil {
		t.Fatal(err)
	}
	j := jobOf(t, key, fields)
	if !j.req.review || !j.req.welcome || fmt.Sprint(j.req.reactTo) != "[11 12]" || len(j.deliveries) != 2 ||
		j.req.owner != "Org" || j.req.repo != "Repo" || j.req.number != 5 || j.req.installation != 7 {
		t.Fatalf("the union of the two deliveries is wrong: %+v, %d deliveries", j.req, len(j.deliveries))
	}
	if resumed := fields[0].(int64); resumed != 0 {
		t.Fatal("fresh work reported as resumed")
	}
	// Work that arrives during the run is kept for the holder.
	if err := w.store(ctx, mk("d333", true, false), time.Second); err != nil {
		t.Fatal(err)
	}
	if more, err := w.finish(ctx, lease); err != nil || more != 1 {
		t.Fatalf("finish with new work waiting: %d %v", more, err)
	}
	fields, _ = w.take(ctx, lease)
	if j := jobOf(t, key, fields); len(j.deliveries) != 1 || j.deliveries[0].id != "d333" || j.req.welcome {
		t.Fatalf("second run: %+v %v", j.req, j.deliveries)
	}
	if more, err := w.finish(ctx, lease); err != nil || more != 0 {
		t.Fatalf("last finish: %d %v", more, err)
	}
	lease.halt()
	if n, _ := c.Exists(ctx, "reviewbot:lease:"+key, "reviewbot:work:"+key, "reviewbot:doing:"+key).Result(); n != 0 {
		t.Fatalf("%d keys left after the last run", n)
	}
	if n, _ := c.ZCard(ctx, "reviewbot:pending").Result(); n != 0 {
		t.Fatal("the PR is still pending")
	}
}

// TestRedisSweepResumesOrphanedWork: a holder dies mid-run; its work is
// invisible to the sweep while the lease lives, then resumed.
func TestRedisSweepResumesOrphanedWork(t *testing.T) {
	p := startRedis(t)
	ctx := context.Background()
	ttl := 400 * time.Millisecond
	a := newTestRedis(t, p, func(o *RedisOptions) { o.LeaseTTL = ttl })
	b := newTestRedis(t, p, func(o *RedisOptions) { o.LeaseTTL = ttl })
	wa := &sharedWork{r: a, locker: a.Locker()}
	wb := &sharedWork{r: b, locker: b.Locker()}
	j := newPRJob(1, "o", "r", 9)
	j.req.review = true
	j.deliveries = []*delivery{{id: "x", received: time.Now()}}
	if err := wa.store(ctx, j, time.Second); err != nil {
		t.Fatal(err)
	}
	sweep := func(r *Redis) []string {
		keys, err := workSweep.Run(ctx, r.client, []string{r.key("pending")}, r.opts.Prefix, 100, 10000).StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	if got := sweep(b); fmt.Sprint(got) != "[o/r#9]" {
		t.Fatalf("sweep of unheld work: %v", got)
	}
	la, _ := wa.locker.TryLock(ctx, j.key, nil)
	if _, err := wa.take(ctx, la); err != nil {
		t.Fatal(err)
	}
	la.halt() // the replica dies: no renewal, no finish
	if got := sweep(b); len(got) != 0 {
		t.Fatalf("the sweep offered held work: %v", got)
	}
	time.Sleep(ttl + ttl/2)
	if got := sweep(b); fmt.Sprint(got) != "[o/r#9]" {
		t.Fatalf("the sweep did not find the dead holder's work: %v", got)
	}
	lb, _ := wb.locker.TryLock(ctx, j.key, nil)
	fields, err := wb.take(ctx, lb)
	if err != nil {
		t.Fatal(err)
	}
	if fields[0].(int64) != 1 || !jobOf(t, j.key, fields).req.review {
		t.Fatalf("resumed work: %v", fields)
	}
	_ = lb.Release(ctx)

	// Work whose hash expired leaves pending at the next sweep.
	c := p.client()
	c.ZAdd(ctx, "reviewbot:pending", redis.Z{Score: 1, Member: "gone/x#1"})
	sweep(b)
	if ok, _ := c.ZScore(ctx, "reviewbot:pending", "gone/x#1").Result(); ok != 0 {
		t.Fatal("a PR without work stayed pending")
	}
}

func jobOf(t *testing.T, key string, fields []any) *job {
	t.Helper()
	h := map[string]string{}
	for i := 1; i+1 < len(fields); i += 2 {
		h[fields[i].(string)] = fields[i+1].(string)
	}
	j, err := jobFromWire(key, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestWireCoversRequest fails when prRequest gains a field the work hash
// does not carry: a replica resuming the work would silently drop it.
func TestWireCoversRequest(t *testing.T) {
	carried := map[string]bool{"installation": true, "owner": true, "repo": true, "number": true,
		"review": true, "welcome": true, "reactTo": true, "labels": true, "commands": true, "signoffs": true, "help": true,
		"pr": true, // not carried on purpose: the runner reads the PR as it is then
	}
	typ := reflect.TypeOf(prRequest{})
	var missing []string
	for i := range typ.NumField() {
		if !carried[typ.Field(i).Name] {
			missing = append(missing, typ.Field(i).Name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("prRequest fields %v are not in the Redis work hash (wireFields, jobFromWire in redis_work.go)", missing)
	}
	// And a round trip keeps every carried field.
	j := newPRJob(3, "A", "B", 4)
	j.req.review, j.req.welcome, j.req.labels, j.req.reactTo = true, true, true, []int64{1, 2}
	j.req.commands = []*commandRequest{{commentID: 7}, {commentID: 9, deleted: true}}
	j.req.signoffs = []*signoffRequest{
		{source: "issue_comment", id: 11, url: "https://github.com/A/B/pull/4#issuecomment-11", author: "owner1", body: "As a PR reviewer and CODEOWNER ...", at: time.UnixMilli(100)},
		{source: "pull_request_review", id: 12, author: "owner2", body: "signed", at: time.UnixMilli(200), commit: "abc", gone: true},
	}
	j.req.help = []int64{21, 22}
	j.deliveries = []*delivery{{id: "d", event: "issue_comment", action: "created", received: time.UnixMilli(5)}}
	f := wireFields(j)
	h := map[string]string{}
	for i := 0; i < len(f); i += 2 {
		h[f[i].(string)] = f[i+1].(string)
	}
	back, err := jobFromWire(j.key, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	back.req.pr = nil
	if !reflect.DeepEqual(back.req, j.req) || back.deliveries[0].event != "issue_comment" || !back.deliveries[0].received.Equal(time.UnixMilli(5)) {
		t.Fatalf("round trip: %+v → %+v", j.req, back.req)
	}
}

func TestRedisBlobTier(t *testing.T) {
	p := startRedis(t)
	ctx := context.Background()
	r := newTestRedis(t, p, func(o *RedisOptions) { o.BlobCacheBytes = 8000 })
	tier := newBlobTier(r, NewMetrics())
	c := p.client()
	blob := func(i, n int) ([]byte, string) {
		b := []byte(fmt.Sprintf("%d:%s", i, strings.Repeat("x", n)))
		return b, checks.BlobID(b)
	}
	var shas []string
	for i := range 10 {
		b, sha := blob(i, 900)
		tier.put(ctx, sha, b)
		shas = append(shas, sha)
		if i == 2 {
			tier.get(ctx, shas[0]) // used: the oldest is now shas[1]
		}
	}
	total, _ := c.Get(ctx, "reviewbot:blobs:bytes").Int64()
	if total > 8000 {
		t.Fatalf("%d bytes kept over a budget of 8000", total)
	}
	if _, ok := tier.get(ctx, shas[1]); ok {
		t.Fatal("the least recently used blob was not evicted")
	}
	if b, ok := tier.get(ctx, shas[0]); !ok || checks.BlobID(b) != shas[0] {
		t.Fatal("a recently used blob was evicted")
	}
	if _, ok := tier.get(ctx, shas[9]); !ok {
		t.Fatal("the newest blob is missing")
	}
	big, bigSHA := blob(99, 2000) // over budget/8
	tier.put(ctx, bigSHA, big)
	if _, ok := tier.get(ctx, bigSHA); ok {
		t.Fatal("a blob over an eighth of the budget was shared")
	}
	// A value that does not hash to its key is never used.
	c.Set(ctx, "reviewbot:blob:"+shas[9], "tampered", 0)
	if _, ok := tier.get(ctx, shas[9]); ok {
		t.Fatal("a damaged blob was served")
	}
	// Off when Redis is down, without waiting for it.
	p.stop()
	waitFor(t, 2*time.Second, func() bool { return !r.Up() })
	calls := testutil.CollectAndCount(r.metrics.duration)
	before := testutil.ToFloat64(r.metrics.errors.WithLabelValues("blob"))
	tier.put(ctx, shas[0], []byte("x"))
	if _, ok := tier.get(ctx, shas[0]); ok || testutil.ToFloat64(r.metrics.errors.WithLabelValues("blob")) != before ||
		testutil.CollectAndCount(r.metrics.duration) != calls {
		t.Fatal("the tier was asked while Redis is known to be down")
	}
}

func waitFor(t testing.TB, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSweepKickKeepsTheRequest: the sweep's request names only the PR's
// key; merged into a waiting job of this replica (not yet stored, Redis was
// down), the job keeps its repository and PR, so what it stores later can
// be run.
func TestSweepKickKeepsTheRequest(t *testing.T) {
	waiting := newPRJob(7, "Org", "Repo", 5)
	waiting.req.review = true
	kick := &job{key: waiting.key, req: &prRequest{}}
	if !kick.req.absorb(waiting.req) {
		t.Fatal("not merged")
	}
	if kick.req.owner != "Org" || kick.req.repo != "Repo" || kick.req.number != 5 || kick.req.installation != 7 || !kick.req.review {
		t.Fatalf("merged request %+v", kick.req)
	}
	kick.deliveries = []*delivery{{id: "x", received: time.UnixMilli(1)}}
	h := map[string]string{}
	f := wireFields(kick)
	for i := 0; i < len(f); i += 2 {
		h[f[i].(string)] = f[i+1].(string)
	}
	if _, err := jobFromWire(kick.key, h, nil); err != nil {
		t.Fatal(err)
	}
	// A request without a repository never blanks the stored one.
	if f := wireFields(&job{key: "k", req: &prRequest{}, deliveries: kick.deliveries}); len(f) != 2 {
		t.Fatalf("an empty request writes %v", f)
	}
}
