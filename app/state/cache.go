package state

import (
	"math"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// CacheObserver is told of every cache lookup, by cache and result.
type CacheObserver interface {
	CacheLookup(cache string, hit bool)
}

func observe(o CacheObserver, cache string, hit bool) {
	if o != nil {
		o.CacheLookup(cache, hit)
	}
}

// BlobCache keeps file contents by git blob SHA, least recently used out
// first, within a byte budget. Blobs are immutable, so an entry never goes
// stale: the next review of the same repository reads the ~200 sibling
// recipes it needs from here instead of from GitHub.
type BlobCache struct {
	mu       sync.Mutex
	lru      *simplelru.LRU[string, []byte]
	size     int64
	budget   int64
	observer CacheObserver
}

// NewBlobCache returns a cache holding at most budget bytes of content.
func NewBlobCache(budget int64, o CacheObserver) *BlobCache {
	c := &BlobCache{budget: budget, observer: o}
	// Entries are bounded by bytes, not count; the count limit is only
	// there because the LRU needs one.
	c.lru, _ = simplelru.NewLRU[string, []byte](math.MaxInt32, func(_ string, b []byte) { c.size -= int64(len(b)) })
	return c
}

// Get returns the content of blob sha if cached.
func (c *BlobCache) Get(sha string) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	b, ok := c.lru.Get(sha)
	c.mu.Unlock()
	observe(c.observer, "blob", ok)
	return b, ok
}

// Put stores the content of blob sha. A blob larger than an eighth of the
// budget is not kept: one huge file must not flush every sibling.
func (c *BlobCache) Put(sha string, b []byte) {
	if c == nil || sha == "" || int64(len(b)) > c.budget/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lru.Contains(sha) {
		return
	}
	c.lru.Add(sha, b)
	c.size += int64(len(b))
	for c.size > c.budget {
		c.lru.RemoveOldest()
	}
}

// Budget is the most the cache holds, in bytes.
func (c *BlobCache) Budget() int64 {
	if c == nil {
		return 0
	}
	return c.budget
}

// Size is the number of bytes cached.
func (c *BlobCache) Size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// Stats are the bytes and blobs cached.
func (c *BlobCache) Stats() (int64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size, c.lru.Len()
}

// LRU is an LRU bounded in bytes, for tree listings and merge bases
// (all keyed by immutable SHAs). sizeOf estimates an entry's bytes, key
// included.
type LRU[V any] struct {
	name     string
	mu       sync.Mutex
	lru      *simplelru.LRU[string, V]
	sizes    map[string]int64
	size     int64
	budget   int64
	sizeOf   func(key string, v V) int64
	observer CacheObserver
}

func NewLRU[V any](name string, budget int64, sizeOf func(string, V) int64, o CacheObserver) *LRU[V] {
	c := &LRU[V]{name: name, budget: budget, sizeOf: sizeOf, sizes: map[string]int64{}, observer: o}
	c.lru, _ = simplelru.NewLRU[string, V](math.MaxInt32, func(k string, _ V) {
		c.size -= c.sizes[k]
		delete(c.sizes, k)
	})
	return c
}

func (c *LRU[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	v, ok := c.lru.Get(key)
	c.mu.Unlock()
	observe(c.observer, c.name, ok)
	return v, ok
}

// Put stores v; an entry larger than a quarter of the budget is not kept.
func (c *LRU[V]) Put(key string, v V) {
	n := c.sizeOf(key, v)
	if n > c.budget/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(key)
	c.lru.Add(key, v)
	c.sizes[key] = n
	c.size += n
	for c.size > c.budget && c.lru.Len() > 0 {
		c.lru.RemoveOldest()
	}
}

// Budget is the most bytes the cache holds.
func (c *LRU[V]) Budget() int64 { return c.budget }

// Stats are the bytes and entries held.
func (c *LRU[V]) Stats() (int64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size, c.lru.Len()
}

// StringEntryBytes is what a string-valued entry costs: both strings and
// the map and list bookkeeping around them.
func StringEntryBytes(k, v string) int64 { return int64(len(k)+len(v)) + 160 }
