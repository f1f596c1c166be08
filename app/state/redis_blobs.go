package state

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// The shared blob tier: raw file contents by git blob SHA, behind each
// replica's in-process BlobCache (parsed results never leave the process).
// A replica that starts, or reviews a repository another replica has
// seen, reads the sibling recipes from Redis instead of spending the
// installation's API quota on them. The App keeps the tier within its
// byte budget itself (least recently used out first), so Redis can run
// with maxmemory-policy noeviction and never drop a lease or a dedup key
// to make room for a blob.

var (
	// blobGet reads a blob and marks it used (KEYS: blob, lru, clock;
	// ARGV: sha). The clock is a counter, so recency is exact across
	// replicas and within a millisecond.
	blobGet = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then redis.call('ZADD', KEYS[2], 'XX', redis.call('INCR', KEYS[3]), ARGV[1]) end
return v`)
	// blobPut stores a blob and evicts the least recently used ones past
	// the budget (KEYS: blob, lru, bytes, clock; ARGV: data, budget, key
	// prefix of blobs, sha). It returns how many were evicted.
	blobPut = redis.NewScript(`
local now = redis.call('INCR', KEYS[4])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('ZADD', KEYS[2], now, ARGV[4])
  return 0
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], now, ARGV[4])
local total = redis.call('INCRBY', KEYS[3], string.len(ARGV[1]))
local budget = tonumber(ARGV[2])
local evicted = 0
while total > budget do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #oldest == 0 then
    redis.call('SET', KEYS[3], 0)
    break
  end
  local k = ARGV[3] .. oldest[1]
  local n = redis.call('STRLEN', k)
  redis.call('DEL', k)
  redis.call('ZREM', KEYS[2], oldest[1])
  total = redis.call('DECRBY', KEYS[3], n)
  evicted = evicted + 1
end
return evicted`)
)

// BlobTier is the shared blob tier; a nil *BlobTier is off.
type BlobTier struct {
	r      *Redis
	budget int64
	// timeout is short: a slow Redis must cost less than asking GitHub.
	timeout  time.Duration
	observer CacheObserver
}

func NewBlobTier(r *Redis, o CacheObserver) *BlobTier {
	if r == nil || r.opts.BlobCacheBytes <= 0 {
		return nil
	}
	return &BlobTier{r: r, budget: r.opts.BlobCacheBytes, timeout: min(r.opts.OpTimeout, 250*time.Millisecond), observer: o}
}

// maxShared bounds one shared blob: a huge file must not flush the others,
// and one Redis value should not hold the server up while it is copied.
func (t *BlobTier) maxShared() int64 { return min(t.budget/8, 8<<20) }

// Get returns blob sha if the tier has it and its content hashes to sha
// (a damaged or foreign value is ignored).
func (t *BlobTier) Get(ctx context.Context, sha string) ([]byte, bool) {
	if t == nil || !t.r.Up() {
		return nil, false
	}
	var b []byte
	err := t.r.do(ctx, "blob", t.timeout, func(ctx context.Context) error {
		s, err := blobGet.Run(ctx, t.r.client, []string{t.r.key("blob:", sha), t.r.key("blobs:lru"), t.r.key("blobs:clock")},
			sha).Text()
		b = []byte(s)
		return err
	})
	hit := err == nil && checks.BlobID(b) == sha
	if err != nil && !errors.Is(err, redis.Nil) {
		t.r.log.Debug("shared blob tier unavailable; asking GitHub", "sha", sha, "error", err)
	}
	observe(t.observer, "blob_redis", hit)
	if !hit {
		return nil, false
	}
	return b, true
}

// Put shares blob sha; failures only cost a later GitHub call.
func (t *BlobTier) Put(ctx context.Context, sha string, b []byte) {
	if t == nil || !t.r.Up() || int64(len(b)) > t.maxShared() {
		return
	}
	_ = t.r.do(ctx, "blob", t.timeout, func(ctx context.Context) error {
		return blobPut.Run(ctx, t.r.client, []string{t.r.key("blob:", sha), t.r.key("blobs:lru"), t.r.key("blobs:bytes"),
			t.r.key("blobs:clock")}, b, t.budget, t.r.key("blob:"), sha).Err()
	})
}
