package recipe

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// countingTree counts file reads, to prove parsing is cached.
type countingTree struct {
	checks.Tree
	mu    sync.Mutex
	reads map[string]int
}

func newCountingTree(files map[string]string) *countingTree {
	return &countingTree{Tree: checks.NewMemTree(files), reads: map[string]int{}}
}

func (c *countingTree) ReadFile(ctx context.Context, p string) ([]byte, error) {
	c.mu.Lock()
	c.reads[p]++
	c.mu.Unlock()
	return c.Tree.ReadFile(ctx, p)
}

func (c *countingTree) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.reads {
		n += v
	}
	return n
}

const dir = "benchmarks/single_node/agentic/"

func vllmRecipe(extra string) string {
	return "#!/usr/bin/env bash\nset -euo pipefail\n" + extra + "vllm serve \"$MODEL\" \\\n    --tensor-parallel-size \"$TP\"\n"
}

func baseFiles() map[string]string {
	return map[string]string{
		dir + "a_b300.sh":                vllmRecipe("export VLLM_USE_SIMPLE_KV_OFFLOAD=1\n"),
		dir + "b_b200.sh":                vllmRecipe(""),
		dir + "c_h200_sglang.sh":         "#!/usr/bin/env bash\npython3 -m sglang.launch_server --tp 8\n",
		dir + "broken.sh":                "#!/usr/bin/env bash\nif true; then\n",
		dir + "README.md":                "vllm serve docs\n",
		dir + "deprecated/d_h100.sh":     vllmRecipe(""),
		dir + "target_b300.sh":           vllmRecipe(""),
		dir + "old_name.sh":              vllmRecipe(""),
		"benchmarks/single_node/top.sh":  vllmRecipe(""),
		"runners/launch_b300-nv.sh":      "enroot import docker://x\n",
		dir + "same_as_b_but_renamed.sh": vllmRecipe(""),
	}
}

func siblingPaths(s []*Sibling) []string {
	var out []string
	for _, x := range s {
		out = append(out, x.Path)
		if x.Facts == nil || x.Facts.Path != x.Path {
			out = append(out, "BAD FACTS for "+x.Path)
		}
	}
	return out
}

func TestSiblings(t *testing.T) {
	ctx := context.Background()
	headFiles := baseFiles()
	headFiles[dir+"target_b300.sh"] = vllmRecipe("export X=1\n")
	delete(headFiles, dir+"old_name.sh")
	headFiles[dir+"new_name.sh"] = vllmRecipe("")
	headFiles[dir+"added_sglang.sh"] = "python3 -m sglang.launch_server --tp 4\n"
	headFiles[dir+"fresh_broken_vllm.sh"] = "vllm serve \"$MODEL\n"

	base := newCountingTree(baseFiles())
	head := newCountingTree(headFiles)
	cache := checks.NewParseCache(0)
	newChange := func() *checks.Change {
		return &checks.Change{
			Base: base, Head: head, Cache: cache,
			Files: []*checks.FileChange{
				{Path: dir + "target_b300.sh", OldPath: dir + "target_b300.sh", Status: checks.Modified},
				{Path: dir + "new_name.sh", OldPath: dir + "old_name.sh", Status: checks.Renamed},
				{Path: dir + "added_sglang.sh", Status: checks.Added},
				{Path: dir + "fresh_broken_vllm.sh", Status: checks.Added},
			},
		}
	}
	ch := newChange()

	sib := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, dir+n)
		}
		return out
	}
	for _, tc := range []struct {
		path string
		want []string
	}{
		{dir + "target_b300.sh", sib("a_b300.sh", "b_b200.sh", "old_name.sh", "same_as_b_but_renamed.sh")},
		// The renamed file is not its own sibling.
		{dir + "new_name.sh", sib("a_b300.sh", "b_b200.sh", "same_as_b_but_renamed.sh", "target_b300.sh")},
		// A new SGLang recipe groups with the SGLang recipes.
		{dir + "added_sglang.sh", sib("c_h200_sglang.sh")},
		// A new file that does not parse is grouped by its name.
		{dir + "fresh_broken_vllm.sh", sib("a_b300.sh", "b_b200.sh", "old_name.sh", "same_as_b_but_renamed.sh", "target_b300.sh")},
		{"benchmarks/single_node/top.sh", nil},
		{"benchmarks/nowhere/x.sh", nil},
	} {
		got, err := Siblings(ctx, ch, tc.path)
		if err != nil {
			t.Fatalf("Siblings(%s): %v", tc.path, err)
		}
		if diff := cmp.Diff(tc.want, siblingPaths(got)); diff != "" {
			t.Errorf("Siblings(%s) (-want +got):\n%s", tc.path, diff)
		}
	}
	sibs, _ := Siblings(ctx, ch, dir+"target_b300.sh")
	if len(sibs[0].Facts.Exports("VLLM_USE_SIMPLE_KV_OFFLOAD")) != 1 {
		t.Error("sibling facts are not a_b300.sh's")
	}

	// Within a review, and across reviews through the cache, each file is
	// read once.
	reads := base.total() + head.total()
	if _, err := Siblings(ctx, ch, dir+"target_b300.sh"); err != nil {
		t.Fatal(err)
	}
	ch2 := newChange()
	if _, err := Siblings(ctx, ch2, dir+"target_b300.sh"); err != nil {
		t.Fatal(err)
	}
	if _, err := BaseFacts(ctx, ch2, dir+"a_b300.sh"); err != nil {
		t.Fatal(err)
	}
	if got := base.total() + head.total(); got != reads {
		t.Errorf("reads went from %d to %d: parsing is not cached", reads, got)
	}
	for p, n := range base.reads {
		if n != 1 {
			t.Errorf("base %s read %d times", p, n)
		}
	}
	if base.reads[dir+"README.md"] != 0 || base.reads[dir+"deprecated/d_h100.sh"] != 0 {
		t.Error("non-siblings were read")
	}
}

func TestHeadAndBaseFacts(t *testing.T) {
	ctx := context.Background()
	headFiles := baseFiles()
	delete(headFiles, dir+"old_name.sh")
	headFiles[dir+"new_name.sh"] = vllmRecipe("export RENAMED=1\n")
	headFiles[dir+"added_vllm.sh"] = vllmRecipe("")
	headFiles[dir+"b_b200.sh"] = "if true; then\n"
	ch := &checks.Change{
		Base: checks.NewMemTree(baseFiles()), Head: checks.NewMemTree(headFiles),
		Files: []*checks.FileChange{
			{Path: dir + "new_name.sh", OldPath: dir + "old_name.sh", Status: checks.Renamed},
			{Path: dir + "added_vllm.sh", Status: checks.Added},
			{Path: dir + "b_b200.sh", OldPath: dir + "b_b200.sh", Status: checks.Modified},
		},
	}
	if f, err := BaseFacts(ctx, ch, dir+"added_vllm.sh"); f != nil || err != nil {
		t.Errorf("BaseFacts(added) = %v, %v", f, err)
	}
	if f, err := HeadFacts(ctx, ch, dir+"added_vllm.sh"); f == nil || err != nil || f.Engine != script.VLLM {
		t.Errorf("HeadFacts(added) = %v, %v", f, err)
	}
	f, err := BaseFacts(ctx, ch, dir+"new_name.sh")
	if err != nil || f == nil || f.Path != dir+"old_name.sh" {
		t.Errorf("BaseFacts(renamed) = %+v, %v", f, err)
	}
	if f, err := HeadFacts(ctx, ch, dir+"old_name.sh"); f != nil || err != nil {
		t.Errorf("HeadFacts(absent) = %v, %v", f, err)
	}
	_, err = HeadFacts(ctx, ch, dir+"b_b200.sh")
	if !script.IsParseError(err) {
		t.Errorf("HeadFacts(broken) err = %v", err)
	}
	// The broken head still groups by its base version's engine.
	sibs, err := Siblings(ctx, ch, dir+"b_b200.sh")
	if err != nil || len(sibs) == 0 {
		t.Errorf("Siblings(broken head) = %v, %v", siblingPaths(sibs), err)
	}
}

func TestSiblingsHonorsConfig(t *testing.T) {
	ctx := context.Background()
	files := baseFiles()
	ch := &checks.Change{
		Base: checks.NewMemTree(files), Head: checks.NewMemTree(files),
		Config: &checks.Config{Paths: checks.Paths{Recipes: []string{"benchmarks/**/*_b300.sh"}}},
	}
	got, err := Siblings(ctx, ch, dir+"target_b300.sh")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{dir + "a_b300.sh"}, siblingPaths(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
