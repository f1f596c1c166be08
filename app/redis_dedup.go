package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisDeliveries is the DeliverySet several replicas share: one key per
// delivery id, so exactly one replica accepts a delivery however often
// GitHub (or a person) redelivers it, and the keys expire on their own
// (bounded memory).
//
// A claim is provisional ("p:<nonce>:<ms>") until the delivery's work is
// stored in Redis, which confirms it ("s:<nonce>", in the same
// transaction). A replica that dies between the two leaves a claim nobody
// will act on; a redelivery of that id (GitHub's, or a load balancer
// retrying the unanswered request on another replica) takes it over once
// it is older than ClaimTimeout, instead of being dropped as a duplicate.
type RedisDeliveries struct{ r *Redis }

// claimScript claims KEYS[1] for nonce ARGV[1] at ARGV[2] ms (TTL ARGV[3]
// s): 1 first (or the caller's own claim again), 2 an abandoned claim
// taken over (older than ARGV[4] ms, never confirmed), 0 a duplicate.
var claimScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
local mine = 'p:' .. ARGV[1] .. ':'
if not v then
  redis.call('SET', KEYS[1], mine .. ARGV[2], 'EX', ARGV[3])
  return 1
end
if v == 's:' .. ARGV[1] or string.sub(v, 1, #mine) == mine then return 1 end
if string.sub(v, 1, 2) == 'p:' then
  local at = tonumber(string.match(v, ':(%d+)$'))
  if at and tonumber(ARGV[2]) - at > tonumber(ARGV[4]) then
    redis.call('SET', KEYS[1], mine .. ARGV[2], 'EX', ARGV[3])
    return 2
  end
end
return 0`)

// Deliveries returns the shared DeliverySet.
func (r *Redis) Deliveries() *RedisDeliveries { return &RedisDeliveries{r: r} }

// FirstSeen implements DeliverySet.
func (d *RedisDeliveries) FirstSeen(ctx context.Context, id string) (bool, error) {
	return d.Claim(ctx, id, newNonce())
}

// Claim records id under nonce and reports whether this is its first
// sighting. Calling it again with the same nonce answers true again: a
// claim whose answer was lost (a timeout) can be retried without taking
// the delivery for a duplicate of itself.
func (d *RedisDeliveries) Claim(ctx context.Context, id, nonce string) (bool, error) {
	key := d.r.key("delivery:", id)
	var n int64
	err := d.r.do(ctx, "dedup", d.r.opts.OpTimeout, func(ctx context.Context) error {
		var err error
		n, err = claimScript.Run(ctx, d.r.client, []string{key}, nonce, time.Now().UnixMilli(),
			int64(d.r.opts.DeliveryTTL.Seconds()), d.r.opts.ClaimTimeout.Milliseconds()).Int64()
		return err
	})
	if n == 2 {
		d.r.event("claim_taken_over")
	}
	return n > 0, err
}

// confirm is the write that confirms a delivery's claim, for the
// transaction that stores its work.
func (d *RedisDeliveries) confirm(ctx context.Context, p redis.Pipeliner, id, nonce string) {
	p.Set(ctx, d.r.key("delivery:", id), "s:"+nonce, d.r.opts.DeliveryTTL)
}

// Forget implements DeliverySet.
func (d *RedisDeliveries) Forget(ctx context.Context, id string) error {
	return d.r.do(ctx, "dedup", d.r.opts.OpTimeout, func(ctx context.Context) error {
		return d.r.client.Del(ctx, d.r.key("delivery:", id)).Err()
	})
}

func newNonce() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

var _ DeliverySet = (*RedisDeliveries)(nil)
