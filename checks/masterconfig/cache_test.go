package masterconfig

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// countingTree counts file reads per path.
type countingTree struct {
	checks.Tree
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	c.mu.Lock()
	c.reads[p]++
	c.mu.Unlock()
	return c.Tree.ReadFile(ctx, p)
}

// TestWarmReviewDoesNotReparse reviews the same change twice with one parse
// cache: the second review must find base, head and MODELS.md parsed.
func TestWarmReviewDoesNotReparse(t *testing.T) {
	md := modelsMD(t)
	head := after(baseNV, "conc-list: [1, 4, 8, 16, 32, 64, 128] }",
		"      - { tp: 4, ep: 4, dp-attn: true, spec-decoding: mtp, conc-list: [64, 128] }\n")
	base := &countingTree{Tree: checks.NewMemTree(map[string]string{nv: baseNV, "MODELS.md": md}), reads: map[string]int{}}
	ht := &countingTree{Tree: checks.NewMemTree(map[string]string{nv: head, "MODELS.md": md}), reads: map[string]int{}}
	files, err := trees.Diff(context.Background(), base.Tree, ht.Tree)
	if err != nil {
		t.Fatal(err)
	}
	cache := checks.NewParseCache(0)
	review := func() *checks.Result {
		ch := &checks.Change{Base: base, Head: ht, Files: files, Cache: cache, Date: time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC)}
		return reviewChange(t, ch)
	}
	cold := review()
	if base.reads[nv] != 1 || ht.reads[nv] != 1 || base.reads["MODELS.md"] != 1 {
		t.Errorf("cold review reads: base %v head %v", base.reads, ht.reads)
	}
	before := cache.Len()
	base.reads, ht.reads = map[string]int{}, map[string]int{}
	warm := review()
	if base.reads[nv] != 0 || ht.reads[nv] != 0 || base.reads["MODELS.md"] != 0 {
		t.Errorf("warm review re-read: base %v head %v", base.reads, ht.reads)
	}
	// Base, head and MODELS.md, the reviewbot:ignore scan of the changed
	// file, and one entry per distinct config key text (the head shares
	// all keys but the changed one with the base).
	keys := map[string]bool{}
	for _, src := range []string{baseNV, head} {
		chunks, ok := yamlx.TopLevelChunks([]byte(src))
		if !ok {
			t.Fatal("test config does not split into keys")
		}
		for _, c := range chunks {
			keys[c.Text] = true
		}
	}
	if want := 4 + len(keys); cache.Len() != before || before != want {
		t.Errorf("cache entries %d then %d, want %d", before, cache.Len(), want)
	}
	if len(cold.Findings) != 1 || len(warm.Findings) != 1 || cold.Findings[0].Body != warm.Findings[0].Body {
		t.Errorf("cold %v, warm %v", summary(cold.Findings), summary(warm.Findings))
	}
}
