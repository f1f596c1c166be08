package all

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// hostileFiles are what a PR can add to be expensive or impossible to
// review: every kind of file the reviewer bounds.
func hostileFiles(changelog string) map[string]string {
	dir := "benchmarks/single_node/agentic/"
	return map[string]string{
		// 150,000 nested parentheses: a fatal stack overflow before.
		dir + "zz_deep_vllm.sh": "#!/usr/bin/env bash\n" + strings.Repeat("(", 150_000) + "true" + strings.Repeat(")", 150_000) + "\n",
		// Past the budget's per-file bound: never read.
		dir + "zz_huge_vllm.sh": "#!/usr/bin/env bash\n" + strings.Repeat("echo padding padding padding\n", (9<<20)/29),
		// An executable where a recipe belongs.
		dir + "zz_binary_vllm.sh": "\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00", 64),
		// 9 MiB appended to the changelog.
		"perf-changelog.yaml": changelog + "\n- config-keys:\n    - x\n  description:\n    - \"" + strings.Repeat("y", 9<<20) + "\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n",
	}
}

// A PR that is hostile in every way the issue lists still gets its review:
// the other files' findings, a 🔴 for each script the reviewer could not
// read, and the rest named as not reviewed, with no rule error and no
// crash.
func TestHostilePRIsReviewed(t *testing.T) {
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, filepath.Join(fixturesDir, "sh003-seed001-lmcache-arm"))
	if err != nil {
		t.Fatal(err)
	}
	changelog, err := fx.Head.ReadFile(ctx, "perf-changelog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	hostile := hostileFiles(string(changelog))
	head := &trees.Overlay{Lower: fx.Head, Upper: checks.NewMemTree(hostile)}
	files := append([]*checks.FileChange(nil), fx.Files...)
	for p := range hostile {
		fc := &checks.FileChange{Path: p, Status: checks.Added, Binary: strings.Contains(p, "binary")}
		if p == "perf-changelog.yaml" {
			// The diff a review gets for the append: its first lines (the
			// whole of it is what the budget refuses to read).
			n := strings.Count(string(changelog), "\n")
			fc = &checks.FileChange{Path: p, OldPath: p, Status: checks.Modified, Hunks: []checks.Hunk{{
				OldStart: n, OldLines: 1, NewStart: n, NewLines: 3, Lines: []checks.DiffLine{
					{Op: checks.OpContext, Old: n, New: n}, {Op: checks.OpAdd, Text: "", New: n + 1},
					{Op: checks.OpAdd, Text: "- config-keys:", New: n + 2}}}}}
		}
		files = append(files, fc)
	}
	slices.SortFunc(files, func(a, b *checks.FileChange) int { return strings.Compare(a.Path, b.Path) })
	ch := &checks.Change{Base: fx.Base, Head: head, Files: files, PR: fx.PR, Date: fixtureDate, Cache: checks.NewParseCache(0)}
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Review(ctx, reg, ch)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors {
		t.Errorf("rule error: %v", e)
	}
	got := map[string]string{}
	for _, f := range res.Findings {
		got[fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line)] = f.Title
	}
	dir := "benchmarks/single_node/agentic/"
	for _, want := range []string{
		"SH001 " + dir + "dsv4_fp4_b300_vllm.sh:2", "SH003 " + dir + "dsv4_fp4_b300_vllm.sh:98", // the fixture's own
		"SH014 " + dir + "zz_deep_vllm.sh:2",
		"SH014 " + dir + "zz_huge_vllm.sh:1",
		"SH014 " + dir + "zz_binary_vllm.sh:0",
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("missing %s; findings: %v", want, got)
		}
	}
	if title := got["SH014 "+dir+"zz_huge_vllm.sh:1"]; title != "recipe too large to review" {
		t.Errorf("huge recipe: %q", title)
	}
	nr := map[string]string{}
	for _, n := range res.NotReviewed {
		nr[n.Path] = n.Reason
	}
	for p, want := range map[string]string{
		"perf-changelog.yaml":   "too large to review (9.0 MiB, over the 8 MiB a review reads of one file)",
		dir + "zz_huge_vllm.sh": "too large to review (9.0 MiB, over the 8 MiB a review reads of one file)",
	} {
		if nr[p] != want {
			t.Errorf("NotReviewed[%s] = %q, want %q (all: %v)", p, nr[p], want, res.NotReviewed)
		}
	}
}

// A PR adding more siblings than a script is compared with says so, and
// is reviewed.
func TestManySiblingsAreNoted(t *testing.T) {
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	bt, ht, files := siblingsPR(t, 500) // 300 vLLM recipes among them
	ch := &checks.Change{Base: bt, Head: ht, Files: files, PR: checks.PRInfo{Number: 1}, Date: fixtureDate, Cache: checks.NewParseCache(0)}
	res, err := checks.Review(context.Background(), reg, ch)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors {
		t.Errorf("rule error: %v", e)
	}
	want := checks.NotReviewed{Path: recipeBenchDir,
		Reason: "this PR adds or changes more than 256 scripts here: each was compared with the base tree's scripts and 256 of the PR's, not with all of them"}
	if !slices.Contains(res.NotReviewed, want) {
		t.Errorf("NotReviewed = %v, want %v", res.NotReviewed, want)
	}
}

// Binary bytes where the master config, the changelog or a recipe was are
// each a 🔴 of their file's rule (the parse errors MC006 and CL005 report,
// SH014's binary script), never a silent skip.
func TestBinaryWhereAFileWas(t *testing.T) {
	ctx := context.Background()
	fx, err := trees.LoadFixture(ctx, filepath.Join(fixturesDir, "sh003-seed001-lmcache-arm"))
	if err != nil {
		t.Fatal(err)
	}
	bin := "\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00", 64)
	recipe := "benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh"
	head := &trees.Overlay{Lower: fx.Head, Upper: checks.NewMemTree(map[string]string{
		"perf-changelog.yaml": bin, "configs/nvidia-master.yaml": bin, recipe: bin})}
	files, err := trees.Diff(ctx, fx.Base, head)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Review(ctx, reg, &checks.Change{Base: fx.Base, Head: head, Files: files, PR: fx.PR, Date: fixtureDate})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Errors {
		t.Errorf("rule error: %v", e)
	}
	blocking := map[string]bool{}
	for _, f := range res.Findings {
		if f.Severity == checks.Blocking {
			blocking[f.Rule+" "+f.Path] = true
		}
	}
	for _, want := range []string{"MC006 configs/nvidia-master.yaml", "CL005 perf-changelog.yaml", "SH014 " + recipe} {
		if !blocking[want] {
			t.Errorf("no 🔴 %s; blocking findings: %v", want, blocking)
		}
	}
}
