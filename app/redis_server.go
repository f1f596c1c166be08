package app

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/reviewbot-dev/reviewbot/app/internal/backoff"
	"github.com/reviewbot-dev/reviewbot/app/state"
)

// useRedis switches the server to shared mode: jobs go through Redis
// (redis_work.go); the in-process dispatcher still bounds the workers and
// keeps this replica's runs of one PR apart.
func (s *Server) useRedis(r *state.Redis) error {
	for _, c := range r.Collectors() {
		if err := s.metrics.Registry.Register(c); err != nil {
			var already prometheus.AlreadyRegisteredError
			if !errors.As(err, &already) {
				return err
			}
		}
	}
	s.shared = newSharedWork(s, r)
	s.dispatch = newDispatcher(s.cfg.Workers, s.cfg.MaxQueued, state.NewMemoryLocker(), s.metrics, s.shared.run)
	s.shared.start()
	return nil
}

// claimer is a DeliverySet whose claims can be retried without being taken
// for duplicates of themselves.
type claimer interface {
	Claim(ctx context.Context, id, nonce string) (bool, error)
}

// firstSeen records the delivery in the DeliverySet. With Redis, the
// delivery gets a nonce (for a later retry) and the call a budget; while
// Redis is known to be down it is not tried at all, so acknowledgements
// stay fast during an outage.
func (s *Server) firstSeen(ctx context.Context, d *delivery) (bool, error) {
	c, ok := s.cfg.Deliveries.(claimer)
	if !ok {
		return s.cfg.Deliveries.FirstSeen(ctx, d.id)
	}
	d.nonce = state.NewNonce()
	if s.cfg.Redis == nil {
		return c.Claim(ctx, d.id, d.nonce)
	}
	if !s.cfg.Redis.Up() {
		return false, errRedisDown
	}
	// Another replica claimed this delivery a moment ago and is storing
	// its work: wait for it to confirm (a duplicate then) or for the
	// claim to go stale (its replica died: this one takes it on).
	deadline := time.Now().Add(s.cfg.Redis.Options().ClaimTimeout + 250*time.Millisecond)
	for {
		actx, cancel := context.WithTimeout(ctx, s.cfg.Redis.Options().AckTimeout)
		first, err := c.Claim(actx, d.id, d.nonce)
		cancel()
		if !errors.Is(err, state.ErrClaimPending) || time.Now().After(deadline) {
			return first, err
		}
		if err := backoff.Sleep(ctx, 50*time.Millisecond); err != nil {
			return false, err
		}
	}
}

var errRedisDown = errors.New("redis is unreachable")

// deferDedup accepts a delivery whose dedup Redis could not answer in
// time: it is acknowledged, and the worker makes the claim (same nonce)
// once Redis answers, dropping it then if it was a duplicate.
func (s *Server) deferDedup(d *delivery, err error) {
	d.unverified = true
	s.cfg.Redis.Event("deferred")
	s.log.Warn("delivery dedup deferred: Redis did not answer; accepting the delivery and checking later",
		append(d.attrs(), "error", err)...)
}

// enqueue hands a job to the workers. With Redis the job is first stored
// there, within the acknowledgement's budget; a stored job is accepted
// even when this replica cannot take more work (another one will).
func (s *Server) enqueue(ctx context.Context, j *job) error {
	if s.shared == nil {
		return s.dispatch.Enqueue(j)
	}
	stored := s.shared.storeNow(ctx, j)
	if err := s.dispatch.Enqueue(j); err != nil {
		if stored {
			s.log.Info("replica busy or stopping; the work waits in Redis for another replica",
				append(j.deliveries[0].attrs(), "reason", err.Error())...)
			return nil
		}
		return err
	}
	return nil
}
