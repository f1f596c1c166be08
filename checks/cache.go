package checks

import (
	"container/list"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
)

// BlobID returns the git blob SHA-1 of content, the ID trees give files
// whose backing store has no ID of its own.
func BlobID(content []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// ParseCache keeps parsed files across reviews, keyed by what was parsed
// and the content's blob ID. Blob IDs name immutable content, so entries
// never go stale; the cache only bounds its size, in bytes: each entry is
// charged the memory its value holds (Sizer), and the least recently used
// entries go first. The zero value is not usable; use NewParseCache. A nil
// *ParseCache is valid and caches nothing.
type ParseCache struct {
	mu       sync.Mutex
	maxBytes int64
	bytes    int64
	order    *list.List
	items    map[string]*list.Element

	hits, misses, evictions uint64
}

// DefaultParseCacheBytes is the bound NewParseCache(0) gives: room for the
// parsed master configs, changelog and every recipe of the reviewed
// repository several times over (about 20 MiB each), small next to a
// replica's memory limit.
const DefaultParseCacheBytes = 128 << 20

// Sizer is implemented by parsed values that know the memory they hold:
// the structures the parse built, estimated from their counts, plus the
// source text they keep. Values that are not Sizers are charged
// unsizedBytesPerByte times their source (Parsed) or unsizedEntry (Put).
type Sizer interface {
	MemSize() int64
}

const (
	// cacheEntryOverhead is the list element, map entry and key of an
	// entry.
	cacheEntryOverhead = 256
	// unsizedBytesPerByte is the charge per source byte of a parsed value
	// that is no Sizer: more than any parser here keeps.
	unsizedBytesPerByte = 32
	// unsizedEntry is the charge of a value Put without a size.
	unsizedEntry = 4 << 10
)

// EvictedLast is implemented by cached values that go only after every
// other entry, however long unused: a value that bounds itself to a share
// of the cache (MaxBytes) and would cost a whole review to build again,
// as the kept pipeline models do.
type EvictedLast interface {
	EvictedLast()
}

type cacheItem struct {
	key  string
	val  any
	size int64
}

// NewParseCache returns a cache holding at most maxBytes of parsed values
// (DefaultParseCacheBytes when maxBytes <= 0). A value larger than the
// whole bound is not kept.
func NewParseCache(maxBytes int64) *ParseCache {
	if maxBytes <= 0 {
		maxBytes = DefaultParseCacheBytes
	}
	return &ParseCache{maxBytes: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

// Get returns the cached value for kind and blob id.
func (c *ParseCache) Get(kind, id string) (any, bool) {
	if c == nil || id == "" {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[kind+"\x00"+id]
	if !ok {
		c.misses++
		return nil, false
	}
	c.hits++
	c.order.MoveToFront(el)
	return el.Value.(*cacheItem).val, true
}

// Peek is Get without the use: the entry is not made more recent and the
// lookup is not counted. Work made ahead of the lookups a review makes in
// order (on other cores) peeks, so that the cache sees the same uses in the
// same order however the work was made.
func (c *ParseCache) Peek(kind, id string) (any, bool) {
	if c == nil || id == "" {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[kind+"\x00"+id]
	if !ok {
		return nil, false
	}
	return el.Value.(*cacheItem).val, true
}

// Put stores a value for kind and blob id, charged its MemSize when it is
// a Sizer.
func (c *ParseCache) Put(kind, id string, v any) {
	size := int64(unsizedEntry)
	if s, ok := v.(Sizer); ok {
		size = s.MemSize()
	}
	c.PutSized(kind, id, v, size)
}

// PutSized stores a value for kind and blob id, charged size bytes.
func (c *ParseCache) PutSized(kind, id string, v any, size int64) {
	if c == nil || id == "" {
		return
	}
	key := kind + "\x00" + id
	size += int64(len(key)) + cacheEntryOverhead
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		it := el.Value.(*cacheItem)
		c.bytes += size - it.size
		it.val, it.size = v, size
		c.order.MoveToFront(el)
	} else {
		c.items[key] = c.order.PushFront(&cacheItem{key: key, val: v, size: size})
		c.bytes += size
	}
	for c.bytes > c.maxBytes && c.order.Len() > 0 {
		victim := c.order.Back()
		for el := victim; el != nil; el = el.Prev() {
			if _, last := el.Value.(*cacheItem).val.(EvictedLast); !last {
				victim = el
				break
			}
		}
		it := victim.Value.(*cacheItem)
		c.order.Remove(victim)
		delete(c.items, it.key)
		c.bytes -= it.size
		c.evictions++
	}
}

// MaxBytes is the cache's bound (0 for a nil cache).
func (c *ParseCache) MaxBytes() int64 {
	if c == nil {
		return 0
	}
	return c.maxBytes
}

// Len is the number of cached entries.
func (c *ParseCache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// Bytes is the memory the cached entries are charged.
func (c *ParseCache) Bytes() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// CacheStats describes a cache for metrics.
type CacheStats struct {
	Entries  int
	Bytes    int64
	MaxBytes int64
	// Hits, Misses and Evictions count since the cache was made.
	Hits, Misses, Evictions uint64
}

// Stats returns the cache's size, bound and counters.
func (c *ParseCache) Stats() CacheStats {
	if c == nil {
		return CacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Entries: c.order.Len(), Bytes: c.bytes, MaxBytes: c.maxBytes,
		Hits: c.hits, Misses: c.misses, Evictions: c.evictions}
}

// Parsed reads path from tree and parses it with parse, using cache when
// the tree gives the file a blob ID. kind names the parser (two parsers of
// the same file cache separately). Parse errors are cached too: they are
// as immutable as the content.
func Parsed[T any](ctx context.Context, cache *ParseCache, tree Tree, kind, path string, parse func([]byte) (T, error)) (T, error) {
	var zero T
	st, err := tree.Stat(ctx, path)
	if err != nil {
		return zero, err
	}
	if v, ok := cache.Get(kind, st.ID); ok {
		r := v.(parsedResult[T])
		return r.val, r.err
	}
	b, err := tree.ReadFile(ctx, path)
	if err != nil {
		return zero, fmt.Errorf("read %s: %w", path, err)
	}
	val, perr := parse(b)
	var size int64 // a parse error holds only its message
	if perr == nil {
		size = int64(unsizedBytesPerByte) * int64(len(b))
		if s, ok := any(val).(Sizer); ok {
			size = s.MemSize()
		}
	}
	if ct, ok := tree.(*CachedTree); ok {
		ct.meter.chargeParsed(size)
	}
	cache.PutSized(kind, st.ID, parsedResult[T]{val, perr}, size)
	return val, perr
}

type parsedResult[T any] struct {
	val T
	err error
}
