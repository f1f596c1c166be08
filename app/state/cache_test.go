package state

import (
	"strings"
	"testing"
)

func TestBlobCacheBudget(t *testing.T) {
	c := NewBlobCache(100, nil)
	for i := range 10 {
		c.Put(string(rune('a'+i)), []byte(strings.Repeat("x", 12)))
	}
	if c.Size() > 100 {
		t.Fatalf("cache holds %d bytes, budget 100", c.Size())
	}
	if _, ok := c.Get("a"); ok {
		t.Fatal("the least recently used blob survived")
	}
	if _, ok := c.Get("j"); !ok {
		t.Fatal("the newest blob was evicted")
	}
	c.Put("big", make([]byte, 13)) // over an eighth of the budget
	if _, ok := c.Get("big"); ok {
		t.Fatal("a blob over an eighth of the budget was cached")
	}
}
