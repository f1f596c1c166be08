package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/state"
)

// recorder runs jobs by noting them, holding each for a while.
type recorder struct {
	mu       sync.Mutex
	order    map[string][]int // key → job ids in run order
	running  map[string]int
	overlap  bool
	maxTotal int
	total    int
	hold     time.Duration
	tokens   []int64
	started  chan struct{} // gets a value as each job starts (optional)
}

func (r *recorder) run(ctx context.Context, j *job, lease state.Lease) {
	r.mu.Lock()
	r.running[j.key]++
	r.total++
	if r.running[j.key] > 1 {
		r.overlap = true
	}
	r.maxTotal = max(r.maxTotal, r.total)
	r.order[j.key] = append(r.order[j.key], j.req.number)
	r.tokens = append(r.tokens, lease.Token())
	r.mu.Unlock()
	if r.started != nil {
		r.started <- struct{}{}
	}
	select {
	case <-time.After(r.hold):
	case <-ctx.Done():
	}
	r.mu.Lock()
	r.running[j.key]--
	r.total--
	r.mu.Unlock()
}

func testJob(key string, id int) *job {
	j := &job{key: key, req: &prRequest{number: id, review: true}}
	j.deliveries = []*delivery{{id: fmt.Sprint(id)}}
	return j
}

// The queue merges a waiting job into the next one of its PR; the merged
// request asks for everything both did, for the deliveries of both.
func TestDispatcherMergesWaitingJobs(t *testing.T) {
	rec := &recorder{order: map[string][]int{}, running: map[string]int{}, hold: 20 * time.Millisecond,
		started: make(chan struct{}, 2)}
	d := newDispatcher(1, 1000, state.NewMemoryLocker(), nil, rec.run)
	first := testJob("pr", 1)
	if err := d.Enqueue(first); err != nil {
		t.Fatal(err)
	}
	<-rec.started // the first job is running; the next ones wait
	labels := testJob("pr", 2)
	labels.req.review = false
	labels.req.reactTo = []int64{7}
	_ = d.Enqueue(labels)
	last := testJob("pr", 3)
	last.req.welcome = true
	_ = d.Enqueue(last)
	if err := d.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := rec.order["pr"]; len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Fatalf("runs %v, want [1 3] (2 merged into 3)", got)
	}
	if !last.req.review || !last.req.welcome || len(last.req.reactTo) != 1 || len(last.deliveries) != 2 {
		t.Fatalf("merged request lost something: %+v, %d deliveries", last.req, len(last.deliveries))
	}
	for i := 1; i < len(rec.tokens); i++ {
		if rec.tokens[i] <= rec.tokens[i-1] {
			t.Fatalf("fencing tokens %v do not increase", rec.tokens)
		}
	}
}

func TestMemoryLocker(t *testing.T) {
	ctx := context.Background()
	m := state.NewMemoryLocker()
	a, err := m.Lock(ctx, "pr")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := m.Lock(ctx, "other")
	_ = other.Release(ctx)
	waitCtx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := m.Lock(waitCtx, "pr"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock of a held key: %v", err)
	}
	got := make(chan state.Lease)
	go func() {
		b, _ := m.Lock(ctx, "pr")
		got <- b
	}()
	if err := a.Check(ctx); err != nil {
		t.Fatal(err)
	}
	_ = a.Release(ctx)
	_ = a.Release(ctx) // idempotent
	if err := a.Check(ctx); !errors.Is(err, state.ErrLeaseLost) {
		t.Fatalf("released lease checks %v", err)
	}
	b := <-got
	if b.Token() <= a.Token() {
		t.Fatalf("token %d after %d", b.Token(), a.Token())
	}
	_ = b.Release(ctx)
}

func TestVerifySignature(t *testing.T) {
	body, secret := []byte(`{"zen":"x"}`), []byte("s3cret")
	good := Sign(body, secret)
	for sig, want := range map[string]bool{
		good: true, "": false, "sha256=": false,
		"sha1=" + good[7:]: false, good[:len(good)-2] + "00": false, good + "00": false,
	} {
		if got := verifySignature(sig, body, secret); got != want {
			t.Errorf("verifySignature(%q) = %v, want %v", sig, got, want)
		}
	}
}
