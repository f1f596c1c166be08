package checks

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
)

type countingTree struct {
	Tree
	reads int
}

func (c *countingTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	c.reads++
	return c.Tree.ReadFile(ctx, p)
}

func TestMemTreeAndCache(t *testing.T) {
	ctx := context.Background()
	mem := NewMemTree(map[string]string{"a/b/c.sh": "x\n", "a/d.yaml": "y\n", "top": "z"})
	es, err := mem.ReadDir(ctx, "a")
	if err != nil || len(es) != 2 || es[0].Path != "a/b" || !es[0].IsDir || es[1].Path != "a/d.yaml" {
		t.Fatalf("ReadDir(a) = %+v, %v", es, err)
	}
	if _, err := mem.ReadFile(ctx, "nope"); !IsNotExist(err) {
		t.Errorf("missing file error %v", err)
	}
	st, err := mem.Stat(ctx, "/a/b/c.sh")
	// git hash-object of "x\n"
	if err != nil || st.ID != "587be6b4c3f93f93c489c0111bba5596147a26cb" {
		t.Errorf("Stat = %+v, %v", st, err)
	}
	all, err := Walk(ctx, mem, "")
	if err != nil || len(all) != 3 {
		t.Errorf("Walk = %v, %v", all, err)
	}
	if files, err := Walk(ctx, mem, "missing"); err != nil || files != nil {
		t.Errorf("Walk(missing) = %v, %v", files, err)
	}

	ct := &countingTree{Tree: mem}
	c := NewCachedTree(ct)
	for i := 0; i < 3; i++ {
		if _, err := c.ReadFile(ctx, "a/d.yaml"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ReadFile(ctx, "missing"); !IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if ct.reads != 2 {
		t.Errorf("underlying reads = %d, want 2 (one per path)", ct.reads)
	}
	if NewCachedTree(c) != c {
		t.Error("re-wrapping a cached tree")
	}
}

func TestParseCache(t *testing.T) {
	ctx := context.Background()
	mem := NewMemTree(map[string]string{"f": "content"})
	cache := NewParseCache(0)
	parses := 0
	parse := func(b []byte) (int, error) { parses++; return len(b), nil }
	for i := 0; i < 3; i++ {
		n, err := Parsed(ctx, cache, mem, "len", "f", parse)
		if err != nil || n != 7 {
			t.Fatal(n, err)
		}
	}
	if parses != 1 {
		t.Errorf("parsed %d times", parses)
	}
	// Parse errors are cached as well.
	bad := errors.New("bad")
	for i := 0; i < 2; i++ {
		if _, err := Parsed(ctx, cache, mem, "fail", "f", func([]byte) (int, error) { parses++; return 0, bad }); err != bad {
			t.Fatal(err)
		}
	}
	if parses != 2 {
		t.Errorf("failing parse ran %d times", parses-1)
	}
	var nilCache *ParseCache
	nilCache.Put("k", "1", 1)
	if _, ok := nilCache.Get("k", "1"); ok || nilCache.Len() != 0 {
		t.Error("nil cache must cache nothing")
	}
	if _, err := Parsed(ctx, nilCache, mem, "len", "missing", parse); !IsNotExist(err) {
		t.Error(err)
	}
}

type bulkTree struct {
	countingTree
	bulkCalls int
}

func (b *bulkTree) ReadFiles(ctx context.Context, paths []string) (map[string][]byte, error) {
	b.bulkCalls++
	out := map[string][]byte{}
	for _, p := range paths {
		if c, err := b.Tree.ReadFile(ctx, p); err == nil {
			out[p] = c
		}
	}
	return out, nil
}

func TestPrefetch(t *testing.T) {
	ctx := context.Background()
	bt := &bulkTree{countingTree: countingTree{Tree: NewMemTree(map[string]string{"a": "1", "b": "2"})}}
	c := NewCachedTree(bt)
	if err := Prefetch(ctx, c, []string{"a", "b", "missing"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a", "b"} {
		if _, err := c.ReadFile(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if bt.bulkCalls != 1 || bt.reads != 0 {
		t.Errorf("bulk calls %d, single reads %d; want 1 and 0", bt.bulkCalls, bt.reads)
	}
	// A path the bulk read did not return is still read lazily.
	if _, err := c.ReadFile(ctx, "missing"); !IsNotExist(err) || bt.reads != 1 {
		t.Errorf("missing: %v, reads %d", err, bt.reads)
	}
	// Trees without bulk support, and plain trees, are left alone.
	if err := Prefetch(ctx, NewCachedTree(NewMemTree(nil)), []string{"x"}); err != nil {
		t.Error(err)
	}
	if err := Prefetch(ctx, NewMemTree(nil), []string{"x"}); err != nil {
		t.Error(err)
	}
}

type sized int64

func (s sized) MemSize() int64 { return int64(s) }

// The parse cache is bounded in bytes: each entry is charged what its
// value says it holds (plus its key), the least recently used go first,
// and a value larger than the whole bound is not kept.
func TestParseCacheBytes(t *testing.T) {
	const entry int64 = cacheEntryOverhead + int64(len("k\x00")) + 1 // key "k\x00N"
	cache := NewParseCache(3 * (1000 + entry))
	cache.Put("k", "1", sized(1000))
	cache.Put("k", "2", sized(1000))
	cache.Put("k", "3", sized(1000))
	if st := cache.Stats(); st.Entries != 3 || st.Bytes != 3*(1000+entry) || st.Evictions != 0 {
		t.Fatalf("after three puts: %+v", st)
	}
	cache.Get("k", "1") // 2 is now the least recently used
	cache.Put("k", "4", sized(1000))
	if _, ok := cache.Get("k", "2"); ok {
		t.Error("the least recently used entry survived")
	}
	for _, id := range []string{"1", "3", "4"} {
		if _, ok := cache.Get("k", id); !ok {
			t.Errorf("entry %s was evicted", id)
		}
	}
	// Replacing an entry charges its new size.
	cache.Put("k", "4", sized(10))
	if got, want := cache.Bytes(), int64(2*(1000+entry)+10+entry); got != want {
		t.Errorf("Bytes = %d, want %d", got, want)
	}
	cache.PutSized("k", "5", "huge", 1<<30)
	if _, ok := cache.Get("k", "5"); ok || cache.Len() != 0 || cache.Bytes() != 0 {
		t.Errorf("a value over the bound: len %d, bytes %d", cache.Len(), cache.Bytes())
	}
	st := cache.Stats()
	if st.Hits == 0 || st.Misses == 0 || st.Evictions != 5 || st.MaxBytes != 3*(1000+entry) {
		t.Errorf("stats %+v", st)
	}
	// Parsed charges a Sizer's MemSize, and a parse error next to nothing.
	cache = NewParseCache(0)
	mem := NewMemTree(map[string]string{"f": strings.Repeat("x", 1000)})
	if _, err := Parsed(context.Background(), cache, mem, "sized", "f", func(b []byte) (sized, error) { return sized(5 * len(b)), nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := Parsed(context.Background(), cache, mem, "bad", "f", func([]byte) (sized, error) { return 0, errors.New("bad") }); err == nil {
		t.Fatal("no error")
	}
	if got, max := cache.Bytes(), int64(5000+2*(cacheEntryOverhead+int(len("sized\x00"))+40)); got > max || got < 5000 {
		t.Errorf("Bytes = %d, want about 5000", got)
	}
}

// TestParseCachePeek: a peek finds what Get would, and is no use: the
// entry stays as recent as it was, and the stats do not count it.
func TestParseCachePeek(t *testing.T) {
	const entry int64 = cacheEntryOverhead + int64(len("k\x00")) + 1
	cache := NewParseCache(2 * (1000 + entry))
	cache.Put("k", "1", sized(1000))
	cache.Put("k", "2", sized(1000))
	before := cache.Stats()
	if v, ok := cache.Peek("k", "1"); !ok || v != sized(1000) {
		t.Fatalf("Peek = %v, %v", v, ok)
	}
	if _, ok := cache.Peek("k", "9"); ok {
		t.Error("Peek found an entry never put")
	}
	if st := cache.Stats(); st.Hits != before.Hits || st.Misses != before.Misses {
		t.Errorf("peeks counted: %+v, then %+v", before, st)
	}
	cache.Put("k", "3", sized(1000)) // 1 is still the least recently used
	if _, ok := cache.Peek("k", "1"); ok {
		t.Error("a peek made the entry recent")
	}
	var none *ParseCache
	if _, ok := none.Peek("k", "1"); ok {
		t.Error("a nil cache holds nothing")
	}
}

// lasting is a value the cache evicts after every other.
type lasting int64

func (l lasting) MemSize() int64 { return int64(l) }
func (lasting) EvictedLast()     {}

// TestParseCacheEvictsLastingLast: a value that is EvictedLast stays,
// however long unused, while other entries can go; alone over the bound,
// it goes too.
func TestParseCacheEvictsLastingLast(t *testing.T) {
	const entry int64 = cacheEntryOverhead + int64(len("k\x00")) + 1
	cache := NewParseCache(3 * (1000 + entry))
	cache.Put("k", "L", lasting(1000))
	cache.Put("k", "1", sized(1000))
	cache.Put("k", "2", sized(1000))
	cache.Put("k", "3", sized(1000)) // L is the least recently used
	if _, ok := cache.Get("k", "L"); !ok {
		t.Fatal("the lasting entry went while others could")
	}
	if _, ok := cache.Get("k", "1"); ok {
		t.Error("the least recently used ordinary entry survived")
	}
	cache.PutSized("k", "L", lasting(0), 3*(1000+entry)+1) // now over the bound alone
	if _, ok := cache.Get("k", "L"); ok || cache.Bytes() > cache.MaxBytes() {
		t.Errorf("a lasting entry over the bound stayed: %d of %d bytes", cache.Bytes(), cache.MaxBytes())
	}
}

// Snapshot reads a tree back into the map it was made from.
func TestSnapshot(t *testing.T) {
	files := map[string]string{"a.sh": "x\n", "d/b.yaml": "k: v\n", "d/e/c": ""}
	got, err := Snapshot(context.Background(), NewMemTree(files))
	if err != nil || !maps.Equal(got, files) {
		t.Errorf("Snapshot = %v, %v; want %v", got, err, files)
	}
	if got, err := Snapshot(context.Background(), NewMemTree(nil)); err != nil || len(got) != 0 {
		t.Errorf("empty tree: %v, %v", got, err)
	}
}
