package state

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/reviewbot-dev/reviewbot/app/internal/redistest"
	"github.com/reviewbot-dev/reviewbot/checks"
)

func TestMemoryDeliveries(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryDeliveries(3 * (1 + deliveryIDBytes))
	for _, id := range []string{"a", "b", "c"} {
		if first, _ := m.FirstSeen(ctx, id); !first {
			t.Fatalf("%s seen before", id)
		}
	}
	if first, _ := m.FirstSeen(ctx, "a"); first {
		t.Fatal("redelivery of a not noticed")
	}
	_, _ = m.FirstSeen(ctx, "d") // evicts b, the least recently seen
	if b, n := m.Stats(); n != 3 || b > 3*(1+deliveryIDBytes) {
		t.Fatalf("%d ids in %d bytes kept, want the bound 3", n, b)
	}
	if first, _ := m.FirstSeen(ctx, "b"); !first {
		t.Fatal("the oldest id was not evicted")
	}
	_ = m.Forget(ctx, "d")
	if first, _ := m.FirstSeen(ctx, "d"); !first {
		t.Fatal("a forgotten id still counts as seen")
	}
}

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
	p := redistest.Start(t)
	ctx := context.Background()
	r := newTestRedis(t, p)
	d := r.Deliveries()
	if first, err := d.Claim(ctx, "abc", "n-abc"); err != nil || !first {
		t.Fatalf("first sighting: %v %v", first, err)
	}
	// Claimed a moment ago, its work not stored yet: the first replica may
	// still be storing it.
	if _, err := d.FirstSeen(ctx, "abc"); !errors.Is(err, ErrClaimPending) {
		t.Fatalf("redelivery of an unconfirmed claim: %v", err)
	}
	if _, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error { d.confirm(ctx, p, "abc", "n-abc"); return nil }); err != nil {
		t.Fatal(err)
	}
	if first, err := d.FirstSeen(ctx, "abc"); err != nil || first {
		t.Fatalf("redelivery taken for new: %v %v", first, err)
	}
	ttl, err := p.Client().TTL(ctx, "reviewbot:delivery:abc").Result()
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
	p := redistest.Start(t)
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
	la.StopRenewing()
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
	w := a.Work()
	if _, _, err := w.Take(ctx, la); !errors.Is(err, errNotHolder) {
		t.Fatalf("take with an expired lease: %v", err)
	}
	if _, err := w.Finish(ctx, la); !errors.Is(err, errNotHolder) {
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
	p := redistest.Start(t)
	ctx := context.Background()
	ttl := 600 * time.Millisecond
	a := newTestRedis(t, p, func(o *RedisOptions) { o.LeaseTTL = ttl; o.OpTimeout = 100 * time.Millisecond })
	lost := make(chan struct{})
	l, err := a.Locker().TryLock(ctx, "o/r#1", func() { close(lost) })
	if err != nil || l == nil {
		t.Fatal(err)
	}
	p.Stop()
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

func TestRedisBlobTier(t *testing.T) {
	p := redistest.Start(t)
	ctx := context.Background()
	r := newTestRedis(t, p, func(o *RedisOptions) { o.BlobCacheBytes = 8000 })
	tier := NewBlobTier(r, &lookups{})
	c := p.Client()
	blob := func(i, n int) ([]byte, string) {
		b := []byte(fmt.Sprintf("%d:%s", i, strings.Repeat("x", n)))
		return b, checks.BlobID(b)
	}
	var shas []string
	for i := range 10 {
		b, sha := blob(i, 900)
		tier.Put(ctx, sha, b)
		shas = append(shas, sha)
		if i == 2 {
			tier.Get(ctx, shas[0]) // used: the oldest is now shas[1]
		}
	}
	total, _ := c.Get(ctx, "reviewbot:blobs:bytes").Int64()
	if total > 8000 {
		t.Fatalf("%d bytes kept over a budget of 8000", total)
	}
	if _, ok := tier.Get(ctx, shas[1]); ok {
		t.Fatal("the least recently used blob was not evicted")
	}
	if b, ok := tier.Get(ctx, shas[0]); !ok || checks.BlobID(b) != shas[0] {
		t.Fatal("a recently used blob was evicted")
	}
	if _, ok := tier.Get(ctx, shas[9]); !ok {
		t.Fatal("the newest blob is missing")
	}
	big, bigSHA := blob(99, 2000) // over budget/8
	tier.Put(ctx, bigSHA, big)
	if _, ok := tier.Get(ctx, bigSHA); ok {
		t.Fatal("a blob over an eighth of the budget was shared")
	}
	// A value that does not hash to its key is never used.
	c.Set(ctx, "reviewbot:blob:"+shas[9], "tampered", 0)
	if _, ok := tier.Get(ctx, shas[9]); ok {
		t.Fatal("a damaged blob was served")
	}
	// Off when Redis is down, without waiting for it.
	p.Stop()
	waitFor(t, 2*time.Second, func() bool { return !r.Up() })
	calls := testutil.CollectAndCount(r.metrics.duration)
	before := testutil.ToFloat64(r.metrics.errors.WithLabelValues("blob"))
	tier.Put(ctx, shas[0], []byte("x"))
	if _, ok := tier.Get(ctx, shas[0]); ok || testutil.ToFloat64(r.metrics.errors.WithLabelValues("blob")) != before ||
		testutil.CollectAndCount(r.metrics.duration) != calls {
		t.Fatal("the tier was asked while Redis is known to be down")
	}
}
