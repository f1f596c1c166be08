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
// never go stale; the cache only bounds its size (least recently used
// entries go first). The zero value is not usable; use NewParseCache. A nil
// *ParseCache is valid and caches nothing.
type ParseCache struct {
	mu    sync.Mutex
	max   int
	order *list.List
	items map[string]*list.Element
}

type cacheItem struct {
	key string
	val any
}

// NewParseCache returns a cache holding at most max parsed files.
func NewParseCache(max int) *ParseCache {
	if max <= 0 {
		max = 4096
	}
	return &ParseCache{max: max, order: list.New(), items: map[string]*list.Element{}}
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
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheItem).val, true
}

// Put stores a value for kind and blob id.
func (c *ParseCache) Put(kind, id string, v any) {
	if c == nil || id == "" {
		return
	}
	key := kind + "\x00" + id
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value.(*cacheItem).val = v
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&cacheItem{key: key, val: v})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheItem).key)
	}
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
	cache.Put(kind, st.ID, parsedResult[T]{val, perr})
	return val, perr
}

type parsedResult[T any] struct {
	val T
	err error
}
