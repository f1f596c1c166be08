package changelog

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

var realConfigs = realData("configs") + "/"

// realRepo returns the real changelog and master configs as a file map,
// skipping the test when the shared data is absent (a fresh clone).
func realRepo(t testing.TB) map[string]string {
	t.Helper()
	files := map[string]string{"perf-changelog.yaml": string(readReal(t))}
	for _, name := range []string{"nvidia-master.yaml", "amd-master.yaml"} {
		b, err := os.ReadFile(realConfigs + name)
		if err != nil {
			t.Skipf("real master configs not available: %v", err)
		}
		files["configs/"+name] = string(b)
	}
	return files
}

func clone(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// realAppend is a new entry in the real file's style for a real key.
const realAppend = `
- config-keys:
    - dsv4-fp4-b300-vllm-agentic-mtp
  scenario-type:
    - agentic-coding
  description:
    - "Add a TP4 concurrency 8 point to the MTP curve"
  pr-link: `

func TestRealChangelogReview(t *testing.T) {
	base := realRepo(t)
	t.Run("no-op", func(t *testing.T) {
		if got := runReview(t, base, clone(base), 2801).ids(); len(got) != 0 {
			t.Errorf("a no-op change gave findings: %v", got)
		}
	})
	t.Run("correct append", func(t *testing.T) {
		head := clone(base)
		head["perf-changelog.yaml"] = base["perf-changelog.yaml"] + realAppend + "https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n"
		if got := runReview(t, base, head, 2801).ids(); len(got) != 0 {
			t.Errorf("a correct append gave findings: %v", got)
		}
	})
	t.Run("wrong link", func(t *testing.T) {
		head := clone(base)
		head["perf-changelog.yaml"] = base["perf-changelog.yaml"] + realAppend + "https://github.com/SemiAnalysisAI/InferenceX/pull/2707\n"
		r := runReview(t, base, head, 2801)
		if got := r.ids(); len(got) != 1 || !strings.HasPrefix(got[0], "CL001 perf-changelog.yaml:") {
			t.Fatalf("findings = %v", got)
		}
		if f := r.get("CL001"); !strings.Contains(f.Body, "`pull/2707`") || len(f.Related) != 2 {
			t.Errorf("finding: %s %+v", f.Body, f.Related)
		}
	})
}

// TestRealMasterConfigsChunk checks that the line splitter handles the real
// master configs, so CL003 compares keys without parsing whole files.
func TestRealMasterConfigsChunk(t *testing.T) {
	files := realRepo(t)
	for _, p := range []string{"configs/nvidia-master.yaml", "configs/amd-master.yaml"} {
		c, _ := parseChunks([]byte(files[p]))
		if !c.OK || len(c.Chunks) < 40 {
			t.Errorf("%s: chunked ok=%v, %d keys", p, c.OK, len(c.Chunks))
		}
		for _, ch := range c.Chunks {
			if _, ok := chunkValue(ch); !ok {
				t.Errorf("%s: key %s at line %d does not parse alone", p, ch.Key, ch.Line)
			}
		}
	}
}

// fixedIDTree wraps a tree so that Stat is computed once, like a git tree
// whose blob IDs are known; the benchmarks then measure the rules, not
// SHA-1 over 400 KB per review.
func fixedIDTree(t checks.Tree) checks.Tree { return checks.NewCachedTree(t) }

// benchFiles returns the real repository files, or a generated file of the
// same size and shape when the shared data is absent.
func benchFiles(b *testing.B) map[string]string {
	b.Helper()
	if _, err := os.Stat(realChangelog); err == nil {
		if _, err := os.Stat(realConfigs + "nvidia-master.yaml"); err == nil {
			return realRepo(b)
		}
	}
	return map[string]string{"perf-changelog.yaml": generatedChangelog(770), "configs/nvidia-master.yaml": generatedConfigs(150)}
}

func generatedChangelog(n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteString("\n")
		}
		key := "dsv4-fp4-b300-vllm-agentic-" + strconv.Itoa(i%150)
		sb.WriteString("- config-keys:\n    - " + key + "\n  scenario-type:\n    - agentic-coding\n  description:\n")
		sb.WriteString("    - \"Move the config to vllm/vllm-openai:nightly-" + strconv.Itoa(i) + " and retune the TP4 and DEP8 arms for the agentic trace replay\"\n")
		sb.WriteString("    - \"Raise the DEP8 concurrency ceiling, keep the GPU-resident TP4 curve unchanged, and pin the router version\"\n")
		sb.WriteString("    - 'Set --max-num-batched-tokens 16384 and \"FULL_AND_PIECEWISE\" CUDA graphs on every arm of the sweep'\n")
		sb.WriteString("  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/" + strconv.Itoa(1000+i) + "\n")
	}
	return sb.String()
}

func generatedConfigs(n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteString("dsv4-fp4-b300-vllm-agentic-" + strconv.Itoa(i) + ":\n  image: vllm/vllm-openai:v0.25.0\n  model-prefix: dsv4\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - { tp: 4, conc-list: [1, 2, 4, 8] }\n\n")
	}
	return sb.String()
}

func BenchmarkParseChangelog(b *testing.B) {
	src := []byte(benchFiles(b)["perf-changelog.yaml"])
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		f, _ := ParseFile(src)
		if f.Err != nil || len(f.Entries) < 700 {
			b.Fatalf("parse: %v, %d entries", f.Err, len(f.Entries))
		}
	}
}

func BenchmarkReviewAppend(b *testing.B) {
	base := benchFiles(b)
	head := clone(base)
	head["perf-changelog.yaml"] = base["perf-changelog.yaml"] + "\n- config-keys:\n    - " + firstKey(base["configs/nvidia-master.yaml"]) +
		"\n  description:\n    - \"Retune\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2801\n"
	ctx := context.Background()
	bt, ht := fixedIDTree(checks.NewMemTree(base)), fixedIDTree(checks.NewMemTree(head))
	files, err := trees.Diff(ctx, bt, ht)
	if err != nil {
		b.Fatal(err)
	}
	reg, err := checks.NewRegistry(Rules()...)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, cache *checks.ParseCache) {
		ch := &checks.Change{Base: bt, Head: ht, Files: files, Cache: cache,
			PR: checks.PRInfo{Number: 2801, Owner: "SemiAnalysisAI", Repo: "InferenceX"}}
		res, err := checks.Review(ctx, reg, ch)
		if err != nil || len(res.Errors) > 0 || len(res.Findings) > 0 {
			b.Fatalf("review: %v %v %v", err, res.Errors, res.Findings)
		}
	}
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			run(b, checks.NewParseCache(0))
		}
	})
	b.Run("warm", func(b *testing.B) {
		cache := checks.NewParseCache(0)
		run(b, cache)
		b.ReportAllocs()
		for b.Loop() {
			run(b, cache)
		}
	})
}

func firstKey(cfg string) string {
	c, _ := parseChunks([]byte(cfg))
	if len(c.Chunks) == 0 {
		return "none"
	}
	return c.Chunks[0].Key
}

// TestRealChangelogSchema: every entry of the real changelog passes the
// repository's validator, so the schema must accept each of them.
func TestRealChangelogSchema(t *testing.T) {
	f, _ := ParseFile(readReal(t))
	s := DefaultSchema()
	for _, e := range f.Entries {
		for _, pr := range shapeProblems(s, f, e, true) {
			if !pr.warn {
				t.Errorf("entry at line %d %s", e.Start, pr.what)
			}
		}
	}
}
