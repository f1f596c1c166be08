package script

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

// TestMemSizeIsHonest compares the parse cache's charge for facts with
// the heap they hold, for recipes in the real structure and for scripts
// dense in one kind of fact: the estimate must neither hide memory (a
// cache bounded in bytes would then hold more) nor inflate it much.
func TestMemSizeIsHonest(t *testing.T) {
	fixtures, err := filepath.Glob("testdata/*.sh")
	if err != nil || len(fixtures) == 0 {
		t.Fatal("no recipe fixtures", err)
	}
	var recipes []string
	for _, p := range fixtures {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse("benchmarks/x_vllm.sh", b); err == nil {
			recipes = append(recipes, string(b))
		}
	}
	recipes = append(recipes, benchRecipe())
	rep := func(f func(i int) string, n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i))
		}
		return b.String()
	}
	cases := map[string]func(k int) string{
		"recipes": func(k int) string { return recipes[k%len(recipes)] + fmt.Sprintf("# copy %d\n", k) },
		"reads": func(k int) string {
			return "echo " + rep(func(int) string { return "$X " }, 20000) + fmt.Sprintf("\n# %d\n", k)
		},
		"exports": func(k int) string {
			return rep(func(i int) string { return fmt.Sprintf("export X%d=%d\n", i, k) }, 5000)
		},
		"long command": func(k int) string {
			return "vllm serve m" + rep(func(i int) string { return fmt.Sprintf(" --f%d %d", i, k) }, 5000) + "\n"
		},
		"json keys": func(k int) string {
			return "vllm serve m --kv-transfer-config '{" + rep(func(i int) string { return fmt.Sprintf(`"key%d": %d, `, i, k) }, 5000) + `"z": 1}'` + "\n"
		},
		"nested ifs": func(k int) string {
			return strings.Repeat("if [ -n \"$X\" ]; then export A=1\n", 150) + fmt.Sprintf("vllm serve m%d\n", k) + strings.Repeat("fi\n", 150)
		},
	}
	for name, gen := range cases {
		t.Run(name, func(t *testing.T) {
			srcs := make([][]byte, 40)
			for k := range srcs {
				srcs[k] = []byte(gen(k))
			}
			checktest.SizeCheck(t, func() []any {
				out := make([]any, len(srcs))
				for k, src := range srcs {
					f, err := Parse("benchmarks/x_vllm.sh", src)
					if err != nil {
						t.Fatal(err)
					}
					f.Atoms()
					f.VarsNamed("X")
					out[k] = f
				}
				return out
			}, func(v any) int64 { return v.(*Facts).MemSize() })
		})
	}
}
