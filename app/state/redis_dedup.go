package state

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/redis/go-redis/v9"
)

// RedisDeliveries is the DeliverySet several replicas share: one key per
// delivery id, so exactly one replica accepts a delivery however often
// GitHub (or a person) redelivers it, and the keys expire on their own
// (bounded memory).
//
// A claim is provisional ("p:<nonce>:<ms>") until the delivery's work is
// stored in Redis, which confirms it ("s:<nonce>", in the same
// transaction as the work). A replica that dies between the two leaves a
// claim nobody will act on, so only a confirmed claim makes a redelivery a
// plain duplicate. A redelivery that finds an unconfirmed claim older than
// ClaimTimeout (GitHub's redelivery, or a load balancer retrying the
// unanswered request on another replica) is taken on; one that finds a
// younger one gets 503 with Retry-After: the first replica may still be
// storing it. At worst a delivery whose first replica is merely slow is
// stored twice: the work hash merges the two, and the App never posts
// twice.
type RedisDeliveries struct{ r *Redis }

// ErrClaimPending says another replica claimed the delivery a moment ago
// and has not stored its work yet.
var ErrClaimPending = errors.New("another replica is taking this delivery")

// claimScript claims KEYS[1] for nonce ARGV[1] (TTL ARGV[2] s; an
// unconfirmed claim is stale after ARGV[3] ms): 1 first (or the caller's
// own claim again), 2 a stale unconfirmed claim taken over, 3 a young
// unconfirmed claim, 0 a duplicate of a delivery whose work is stored.
// Ages are read on Redis's clock.
var claimScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('GET', KEYS[1])
local mine = 'p:' .. ARGV[1] .. ':'
if not v then
  redis.call('SET', KEYS[1], mine .. now, 'EX', ARGV[2])
  return 1
end
if v == 's:' .. ARGV[1] or string.sub(v, 1, #mine) == mine then return 1 end
if string.sub(v, 1, 2) == 'p:' then
  local at = tonumber(string.match(v, ':(%d+)$'))
  if at and now - at <= tonumber(ARGV[3]) then return 3 end
  redis.call('SET', KEYS[1], mine .. now, 'EX', ARGV[2])
  return 2
end
return 0`)

// Deliveries returns the shared DeliverySet.
func (r *Redis) Deliveries() *RedisDeliveries { return &RedisDeliveries{r: r} }

// FirstSeen implements DeliverySet.
func (d *RedisDeliveries) FirstSeen(ctx context.Context, id string) (bool, error) {
	return d.Claim(ctx, id, NewNonce())
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
		n, err = claimScript.Run(ctx, d.r.client, []string{key}, nonce, int64(d.r.opts.DeliveryTTL.Seconds()),
			d.r.opts.ClaimTimeout.Milliseconds()).Int64()
		return err
	})
	switch {
	case err != nil:
		return false, err
	case n == 2:
		d.r.Event("claim_taken_over")
	case n == 3:
		return false, ErrClaimPending
	}
	return n > 0, nil
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

// NewNonce is a fresh claim nonce (see RedisDeliveries.Claim).
func NewNonce() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

var _ DeliverySet = (*RedisDeliveries)(nil)
