package convention

import (
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// TestMemSizeIsHonest compares the parse cache's charge for a mined corpus
// (its profiles, their facts, its candidates) with the heap it holds.
func TestMemSizeIsHonest(t *testing.T) {
	files := specBase()
	checktest.SizeCheck(t, func() []any {
		out := make([]any, 200)
		for i := range out {
			out[i] = corpusOf(t, files, script.SGLang)
		}
		return out
	}, func(v any) int64 { return v.(*corpus).MemSize() })
}
