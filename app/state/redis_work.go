package state

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// The work of a PR lives in Redis from the moment its delivery is
// accepted until a replica has done it, so a replica that dies loses
// nothing but time:
//
//   - work:<pr> is a hash of what the deliveries ask for (review, welcome,
//     the comments to react to, the delivery ids). A delivery adds its
//     fields; the union is what one run does, so five pushes in a row
//     review the latest head once.
//   - doing:<pr> is the work the lease holder took and has not finished.
//   - pending is a sorted set of the PRs with work or doing, oldest first.
//
// The replica that accepts a delivery adds it to work:<pr> and tries to
// take the PR's lease. Without the lease it is done: the holder, before
// letting go, finds the new work (the script that finishes a run and the
// one that releases the lease are one and the same, so work cannot slip
// between them). With it, it moves work into doing, runs it, and repeats
// until nothing is left. A holder that dies leaves doing (and its lease,
// until the TTL) behind; every replica sweeps pending for PRs nobody
// holds and resumes them.

var (
	// workTake moves the new work into doing (KEYS: lease, work, doing)
	// if ARGV[1] holds the lease; it answers {-1} otherwise, else
	// {resumed, field, value, ...}, resumed being 1 when doing was left
	// over by an earlier holder. Each take counts an attempt in doing's
	// _attempts, so work that kills its replica again and again is seen
	// (app/deadletter.go); a finished run deletes doing and the count.
	workTake = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1} end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local resumed = redis.call('EXISTS', KEYS[3])
local w = redis.call('HGETALL', KEYS[2])
for i = 1, #w, 2 do redis.call('HSET', KEYS[3], w[i], w[i + 1]) end
redis.call('DEL', KEYS[2])
if #w > 0 then redis.call('EXPIRE', KEYS[3], ARGV[3]) end
if #w > 0 or resumed == 1 then redis.call('HINCRBY', KEYS[3], '_attempts', 1) end
local out = redis.call('HGETALL', KEYS[3])
table.insert(out, 1, resumed)
return out`)
	// workFinish ends a run (KEYS: lease, work, doing, pending; ARGV:
	// holder, member, ttl ms): doing is done; with new work waiting the
	// lease is kept (1), else released and the PR leaves pending (0).
	// -1: ARGV[1] no longer holds the lease.
	workFinish = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('DEL', KEYS[3])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
redis.call('ZREM', KEYS[4], ARGV[2])
redis.call('DEL', KEYS[1])
return 0`)
	// workSweep lists up to ARGV[2] PRs of pending (KEYS[1]) that have
	// work but no lease, looking at the ARGV[3] oldest; entries whose work
	// expired are dropped. ARGV[1] is the key prefix.
	workSweep = redis.NewScript(`
local out = {}
local members = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
for _, m in ipairs(members) do
  if redis.call('EXISTS', ARGV[1] .. 'lease:' .. m) == 0 then
    if redis.call('EXISTS', ARGV[1] .. 'work:' .. m) == 1 or redis.call('EXISTS', ARGV[1] .. 'doing:' .. m) == 1 then
      out[#out + 1] = m
      if #out >= tonumber(ARGV[2]) then break end
    else
      redis.call('ZREM', KEYS[1], m)
    end
  end
end
return out`)
)

// RedisWork is the work queue: work:<pr>, doing:<pr> and pending. What a
// field means is the App's (app/redis_work.go); this is how it is kept.
type RedisWork struct {
	r     *Redis
	dedup *RedisDeliveries
}

// Work returns the work queue kept in r.
func (r *Redis) Work() *RedisWork { return &RedisWork{r: r, dedup: r.Deliveries()} }

// Claim is a delivery whose claim becomes final once its work is stored.
type Claim struct{ ID, Nonce string }

// Store adds fields (name, value, ...) to key's work, marks key pending and
// makes claims final, in one transaction bounded by timeout.
func (w *RedisWork) Store(ctx context.Context, key string, fields []any, claims []Claim, timeout time.Duration) error {
	r := w.r
	return r.do(ctx, "work", timeout, func(ctx context.Context) error {
		_, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
			work := r.key("work:", key)
			p.HSet(ctx, work, fields...)
			p.Expire(ctx, work, r.opts.WorkTTL)
			p.ZAddNX(ctx, r.key("pending"), redis.Z{Score: float64(time.Now().UnixMilli()), Member: key})
			for _, c := range claims {
				w.dedup.confirm(ctx, p, c.ID, c.Nonce)
			}
			return nil
		})
		return err
	})
}

// Take moves the PR's new work into doing and returns all of doing;
// resumed says doing was left by a holder that did not finish (a finished
// run deletes it). A lease no longer held fails for good (see Retry).
func (w *RedisWork) Take(ctx context.Context, lease *RedisLease) (resumed bool, fields map[string]string, err error) {
	r := w.r
	var out []any
	err = r.do(ctx, "work", r.opts.OpTimeout, func(ctx context.Context) error {
		var err error
		out, err = workTake.Run(ctx, r.client, []string{r.key("lease:", lease.key), r.key("work:", lease.key), r.key("doing:", lease.key)},
			lease.value, r.opts.LeaseTTL.Milliseconds(), int64(r.opts.WorkTTL.Seconds())).Slice()
		return err
	})
	if err != nil {
		return false, nil, err
	}
	if len(out) == 1 {
		if n, _ := out[0].(int64); n == -1 {
			return false, nil, permanent{errNotHolder}
		}
	}
	if len(out) == 0 {
		return false, nil, nil
	}
	n, _ := out[0].(int64)
	fields = map[string]string{}
	for i := 1; i+1 < len(out); i += 2 {
		k, _ := out[i].(string)
		v, _ := out[i+1].(string)
		fields[k] = v
	}
	return n == 1, fields, nil
}

// Finish ends a run: more is true when new work is waiting (the lease is
// kept), false when the lease was released.
func (w *RedisWork) Finish(ctx context.Context, lease *RedisLease) (more bool, err error) {
	r := w.r
	var n int64
	err = r.do(ctx, "work", r.opts.OpTimeout, func(ctx context.Context) error {
		var err error
		n, err = workFinish.Run(ctx, r.client, []string{r.key("lease:", lease.key), r.key("work:", lease.key),
			r.key("doing:", lease.key), r.key("pending")}, lease.value, lease.key, r.opts.LeaseTTL.Milliseconds()).Int64()
		return err
	})
	if err != nil {
		return false, err
	}
	if n == -1 {
		return false, permanent{errNotHolder}
	}
	return n == 1, nil
}

// Unclaimed lists up to 100 PRs with work that nobody holds, among the
// 10,000 longest pending.
func (w *RedisWork) Unclaimed() ([]string, error) {
	r := w.r
	var keys []string
	err := r.do(context.Background(), "sweep", r.opts.OpTimeout, func(ctx context.Context) error {
		var err error
		keys, err = workSweep.Run(ctx, r.client, []string{r.key("pending")}, r.opts.Prefix, 100, 10000).StringSlice()
		return err
	})
	return keys, err
}
