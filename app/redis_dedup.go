package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/redis/go-redis/v9"
)

// RedisDeliveries is the DeliverySet several replicas share: one key per
// delivery id, set with SET NX EX, so exactly one replica accepts a
// delivery however often GitHub (or a person) redelivers it, and the keys
// expire on their own (bounded memory).
type RedisDeliveries struct{ r *Redis }

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
	var first bool
	err := d.r.do(ctx, "dedup", d.r.opts.OpTimeout, func(ctx context.Context) error {
		for range 2 {
			ok, err := d.r.client.SetNX(ctx, key, nonce, d.r.opts.DeliveryTTL).Result()
			if err != nil || ok {
				first = ok
				return err
			}
			held, err := d.r.client.Get(ctx, key).Result()
			if errors.Is(err, redis.Nil) {
				continue // forgotten in between: claim it again
			}
			first = held == nonce
			return err
		}
		return nil
	})
	return first, err
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
