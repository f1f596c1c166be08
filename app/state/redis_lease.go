package state

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/reviewbot-dev/reviewbot/app/internal/backoff"
)

// A PR's lease is one key holding "<owner>/<token>" with a TTL. The token
// comes from one counter for every key (INCR), so a later grant of a key
// always carries a larger token. The holder renews the TTL while it works
// and re-checks it before every write to GitHub; the scripts that change
// the PR's pending work check it too (fencing on the Redis side). GitHub
// cannot check a token, so the App's guarantee is: a replica that lost its
// lease (stalled past the TTL, or cut off from Redis) writes nothing after
// it finds out, and it finds out before each write.

var (
	// leaseAcquire grants KEYS[1] when nobody holds it.
	leaseAcquire = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '/' .. token, 'PX', ARGV[2])
return token`)
	// leaseRenew extends KEYS[1] if ARGV[1] still holds it: 1, or 0.
	leaseRenew = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`)
	// leaseRelease deletes KEYS[1] if ARGV[1] still holds it.
	leaseRelease = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`)
)

// RedisLocker grants per-PR leases several replicas share.
type RedisLocker struct{ r *Redis }

// Locker returns the shared Locker.
func (r *Redis) Locker() *RedisLocker { return &RedisLocker{r: r} }

// Lock implements Locker: it waits, polling, until the lease is free.
func (l *RedisLocker) Lock(ctx context.Context, key string) (Lease, error) {
	for n := 0; ; n++ {
		lease, err := l.TryLock(ctx, key, nil)
		if err == nil && lease != nil {
			return lease, nil
		}
		wait := min(redisBackoff(n), l.r.opts.LeaseTTL/4)
		if err := backoff.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// TryLock takes the lease on key if nobody holds it; a nil lease and nil
// error mean another holder has it. The lease renews itself until
// released; onLost, if set, runs once when the lease is found lost.
func (l *RedisLocker) TryLock(ctx context.Context, key string, onLost func()) (*RedisLease, error) {
	r := l.r
	sent := time.Now()
	var token int64
	err := r.do(ctx, "lease", r.opts.OpTimeout, func(ctx context.Context) error {
		var err error
		token, err = leaseAcquire.Run(ctx, r.client, []string{r.key("lease:", key), r.key("fence")},
			r.owner, r.opts.LeaseTTL.Milliseconds()).Int64()
		return err
	})
	if err != nil || token == 0 {
		return nil, err
	}
	lease := &RedisLease{r: r, key: key, value: r.owner + "/" + strconv.FormatInt(token, 10), token: token,
		validUntil: sent.Add(r.opts.LeaseTTL), onLost: onLost, stop: make(chan struct{}), stopped: make(chan struct{})}
	go lease.renew()
	return lease, nil
}

// RedisLease is a lease granted by RedisLocker.
type RedisLease struct {
	r     *Redis
	key   string
	value string
	token int64

	mu sync.Mutex
	// validUntil is when the lease ends at the latest, by this process's
	// clock: the TTL counted from when the last grant or renewal was
	// sent (Redis counts from when it received it, later).
	validUntil time.Time
	lost       bool
	onLost     func()

	stopOnce sync.Once
	stop     chan struct{}
	stopped  chan struct{}
}

// Token implements Lease.
func (l *RedisLease) Token() int64 { return l.token }

// Key is the leased key.
func (l *RedisLease) Key() string { return l.key }

// Check implements Lease. It asks Redis (and renews the lease while at it,
// so a write that follows has a full TTL before anyone else could take
// over). When Redis does not answer, the lease counts as held until its
// TTL, less a margin for clock drift, has passed since the last renewal.
func (l *RedisLease) Check(ctx context.Context) error {
	if l.isLost() {
		return ErrLeaseLost
	}
	ok, err := l.extend(ctx)
	switch {
	case err == nil && ok:
		return nil
	case err == nil:
		l.markLost()
		return ErrLeaseLost
	}
	l.mu.Lock()
	valid := time.Until(l.validUntil) > l.r.opts.LeaseTTL/10
	l.mu.Unlock()
	if valid {
		return nil
	}
	l.markLost()
	return fmt.Errorf("%w: cannot confirm it with Redis: %v", ErrLeaseLost, err)
}

// Release implements Lease. It is idempotent.
func (l *RedisLease) Release(ctx context.Context) error {
	l.StopRenewing()
	if l.isLost() {
		return nil
	}
	l.markReleased()
	return l.r.do(ctx, "lease", l.r.opts.OpTimeout, func(ctx context.Context) error {
		return leaseRelease.Run(ctx, l.r.client, []string{l.r.key("lease:", l.key)}, l.value).Err()
	})
}

// extend renews the lease in Redis: true if it is still this holder's.
func (l *RedisLease) extend(ctx context.Context) (bool, error) {
	sent := time.Now()
	var ok int64
	err := l.r.do(ctx, "lease", l.r.opts.OpTimeout, func(ctx context.Context) error {
		var err error
		ok, err = leaseRenew.Run(ctx, l.r.client, []string{l.r.key("lease:", l.key)}, l.value,
			l.r.opts.LeaseTTL.Milliseconds()).Int64()
		return err
	})
	if err != nil {
		return false, err
	}
	if ok == 1 {
		l.mu.Lock()
		if until := sent.Add(l.r.opts.LeaseTTL); until.After(l.validUntil) {
			l.validUntil = until
		}
		l.mu.Unlock()
	}
	return ok == 1, nil
}

// renew extends the lease every third of its TTL until it is released or
// lost. A renewal Redis does not answer is retried at the next tick; once
// the TTL has run out without one, the lease is lost.
func (l *RedisLease) renew() {
	defer close(l.stopped)
	t := time.NewTicker(l.r.opts.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.r.opts.LeaseTTL/3)
		ok, err := l.extend(ctx)
		cancel()
		if err == nil && !ok {
			l.markLost()
			return
		}
		if err != nil {
			l.mu.Lock()
			expired := !time.Now().Before(l.validUntil)
			l.mu.Unlock()
			l.r.log.Warn("lease renewal failed", "key", l.key, "error", err, "expired", expired)
			if expired {
				l.markLost()
				return
			}
		}
	}
}

// StopRenewing stops renewing the lease: it lapses at its TTL unless
// released first, as the lease of a stalled holder does.
func (l *RedisLease) StopRenewing() {
	l.stopOnce.Do(func() { close(l.stop) })
	<-l.stopped
}

func (l *RedisLease) isLost() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// markLost records the loss and tells the holder, once.
func (l *RedisLease) markLost() {
	l.mu.Lock()
	was := l.lost
	l.lost = true
	fn := l.onLost
	l.mu.Unlock()
	if was {
		return
	}
	l.r.Event("lease_lost")
	l.r.log.Warn("lease lost; this replica writes nothing more for the PR", "key", l.key, "token", l.token)
	if fn != nil {
		fn()
	}
}

// markReleased makes later Checks fail without counting a loss.
func (l *RedisLease) markReleased() {
	l.mu.Lock()
	l.lost = true
	l.mu.Unlock()
}

// Finished is the end of a holder whose last run released the lease in
// Redis (RedisWork.Finish): renewal stops and later Checks fail.
func (l *RedisLease) Finished() {
	l.StopRenewing()
	l.markReleased()
}

// StopHolding gives the lease up (if it is still held) without finishing
// the run, why being what stopped it: the work stays in doing for the next
// holder.
func (l *RedisLease) StopHolding(why error) error {
	if errors.Is(why, errNotHolder) {
		l.markLost()
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.r.opts.OpTimeout)
	defer cancel()
	return l.Release(ctx)
}

var (
	_ Locker = (*RedisLocker)(nil)
	_ Lease  = (*RedisLease)(nil)
)

// errNotHolder is the answer of a work script run with a lease that is no
// longer held.
var errNotHolder = errors.New("the lease is held by someone else")
