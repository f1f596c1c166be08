package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reviewbot-dev/reviewbot/app/gate"
	"github.com/reviewbot-dev/reviewbot/app/state"
)

// sharedWork runs a server's jobs through Redis.
type sharedWork struct {
	s      *Server
	r      *state.Redis
	dedup  *state.RedisDeliveries
	locker *state.RedisLocker
	work   *state.RedisWork

	stop chan struct{}
	done chan struct{}
}

func newSharedWork(s *Server, r *state.Redis) *sharedWork {
	return &sharedWork{s: s, r: r, dedup: r.Deliveries(), locker: r.Locker(), work: r.Work(),
		stop: make(chan struct{}), done: make(chan struct{})}
}

// Wire form of a job: the fields of a work hash.
const (
	fieldOwner        = "owner"
	fieldRepo         = "repo"
	fieldNumber       = "number"
	fieldInstallation = "installation"
	fieldReview       = "review"
	fieldWelcome      = "welcome"
	fieldLabels       = "labels"
	fieldReadHead     = "read_head"
	fieldBaseChanged  = "base_changed"
	prefixReact       = "react:"
	// A command comment's field holds its state, a sign-off's its JSON:
	// a later delivery for the same comment overwrites the earlier one,
	// as the latest edit is what counts.
	prefixCommand  = "cmd:"
	prefixSignoff  = "signoff:"
	prefixHelp     = "help:"
	prefixDelivery = "d:"
	// fieldAttempts counts the takes of unfinished work.
	fieldAttempts = "_attempts"
)

// wireFields is the work hash of j's request and deliveries. The PR
// payload is not stored: the replica that runs the work reads the PR as
// it is then (latest head wins).
func wireFields(j *job) []any {
	r := j.req
	var f []any
	if r.owner != "" && r.repo != "" && r.number != 0 {
		f = append(f, fieldOwner, r.owner, fieldRepo, r.repo, fieldNumber, strconv.Itoa(r.number))
	}
	if r.installation != 0 {
		f = append(f, fieldInstallation, strconv.FormatInt(r.installation, 10))
	}
	if r.review {
		f = append(f, fieldReview, "1")
	}
	if r.welcome {
		f = append(f, fieldWelcome, "1")
	}
	if r.labels {
		f = append(f, fieldLabels, "1")
	}
	if r.readHead {
		f = append(f, fieldReadHead, "1")
	}
	if r.baseChanged {
		f = append(f, fieldBaseChanged, "1")
	}
	for _, c := range r.commands {
		state := "1"
		if c.deleted {
			state = "deleted"
		}
		f = append(f, prefixCommand+strconv.FormatInt(c.commentID, 10), state)
	}
	for _, so := range r.signoffs {
		b, err := json.Marshal(wireSignoff{Source: so.Source, ID: so.ID, URL: so.URL, Author: so.Author,
			Body: so.Body, At: so.At.UnixMilli(), Commit: so.Commit, Gone: so.Gone})
		if err != nil {
			continue // a struct of strings and numbers always marshals
		}
		f = append(f, prefixSignoff+so.Source+":"+strconv.FormatInt(so.ID, 10), string(b))
	}
	for _, id := range r.reactTo {
		f = append(f, prefixReact+strconv.FormatInt(id, 10), "1")
	}
	for _, id := range r.help {
		f = append(f, prefixHelp+strconv.FormatInt(id, 10), "1")
	}
	for _, d := range j.deliveries {
		f = append(f, prefixDelivery+d.id, strings.Join([]string{d.event, d.action, strconv.FormatInt(d.received.UnixMilli(), 10)}, "\x1f"))
	}
	return f
}

// wireSignoff is a sign-off request in the work hash.
type wireSignoff struct {
	Source string `json:"source"`
	ID     int64  `json:"id"`
	URL    string `json:"url,omitempty"`
	Author string `json:"author"`
	Body   string `json:"body"`
	At     int64  `json:"at_ms"`
	Commit string `json:"commit,omitempty"`
	Gone   bool   `json:"gone,omitempty"`
}

// jobFromWire rebuilds a job from a work hash. Deliveries this replica
// received itself keep their records (local, by id).
func jobFromWire(key string, h map[string]string, local map[string]*delivery) (*job, error) {
	number, err := strconv.Atoi(h[fieldNumber])
	if err != nil || h[fieldOwner] == "" || h[fieldRepo] == "" {
		return nil, fmt.Errorf("work of %s in Redis names no repository and PR", key)
	}
	inst, _ := strconv.ParseInt(h[fieldInstallation], 10, 64)
	j := newPRJob(inst, h[fieldOwner], h[fieldRepo], number)
	j.attempts = crashCount(h)
	j.req.review, j.req.welcome, j.req.labels = h[fieldReview] == "1", h[fieldWelcome] == "1", h[fieldLabels] == "1"
	j.req.readHead, j.req.baseChanged = h[fieldReadHead] == "1", h[fieldBaseChanged] == "1"
	for f, v := range h {
		switch {
		case strings.HasPrefix(f, prefixCommand):
			if id, err := strconv.ParseInt(f[len(prefixCommand):], 10, 64); err == nil {
				j.req.commands = append(j.req.commands, &commandRequest{commentID: id, deleted: v == "deleted"})
			}
		case strings.HasPrefix(f, prefixSignoff):
			var w wireSignoff
			if err := json.Unmarshal([]byte(v), &w); err != nil {
				return nil, fmt.Errorf("work of %s in Redis: sign-off %s: %w", key, f, err)
			}
			j.req.signoffs = append(j.req.signoffs, &gate.Request{Source: w.Source, ID: w.ID, URL: w.URL,
				Author: w.Author, Body: w.Body, At: time.UnixMilli(w.At), Commit: w.Commit, Gone: w.Gone})
		case strings.HasPrefix(f, prefixHelp):
			if id, err := strconv.ParseInt(f[len(prefixHelp):], 10, 64); err == nil {
				j.req.help = append(j.req.help, id)
			}
		case strings.HasPrefix(f, prefixReact):
			if id, err := strconv.ParseInt(f[len(prefixReact):], 10, 64); err == nil {
				j.req.reactTo = append(j.req.reactTo, id)
			}
		case strings.HasPrefix(f, prefixDelivery):
			id := f[len(prefixDelivery):]
			if d, ok := local[id]; ok {
				j.deliveries = append(j.deliveries, d)
				continue
			}
			parts := strings.Split(v, "\x1f")
			d := &delivery{id: id, repo: h[fieldOwner] + "/" + h[fieldRepo], number: number}
			if len(parts) == 3 {
				d.event, d.action = parts[0], parts[1]
				if ms, err := strconv.ParseInt(parts[2], 10, 64); err == nil {
					d.received = time.UnixMilli(ms)
				}
			}
			j.deliveries = append(j.deliveries, d)
		}
	}
	sort.Slice(j.req.reactTo, func(a, b int) bool { return j.req.reactTo[a] < j.req.reactTo[b] })
	sort.Slice(j.req.help, func(a, b int) bool { return j.req.help[a] < j.req.help[b] })
	sort.Slice(j.req.commands, func(a, b int) bool { return j.req.commands[a].commentID < j.req.commands[b].commentID })
	// Sign-offs run oldest first, as the request keeps them.
	sort.SliceStable(j.req.signoffs, func(a, b int) bool { return j.req.signoffs[a].At.Before(j.req.signoffs[b].At) })
	sort.Slice(j.deliveries, func(a, b int) bool { return j.deliveries[a].received.Before(j.deliveries[b].received) })
	if len(j.deliveries) == 0 {
		// Work always comes with a delivery; a hash without one was
		// written by hand. The job still needs one for its log line.
		j.deliveries = []*delivery{{id: "resumed", repo: h[fieldOwner] + "/" + h[fieldRepo], number: number, received: time.Now()}}
	}
	return j, nil
}

// store adds j to its PR's work. Deliveries it stored are marked, so a
// retry does not store them again.
func (w *sharedWork) store(ctx context.Context, j *job, timeout time.Duration) error {
	// The work is safe once stored: the deliveries' claims are final.
	var claims []state.Claim
	for _, d := range j.deliveries {
		if d.nonce != "" && !d.unverified && !d.stored {
			claims = append(claims, state.Claim{ID: d.id, Nonce: d.nonce})
		}
	}
	if err := w.work.Store(ctx, j.key, wireFields(j), claims, timeout); err != nil {
		return err
	}
	for _, d := range j.deliveries {
		d.stored = true
	}
	return nil
}

// storeNow stores a freshly accepted job within the acknowledgement's
// budget, when Redis is up and the job's deliveries are known to be new.
// It reports whether the job is in Redis.
func (w *sharedWork) storeNow(ctx context.Context, j *job) bool {
	if !w.r.Up() {
		return false
	}
	for _, d := range j.deliveries {
		if d.unverified {
			return false
		}
	}
	if err := w.store(ctx, j, w.r.Options().AckTimeout); err != nil {
		w.s.log.Warn("could not queue the delivery in Redis; it waits in this replica", append(j.deliveries[0].attrs(), "error", err)...)
		return false
	}
	return true
}

// admit finishes what the acknowledgement could not: the dedup of
// deliveries accepted while Redis did not answer (duplicates are dropped
// now) and storing the job in Redis. It retries with backoff until Redis
// answers or ctx ends. It reports whether anything is left to run.
func (w *sharedWork) admit(ctx context.Context, j *job) (bool, error) {
	had := len(j.deliveries) > 0
	kept := make([]*delivery, 0, len(j.deliveries))
	for i, d := range j.deliveries {
		if !d.unverified {
			kept = append(kept, d)
			continue
		}
		var first bool
		err := state.Retry(ctx, func() error {
			var err error
			first, err = w.dedup.Claim(ctx, d.id, d.nonce)
			if errors.Is(err, state.ErrClaimPending) {
				// Another replica is storing it right now: a duplicate.
				first, err = false, nil
			}
			return err
		})
		if err != nil {
			j.deliveries = append(kept, j.deliveries[i:]...)
			return false, err
		}
		d.unverified = false
		if first {
			kept = append(kept, d)
			continue
		}
		w.r.Event("duplicate_late")
		w.s.log.Info("webhook delivery", append(d.attrs(), "outcome", "duplicate",
			"detail", "delivery already received (found once Redis answered)")...)
	}
	j.deliveries = kept
	if had && len(kept) == 0 {
		return false, nil
	}
	for _, d := range j.deliveries {
		if !d.stored {
			if err := state.Retry(ctx, func() error { return w.store(ctx, j, w.r.Options().OpTimeout) }); err != nil {
				return false, err
			}
			break
		}
	}
	return true, nil
}

// run is the dispatcher's job function in shared mode; the dispatcher's
// own (in-process) lease only keeps this replica's runs of one PR apart.
func (w *sharedWork) run(ctx context.Context, j *job, _ state.Lease) {
	ok, err := w.admit(ctx, j)
	if err != nil {
		w.abandoned(j, err)
		return
	}
	if ok {
		w.drain(ctx, j)
	}
}

// abandoned logs the deliveries of a job that never reached Redis before
// the replica stopped: they are lost unless redelivered.
func (w *sharedWork) abandoned(j *job, err error) {
	for _, d := range j.deliveries {
		if d.stored {
			w.s.log.Info("webhook delivery", append(d.attrs(), "outcome", "left_in_redis",
				"detail", "stopping; another replica resumes it")...)
			continue
		}
		w.s.log.Error("webhook delivery", append(d.attrs(), "outcome", "failed",
			"error", fmt.Sprintf("not stored in Redis before the replica stopped; redeliver it: %v", err))...)
	}
}

// drain takes the PR's lease and runs its work until none is left. Without
// the lease it returns at once: the holder runs the work this replica
// stored.
func (w *sharedWork) drain(ctx context.Context, j *job) {
	leaseCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var lease *state.RedisLease
	err := state.Retry(ctx, func() error {
		var err error
		lease, err = w.locker.TryLock(ctx, j.key, cancel)
		return err
	})
	if err != nil {
		w.s.log.Warn("could not take the PR's lease before stopping; its work stays in Redis", "key", j.key, "error", err)
		return
	}
	if lease == nil {
		// The holder takes this work before it lets go of the PR.
		w.r.Event("busy")
		for _, d := range j.deliveries {
			w.s.log.Debug("handed to the replica holding the PR", d.attrs()...)
		}
		return
	}
	local := map[string]*delivery{}
	for _, d := range j.deliveries {
		local[d.id] = d
	}
	for {
		var resumed bool
		var h map[string]string
		err := state.Retry(leaseCtx, func() error {
			var err error
			resumed, h, err = w.work.Take(leaseCtx, lease)
			return err
		})
		if err != nil {
			w.stopHolding(lease, err)
			return
		}
		if resumed {
			w.r.Event("resumed")
			w.s.log.Info("resuming the work another replica left unfinished", "key", j.key, "token", lease.Token())
		}
		if len(h) > 0 {
			job, err := jobFromWire(j.key, h, local)
			if err != nil {
				w.s.log.Error("dropping unreadable work", "key", j.key, "error", err)
			} else if job.resumed = resumed; w.s.runJob(leaseCtx, job, lease) {
				// A crash leaves the work unfinished: the next take
				// counts another attempt, up to setting it aside.
				w.stopHolding(lease, errCrashed)
				return
			}
		}
		if leaseCtx.Err() != nil {
			// Stopped or lost mid-run: doing stays for whoever holds the
			// PR next; let go now rather than after the TTL.
			w.stopHolding(lease, leaseCtx.Err())
			return
		}
		var more bool
		err = state.Retry(leaseCtx, func() error {
			var err error
			more, err = w.work.Finish(leaseCtx, lease)
			return err
		})
		if err != nil {
			w.stopHolding(lease, err)
			return
		}
		if !more {
			lease.Finished()
			return
		}
	}
}

// stopHolding gives the lease up (if it is still held) without finishing
// the run: the work stays in doing for the next holder.
func (w *sharedWork) stopHolding(lease *state.RedisLease, why error) {
	if err := lease.StopHolding(why); err != nil {
		w.s.log.Warn("could not release the lease; it expires on its own", "key", lease.Key(), "error", err)
	}
}

// sweepLoop looks for work nobody holds (left by a replica that died or
// stopped, or stored while its replica was busy) every third of the lease
// TTL, and at start.
func (w *sharedWork) sweepLoop() {
	defer close(w.done)
	interval := w.r.Options().LeaseTTL / 3
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		w.sweep()
		t.Reset(interval/2 + time.Duration(rand.Int64N(int64(interval))))
	}
}

func (w *sharedWork) sweep() {
	if !w.r.Up() {
		return
	}
	keys, err := w.work.Unclaimed()
	if err != nil {
		w.s.log.Warn("sweeping Redis for unclaimed work failed", "error", err)
		return
	}
	for _, key := range keys {
		kick := &job{key: key, req: &prRequest{}, enqueued: time.Now()}
		if err := w.s.dispatch.Enqueue(kick); err != nil {
			return // full or stopping; the next sweep tries again
		}
	}
	if len(keys) > 0 {
		w.s.log.Log(context.Background(), slog.LevelDebug, "picked up unclaimed work", "prs", len(keys))
	}
}

func (w *sharedWork) start() { go w.sweepLoop() }

func (w *sharedWork) halt() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}
