package checks

import (
	"context"
	"errors"
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
	cache := NewParseCache(2)
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
	// LRU bound.
	cache.Put("k", "1", 1)
	cache.Put("k", "2", 2)
	if cache.Len() != 2 {
		t.Errorf("Len = %d", cache.Len())
	}
	if _, ok := cache.Get("len", BlobID([]byte("content"))); ok {
		t.Error("oldest entry survived eviction")
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
