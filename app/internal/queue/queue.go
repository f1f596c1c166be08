// Package queue runs jobs off the webhook's request path: one queue per
// key, so the jobs of one key (a pull request) run in arrival order and
// never at the same time, each under the key's lease, and a bound on how
// many jobs run at once overall. A job that finds an older job of its key
// still waiting absorbs it: five pushes in a row review the last head
// once.
package queue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/state"
)

// ErrFull and ErrDraining refuse a job; the webhook answers 503 and
// forgets the delivery id, so GitHub's redelivery is processed.
var (
	ErrFull     = errors.New("work queue is full")
	ErrDraining = errors.New("server is shutting down")
)

// Job is work on one key.
type Job[J any] interface {
	Key() string
	// Absorb folds older, a job of the same key still waiting, into the
	// receiver, which then runs in its place; false keeps both.
	Absorb(older J) bool
}

// Gauges follow the jobs queued (or running) and running.
type Gauges interface {
	QueuedAdd(float64)
	RunningAdd(float64)
}

// RunFunc runs one job. lease is the key's; a job that could not get it
// (the queue is draining, the locker failed) gets a lease whose Check
// fails, so it writes nothing.
type RunFunc[J any] func(ctx context.Context, j J, lease state.Lease)

// Queue is the per-key job queue of one server.
type Queue[J Job[J]] struct {
	run        RunFunc[J]
	locker     state.Locker
	maxPending int
	gauges     Gauges

	ctx    context.Context // cancelled when the drain deadline passes
	cancel context.CancelFunc
	sem    chan struct{}
	wg     sync.WaitGroup

	mu      sync.Mutex
	pending map[string][]J
	active  map[string]bool
	queued  int
	closed  bool
}

// New returns a queue running at most workers jobs at once and holding at
// most maxPending; gauges may be nil.
func New[J Job[J]](workers, maxPending int, locker state.Locker, gauges Gauges, run RunFunc[J]) *Queue[J] {
	ctx, cancel := context.WithCancel(context.Background())
	return &Queue[J]{run: run, locker: locker, maxPending: maxPending, gauges: gauges, ctx: ctx, cancel: cancel,
		sem: make(chan struct{}, workers), pending: map[string][]J{}, active: map[string]bool{}}
}

func (q *Queue[J]) queuedAdd(n float64) {
	if q.gauges != nil {
		q.gauges.QueuedAdd(n)
	}
}

func (q *Queue[J]) runningAdd(n float64) {
	if q.gauges != nil {
		q.gauges.RunningAdd(n)
	}
}

// Enqueue queues j behind the other jobs of its key.
func (q *Queue[J]) Enqueue(j J) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ErrDraining
	}
	key := j.Key()
	waiting := q.pending[key]
	if n := len(waiting); n > 0 && j.Absorb(waiting[n-1]) {
		waiting[n-1] = j
		return nil
	}
	if q.queued >= q.maxPending {
		return ErrFull
	}
	q.pending[key] = append(waiting, j)
	q.queued++
	q.queuedAdd(1)
	if !q.active[key] {
		q.active[key] = true
		q.wg.Add(1)
		go q.drainKey(key)
	}
	return nil
}

// drainKey runs the jobs of one key one after another until none is left.
func (q *Queue[J]) drainKey(key string) {
	defer q.wg.Done()
	for {
		q.mu.Lock()
		waiting := q.pending[key]
		if len(waiting) == 0 {
			delete(q.pending, key)
			delete(q.active, key)
			q.mu.Unlock()
			return
		}
		j := waiting[0]
		q.pending[key] = waiting[1:]
		q.mu.Unlock()
		q.runOne(j)
	}
}

func (q *Queue[J]) runOne(j J) {
	defer func() {
		q.mu.Lock()
		q.queued--
		q.mu.Unlock()
		q.queuedAdd(-1)
	}()
	select {
	case q.sem <- struct{}{}:
	case <-q.ctx.Done():
		q.run(q.ctx, j, failedLease{q.ctx.Err()})
		return
	}
	defer func() { <-q.sem }()
	q.runningAdd(1)
	defer q.runningAdd(-1)

	lease, err := q.locker.Lock(q.ctx, j.Key())
	if err != nil {
		q.run(q.ctx, j, failedLease{fmt.Errorf("lock %s: %w", j.Key(), err)})
		return
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(q.ctx), 5*time.Second)
		defer cancel()
		_ = lease.Release(ctx)
	}()
	q.run(q.ctx, j, lease)
}

// failedLease stands for a lease that could not be had: its Check fails,
// so the job writes nothing.
type failedLease struct{ err error }

func (f failedLease) Token() int64                  { return 0 }
func (f failedLease) Check(context.Context) error   { return f.err }
func (f failedLease) Release(context.Context) error { return nil }

// Shutdown stops taking jobs and waits for the queued and running ones
// until ctx ends; then it cancels them and waits for them to return.
func (q *Queue[J]) Shutdown(ctx context.Context) error {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	done := make(chan struct{})
	go func() {
		q.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		q.cancel()
		<-done
		return fmt.Errorf("drain: %w; in-flight jobs were cancelled", ctx.Err())
	}
}

// Draining reports whether Shutdown has begun.
func (q *Queue[J]) Draining() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// Backlog is the number of jobs queued or running.
func (q *Queue[J]) Backlog() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.queued
}

// Keys is the number of keys the queue still tracks (waiting or running):
// none once every job has run, whatever the number of PRs seen.
func (q *Queue[J]) Keys() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending) + len(q.active)
}
