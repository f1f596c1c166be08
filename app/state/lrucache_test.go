package state

import (
	"fmt"
	"strings"
	"testing"
)

// The tree and merge-base caches are bounded in bytes, however many or
// large their entries, and an entry too large for a quarter of the
// budget is not kept (it would flush everything else).
func TestLRUCacheBytes(t *testing.T) {
	c := NewLRU("merge_base", 10_000, StringEntryBytes, nil)
	for i := range 1000 {
		c.Put(fmt.Sprintf("o/r\x00base...head%d", i), strings.Repeat("a", 40))
	}
	b, n := c.Stats()
	if b > 10_000 || n == 0 || n >= 1000 {
		t.Fatalf("%d bytes in %d entries, budget 10000", b, n)
	}
	if _, ok := c.Get("o/r\x00base...head999"); !ok {
		t.Error("the newest entry was evicted")
	}
	if _, ok := c.Get("o/r\x00base...head0"); ok {
		t.Error("the oldest entry was kept")
	}
	c.Put("huge", strings.Repeat("x", 5000))
	if _, ok := c.Get("huge"); ok {
		t.Error("an entry over a quarter of the budget was kept")
	}
	// Replacing an entry does not count it twice.
	c2 := NewLRU("x", 1000, StringEntryBytes, nil)
	for range 10 {
		c2.Put("k", "v")
	}
	if b, n := c2.Stats(); n != 1 || b != StringEntryBytes("k", "v") {
		t.Fatalf("%d bytes, %d entries after replacing one entry", b, n)
	}
}
