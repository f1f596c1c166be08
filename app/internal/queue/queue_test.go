package queue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/state"
)

// tjob is a job of one key; merge says whether it absorbs a waiting one.
type tjob struct {
	key   string
	ids   []int
	merge bool
}

func (j *tjob) Key() string { return j.key }

func (j *tjob) Absorb(older *tjob) bool {
	if !j.merge {
		return false
	}
	j.ids = append(append([]int(nil), older.ids...), j.ids...)
	return true
}

// recorder runs jobs by noting them, holding each for a while.
type recorder struct {
	mu       sync.Mutex
	order    map[string][][]int // key → job ids in run order
	running  map[string]int
	overlap  bool
	maxTotal int
	total    int
	hold     time.Duration
	tokens   []int64
	started  chan struct{} // gets a value as each job starts (optional)
}

func newRecorder(hold time.Duration) *recorder {
	return &recorder{order: map[string][][]int{}, running: map[string]int{}, hold: hold}
}

func (r *recorder) run(ctx context.Context, j *tjob, lease state.Lease) {
	r.mu.Lock()
	r.running[j.key]++
	r.total++
	if r.running[j.key] > 1 {
		r.overlap = true
	}
	r.maxTotal = max(r.maxTotal, r.total)
	r.order[j.key] = append(r.order[j.key], j.ids)
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

// gauges counts what the queue reports.
type gauges struct{ queued, running, maxRunning atomic.Int64 }

func (g *gauges) QueuedAdd(n float64) { g.queued.Add(int64(n)) }
func (g *gauges) RunningAdd(n float64) {
	now := g.running.Add(int64(n))
	for {
		m := g.maxRunning.Load()
		if now <= m || g.maxRunning.CompareAndSwap(m, now) {
			return
		}
	}
}

func TestSerializesPerKeyAndBoundsTotal(t *testing.T) {
	rec := newRecorder(5 * time.Millisecond)
	g := &gauges{}
	q := New(3, 1000, state.NewMemoryLocker(), g, rec.run)
	for i := range 40 {
		if err := q.Enqueue(&tjob{key: fmt.Sprintf("k%d", i%8), ids: []int{i}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rec.overlap {
		t.Fatal("two jobs of one key ran at once")
	}
	if rec.maxTotal > 3 || g.maxRunning.Load() > 3 {
		t.Fatalf("%d jobs ran at once (gauge %d), want at most 3", rec.maxTotal, g.maxRunning.Load())
	}
	runs := 0
	for key, ids := range rec.order {
		runs += len(ids)
		for i := 1; i < len(ids); i++ {
			if ids[i][0] < ids[i-1][0] {
				t.Fatalf("key %s ran out of order: %v", key, ids)
			}
		}
	}
	if runs != 40 || q.Backlog() != 0 || q.Keys() != 0 || g.queued.Load() != 0 || g.running.Load() != 0 {
		t.Fatalf("%d runs, backlog %d, keys %d, gauges %d/%d", runs, q.Backlog(), q.Keys(), g.queued.Load(), g.running.Load())
	}
}

// A waiting job is absorbed by the next one of its key (when it says so);
// the running one never is, and leases are fenced in order.
func TestMergesWaitingJobs(t *testing.T) {
	rec := newRecorder(20 * time.Millisecond)
	rec.started = make(chan struct{}, 4)
	q := New(1, 1000, state.NewMemoryLocker(), nil, rec.run)
	if err := q.Enqueue(&tjob{key: "pr", ids: []int{1}}); err != nil {
		t.Fatal(err)
	}
	<-rec.started // the first job is running; the next ones wait
	for _, j := range []*tjob{{key: "pr", ids: []int{2}}, {key: "pr", ids: []int{3}, merge: true}, {key: "pr", ids: []int{4}}} {
		if err := q.Enqueue(j); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rec.order["pr"]); got != "[[1] [2 3] [4]]" {
		t.Fatalf("runs %s, want [[1] [2 3] [4]]", got)
	}
	for i := 1; i < len(rec.tokens); i++ {
		if rec.tokens[i] <= rec.tokens[i-1] {
			t.Fatalf("fencing tokens %v do not increase", rec.tokens)
		}
	}
}

func TestRefusesWhenFullOrDraining(t *testing.T) {
	block := make(chan struct{})
	var ran atomic.Int32
	var leaseErr atomic.Value
	q := New(1, 2, state.NewMemoryLocker(), nil, func(ctx context.Context, j *tjob, l state.Lease) {
		ran.Add(1)
		select {
		case <-block:
		case <-ctx.Done():
		}
		if err := l.Check(ctx); err != nil {
			leaseErr.Store(err)
		} else if ctx.Err() != nil {
			leaseErr.Store(ctx.Err())
		}
	})
	for i := range 2 {
		if err := q.Enqueue(&tjob{key: fmt.Sprint("k", i), ids: []int{i}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Enqueue(&tjob{key: "k9"}); !errors.Is(err, ErrFull) {
		t.Fatalf("enqueue past the bound: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := q.Shutdown(ctx); err == nil {
		t.Fatal("shutdown with stuck jobs reported success")
	}
	if !q.Draining() {
		t.Fatal("not draining after Shutdown")
	}
	if err := q.Enqueue(&tjob{key: "k1"}); !errors.Is(err, ErrDraining) {
		t.Fatalf("enqueue while draining: %v", err)
	}
	close(block)
	// The job still waiting when the drain deadline passed ran cancelled,
	// with a lease that fails its check, so it could write nothing.
	if ran.Load() != 2 || leaseErr.Load() == nil {
		t.Fatalf("ran %d, lease error %v", ran.Load(), leaseErr.Load())
	}
}
