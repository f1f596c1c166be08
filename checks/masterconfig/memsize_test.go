package masterconfig

import (
	"fmt"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

// TestMemSizeIsHonest compares the parse cache's charge for parsed master
// configs with the heap they hold: the real configs (when ../shared is
// there) and configs dense in one kind of structure.
func TestMemSizeIsHonest(t *testing.T) {
	rows := func(n int) string {
		var b strings.Builder
		b.WriteString(strings.TrimSpace(baseNV[:strings.Index(baseNV, "search-space:")]) + "\n      search-space:\n")
		for i := range n {
			fmt.Fprintf(&b, "      - { tp: %d, ep: %d, conc-start: 4, conc-end: 64 }\n", i%8+1, i%4+1)
		}
		return b.String()
	}
	cases := map[string]func(t *testing.T) string{
		"tiny keys": func(*testing.T) string {
			var b strings.Builder
			for i := range 20000 {
				fmt.Fprintf(&b, "k%d: %d\n", i, i)
			}
			return b.String()
		},
		"many rows":   func(*testing.T) string { return rows(5000) },
		"real nvidia": func(t *testing.T) string { return string(readReal(t, "configs/nvidia-master.yaml")) },
		"real amd":    func(t *testing.T) string { return string(readReal(t, "configs/amd-master.yaml")) },
	}
	for name, gen := range cases {
		t.Run(name, func(t *testing.T) {
			src := gen(t)
			copies := max(1, (4<<20)/len(src))
			checktest.SizeCheck(t, func() []any {
				out := make([]any, copies)
				for i := range out {
					out[i] = parseFile([]byte(src), nil)
				}
				return out
			}, func(v any) int64 { return v.(*File).MemSize() })
		})
	}
	t.Run("MODELS.md", func(t *testing.T) {
		src := readReal(t, "MODELS.md")
		checktest.SizeCheck(t, func() []any {
			out := make([]any, 200)
			for i := range out {
				out[i], _ = ParseModels(src)
			}
			return out
		}, func(v any) int64 { return v.(*Policy).MemSize() })
	})
}
