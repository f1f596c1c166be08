package masterconfig

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// benchConfig returns the real NVIDIA master config, or a generated file of
// the same size and shape when the real one is absent.
func benchConfig(b *testing.B) (src []byte, real bool) {
	if src, err := os.ReadFile(realDir + "configs/nvidia-master.yaml"); err == nil {
		return src, true
	}
	var sb strings.Builder
	for i := 0; sb.Len() < 323670; i++ {
		sb.WriteString(strings.ReplaceAll(baseNV, "-fp4-", fmt.Sprintf("-fp4-x%d-", i)))
	}
	return []byte(sb.String()), false
}

func BenchmarkParseMasterConfig(b *testing.B) {
	src, real := benchConfig(b)
	b.Logf("input: %d bytes (real file: %v)", len(src), real)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if f, _ := ParseMasterConfig(src); f.Broken() {
			b.Fatal("broken")
		}
	}
}

// BenchmarkParseMasterConfigHead parses a PR's head of the ~320 KB config
// after its base, sharing a parse cache: only the changed key is parsed.
func BenchmarkParseMasterConfigHead(b *testing.B) {
	src, _ := benchConfig(b)
	i := strings.Index(string(src), "  image: ")
	if i < 0 {
		b.Fatal("no image line")
	}
	head := []byte(string(src[:i]) + "  # bumped\n" + string(src[i:]))
	cache := checks.NewParseCache(0)
	parseFile(src, cache)
	b.ReportAllocs()
	for b.Loop() {
		if f := parseFile(head, cache); f.Broken() {
			b.Fatal("broken")
		}
	}
}

// BenchmarkReviewConfigChange reviews a one-row change of the ~320 KB
// config with the MC rules: cold parses base, head and MODELS.md every
// time; warm finds them in the parse cache, as a re-review does.
func BenchmarkReviewConfigChange(b *testing.B) {
	src, _ := benchConfig(b)
	md, err := os.ReadFile("../../testdata/trees/inferencex/MODELS.md")
	if err != nil {
		b.Fatal(err)
	}
	// Append a new agentic key at the end: one new key, two rows.
	head := string(src) + "\nbench-added-fp4-b200-vllm-agentic:\n  image: vllm/vllm-openai:v0.25.0\n  model: m\n  model-prefix: bench-added\n" +
		"  runner: b200\n  precision: fp4\n  framework: vllm\n  multinode: false\n  scenarios:\n    agentic-coding:\n    - search-space:\n" +
		"      - { tp: 4, conc-list: [1, 2, 4] }\n      - { tp: 8, conc-list: [8, 16] }\n"
	base := checks.NewMemTree(map[string]string{nv: string(src), "MODELS.md": string(md)})
	ht := checks.NewMemTree(map[string]string{nv: head, "MODELS.md": string(md)})
	ctx := context.Background()
	files, err := trees.Diff(ctx, base, ht)
	if err != nil {
		b.Fatal(err)
	}
	reg, err := checks.NewRegistry(Rules()...)
	if err != nil {
		b.Fatal(err)
	}
	run := func(cache *checks.ParseCache) {
		ch := &checks.Change{Base: base, Head: ht, Files: files, Cache: cache, Date: time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC)}
		if _, err := checks.Review(ctx, reg, ch); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			run(nil)
		}
	})
	b.Run("warm", func(b *testing.B) {
		// Parsed config keys share the cache with whole files: size it
		// for the keys too (the default), or the files get evicted.
		cache := checks.NewParseCache(0)
		run(cache)
		b.ReportAllocs()
		for b.Loop() {
			run(cache)
		}
	})
}
