package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/state"
)

// errQueueFull and errDraining refuse a delivery; the webhook answers 503
// and forgets the delivery id, so GitHub's redelivery is processed.
var (
	errQueueFull = errors.New("work queue is full")
	errDraining  = errors.New("server is shutting down")
)

// job is the work of one or more deliveries on one pull request.
type job struct {
	key        string // owner/repo#number
	deliveries []*delivery
	req        *prRequest
	// enqueued is when the job (its newest delivery) entered the queue.
	enqueued time.Time
	// attempts counts the runs of this work that did not finish (Redis
	// counts them across replicas): past maxAttempts it is set aside.
	attempts int
}

// dispatcher runs jobs off the request path: one queue per key, so the
// jobs of one PR run in arrival order and never at the same time, and a
// bound on how many jobs run at once overall. A job that finds an older
// job of its PR still waiting absorbs it (five pushes in a row review the
// last head once).
type dispatcher struct {
	run        func(ctx context.Context, j *job, lease state.Lease)
	locker     state.Locker
	maxPending int
	metrics    *Metrics

	ctx    context.Context // cancelled when the drain deadline passes
	cancel context.CancelFunc
	sem    chan struct{}
	wg     sync.WaitGroup

	mu      sync.Mutex
	pending map[string][]*job
	active  map[string]bool
	queued  int
	closed  bool
}

func newDispatcher(workers, maxPending int, locker state.Locker, m *Metrics, run func(context.Context, *job, state.Lease)) *dispatcher {
	ctx, cancel := context.WithCancel(context.Background())
	return &dispatcher{run: run, locker: locker, maxPending: maxPending, metrics: m, ctx: ctx, cancel: cancel,
		sem: make(chan struct{}, workers), pending: map[string][]*job{}, active: map[string]bool{}}
}

// enqueue queues j behind the other jobs of its key.
func (d *dispatcher) enqueue(j *job) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errDraining
	}
	q := d.pending[j.key]
	if n := len(q); n > 0 && j.req.absorb(q[n-1].req) {
		j.deliveries = append(q[n-1].deliveries, j.deliveries...)
		q[n-1] = j
		return nil
	}
	if d.queued >= d.maxPending {
		return errQueueFull
	}
	d.pending[j.key] = append(q, j)
	d.queued++
	d.metrics.queuedAdd(1)
	if !d.active[j.key] {
		d.active[j.key] = true
		d.wg.Add(1)
		go d.drainKey(j.key)
	}
	return nil
}

// drainKey runs the jobs of one key one after another until none is left.
func (d *dispatcher) drainKey(key string) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		q := d.pending[key]
		if len(q) == 0 {
			delete(d.pending, key)
			delete(d.active, key)
			d.mu.Unlock()
			return
		}
		j := q[0]
		d.pending[key] = q[1:]
		d.mu.Unlock()
		d.runOne(j)
	}
}

func (d *dispatcher) runOne(j *job) {
	defer func() {
		d.mu.Lock()
		d.queued--
		d.mu.Unlock()
		d.metrics.queuedAdd(-1)
	}()
	select {
	case d.sem <- struct{}{}:
	case <-d.ctx.Done():
		d.run(d.ctx, j, failedLease{d.ctx.Err()})
		return
	}
	defer func() { <-d.sem }()
	d.metrics.runningAdd(1)
	defer d.metrics.runningAdd(-1)

	lease, err := d.locker.Lock(d.ctx, j.key)
	if err != nil {
		d.run(d.ctx, j, failedLease{fmt.Errorf("lock %s: %w", j.key, err)})
		return
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(d.ctx), 5*time.Second)
		defer cancel()
		_ = lease.Release(ctx)
	}()
	d.run(d.ctx, j, lease)
}

// failedLease stands for a lease that could not be had: its Check fails,
// so the job writes nothing.
type failedLease struct{ err error }

func (f failedLease) Token() int64                  { return 0 }
func (f failedLease) Check(context.Context) error   { return f.err }
func (f failedLease) Release(context.Context) error { return nil }

// shutdown stops taking jobs and waits for the queued and running ones
// until ctx ends; then it cancels them and waits for them to return.
func (d *dispatcher) shutdown(ctx context.Context) error {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	done := make(chan struct{})
	go func() {
		d.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		d.cancel()
		<-done
		return fmt.Errorf("drain: %w; in-flight jobs were cancelled", ctx.Err())
	}
}

// draining reports whether shutdown has begun.
func (d *dispatcher) draining() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// backlog is the number of jobs queued or running.
func (d *dispatcher) backlog() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.queued
}
