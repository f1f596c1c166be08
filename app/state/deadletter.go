package state

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"github.com/redis/go-redis/v9"
)

// A PR head whose work crashed the reviewer again and again is set aside
// (the flow is app/deadletter.go); these are where that is remembered.

// DeadLetters remembers the heads set aside, per PR key.
type DeadLetters interface {
	Head(ctx context.Context, key string) (string, bool, error)
	SetHead(ctx context.Context, key, sha string) error
	Clear(ctx context.Context, key string) error
}

// deadLetterTTL is how long a set-aside head stays set aside.
const deadLetterTTL = 7 * 24 * time.Hour

// MemoryDeadLetters is the in-process record: the set-aside heads and the
// crash count of each PR's current work.
type MemoryDeadLetters struct {
	mu      sync.Mutex
	heads   *simplelru.LRU[string, string]
	crashes *simplelru.LRU[string, int]
}

// NewMemoryDeadLetters remembers the newest 4,096 PRs of each.
func NewMemoryDeadLetters() *MemoryDeadLetters {
	h, _ := simplelru.NewLRU[string, string](4096, nil)
	c, _ := simplelru.NewLRU[string, int](4096, nil)
	return &MemoryDeadLetters{heads: h, crashes: c}
}

func (m *MemoryDeadLetters) Head(_ context.Context, key string) (string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sha, ok := m.heads.Get(key)
	return sha, ok, nil
}

func (m *MemoryDeadLetters) SetHead(_ context.Context, key, sha string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.heads.Add(key, sha)
	m.crashes.Remove(key)
	return nil
}

func (m *MemoryDeadLetters) Clear(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.heads.Remove(key)
	return nil
}

// Crashed counts a crash of key's work and returns the count.
func (m *MemoryDeadLetters) Crashed(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, _ := m.crashes.Get(key)
	n++
	m.crashes.Add(key, n)
	return n
}

// Succeeded forgets key's crashes.
func (m *MemoryDeadLetters) Succeeded(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.crashes.Remove(key)
}

// RedisDeadLetters keeps the set-aside heads in Redis (dead:<key>), so
// every replica knows them.
type RedisDeadLetters struct{ r *Redis }

// DeadLetters returns the set-aside heads kept in r.
func (r *Redis) DeadLetters() *RedisDeadLetters { return &RedisDeadLetters{r: r} }

func (d *RedisDeadLetters) Head(ctx context.Context, key string) (string, bool, error) {
	var sha string
	err := d.r.do(ctx, "work", d.r.opts.OpTimeout, func(ctx context.Context) error {
		v, err := d.r.client.Get(ctx, d.r.key("dead:", key)).Result()
		if errors.Is(err, redis.Nil) {
			return nil
		}
		sha = v
		return err
	})
	return sha, sha != "", err
}

func (d *RedisDeadLetters) SetHead(ctx context.Context, key, sha string) error {
	return d.r.do(ctx, "work", d.r.opts.OpTimeout, func(ctx context.Context) error {
		return d.r.client.Set(ctx, d.r.key("dead:", key), sha, deadLetterTTL).Err()
	})
}

func (d *RedisDeadLetters) Clear(ctx context.Context, key string) error {
	return d.r.do(ctx, "work", d.r.opts.OpTimeout, func(ctx context.Context) error {
		return d.r.client.Del(ctx, d.r.key("dead:", key)).Err()
	})
}

var (
	_ DeadLetters = (*MemoryDeadLetters)(nil)
	_ DeadLetters = (*RedisDeadLetters)(nil)
)
