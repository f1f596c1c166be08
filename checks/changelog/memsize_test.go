package changelog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
	"github.com/reviewbot-dev/reviewbot/checks/internal/yamlx"
)

// TestMemSizeIsHonest compares the parse cache's charge for parsed
// changelogs and YAML documents with the heap they hold.
func TestMemSizeIsHonest(t *testing.T) {
	entries := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "- config-keys:\n    - dsr1-fp8-b200-vllm-%d\n  description:\n    - \"Add a sweep\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/%d\n\n", i, i+1)
		}
		return b.String()
	}
	cases := map[string]func(t *testing.T) string{
		"entries": func(*testing.T) string { return entries(10000) },
		"flow list": func(*testing.T) string {
			return "- config-keys: [" + strings.Repeat("k, ", 100000) + "x]\n  description: [x]\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n"
		},
		"real": func(t *testing.T) string { return string(readReal(t)) },
	}
	for name, gen := range cases {
		t.Run(name, func(t *testing.T) {
			src := gen(t)
			copies := max(1, (8<<20)/len(src))
			checktest.SizeCheck(t, func() []any {
				out := make([]any, copies)
				for i := range out {
					out[i], _ = ParseFile([]byte(src))
				}
				return out
			}, func(v any) int64 { return v.(*File).MemSize() })
			t.Run("as a YAML document", func(t *testing.T) {
				checktest.SizeCheck(t, func() []any {
					out := make([]any, max(1, copies/4))
					for i := range out {
						out[i], _ = parseDoc([]byte(src))
					}
					return out
				}, func(v any) int64 { return v.(yamlDoc).MemSize() })
			})
		})
	}
	t.Run("chunks", func(t *testing.T) {
		var b strings.Builder
		for i := range 20000 {
			fmt.Fprintf(&b, "key-%d:\n  image: x\n", i)
		}
		src := b.String()
		checktest.SizeCheck(t, func() []any {
			out := make([]any, 8)
			for i := range out {
				c, ok := yamlx.TopLevelChunks([]byte(src))
				out[i] = chunked{c, ok}
			}
			return out
		}, func(v any) int64 { return v.(chunked).MemSize() })
	})
}
