package all

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

const (
	realInferenceX = "../../../shared/inferencex/"
	smallTree      = "../../testdata/trees/inferencex/"
	benchPR        = 4242
)

// benchFile returns the real InferenceX file at rel, or the test tree's
// file of the same name grown to size bytes by grow when the real one is
// absent.
func benchFile(b *testing.B, rel string, size int, grow func(src string, copy int) string) (string, bool) {
	if src, err := os.ReadFile(realInferenceX + rel); err == nil {
		return string(src), true
	}
	small, err := os.ReadFile(smallTree + rel)
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		sb.WriteString(grow(string(small), i))
	}
	return sb.String(), false
}

// renameKeys gives every top-level key of a master config a suffix, so
// copies of one file do not repeat keys.
func renameKeys(src string, copy int) string {
	lines := strings.SplitAfter(src, "\n")
	for i, l := range lines {
		if l != "" && l[0] != ' ' && l[0] != '#' && strings.HasSuffix(l, ":\n") {
			lines[i] = strings.TrimSuffix(l, ":\n") + fmt.Sprintf("-g%d:\n", copy)
		}
	}
	return strings.Join(lines, "")
}

func sameText(src string, _ int) string { return src + "\n" }

// fullReviewChange builds a PR against the real-size NVIDIA master config
// and perf changelog: it changes the image of one config key and appends
// the changelog entry that names the key, as a typical image-bump PR does.
func fullReviewChange(b *testing.B) (base, head checks.Tree, files []*checks.FileChange) {
	const nv, cl = "configs/nvidia-master.yaml", "perf-changelog.yaml"
	cfg, real := benchFile(b, nv, 323670, renameKeys)
	amd, _ := benchFile(b, "configs/amd-master.yaml", 52870, renameKeys)
	log, _ := benchFile(b, cl, 395528, sameText)
	md, _ := benchFile(b, "MODELS.md", 0, sameText)
	b.Logf("master config %d bytes, changelog %d bytes (real files: %v)", len(cfg), len(log), real)

	// The last key with an image line (the middle of a real file would do
	// as well; the cost does not depend on where the key sits).
	lines := strings.SplitAfter(cfg, "\n")
	key, at := "", -1
	for i, l := range lines {
		if l != "" && l[0] != ' ' && l[0] != '#' && strings.HasSuffix(l, ":\n") {
			key = strings.TrimSuffix(l, ":\n")
		}
		if strings.HasPrefix(l, "  image: ") && key != "" {
			at = i
		}
	}
	if at < 0 {
		b.Fatal("no image line in the master config")
	}
	for i := at; i >= 0; i-- {
		if l := lines[i]; l != "" && l[0] != ' ' && l[0] != '#' && strings.HasSuffix(l, ":\n") {
			key = strings.TrimSuffix(l, ":\n")
			break
		}
	}
	lines[at] = strings.TrimSuffix(lines[at], "\n") + "-bench\n"
	headCfg := strings.Join(lines, "")
	if !strings.HasSuffix(log, "\n") {
		log += "\n"
	}
	// One empty line separates the entry from the one above, unless the
	// base already ends with it (the merge tooling rejects a second).
	sep := "\n"
	if strings.HasSuffix(log, "\n\n") {
		sep = ""
	}
	headLog := log + sep + fmt.Sprintf("- config-keys:\n    - %s\n  description:\n    - \"Bump the image to the -bench build\"\n"+
		"  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/%d\n", key, benchPR)

	baseFiles := map[string]string{nv: cfg, "configs/amd-master.yaml": amd, cl: log, "MODELS.md": md}
	headFiles := map[string]string{nv: headCfg, "configs/amd-master.yaml": amd, cl: headLog, "MODELS.md": md}
	base, head = checks.NewMemTree(baseFiles), checks.NewMemTree(headFiles)
	files, err := trees.Diff(context.Background(), base, head)
	if err != nil {
		b.Fatal(err)
	}
	if len(files) != 2 {
		b.Fatalf("diff touches %d files, want 2", len(files))
	}
	return base, head, files
}

// BenchmarkFullReview reviews, with every rule, a PR that changes one key
// of the real-size NVIDIA master config (~320 KB) and appends one entry to
// the real-size perf changelog (~400 KB). cold starts from an empty parse
// cache each time (a first review); warm shares one cache (a re-review
// after a comment or a re-run).
func BenchmarkFullReview(b *testing.B) {
	base, head, files := fullReviewChange(b)
	reg, err := Registry()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	run := func(cache *checks.ParseCache) *checks.Result {
		ch := &checks.Change{Base: base, Head: head, Files: files, Cache: cache,
			PR:   checks.PRInfo{Number: benchPR, Owner: "SemiAnalysisAI", Repo: "InferenceX"},
			Date: time.Date(2026, 8, 21, 0, 0, 0, 0, time.UTC)}
		res, err := checks.Review(ctx, reg, ch)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Errors) > 0 {
			b.Fatal(res.Errors)
		}
		return res
	}
	// The entry names the changed key, so the changelog rules have
	// nothing to say; a finding here means the benchmark measures a
	// different review than it claims to.
	for _, f := range run(nil).Findings {
		if strings.HasPrefix(f.Rule, "CL") {
			b.Fatalf("unexpected finding %s %s:%d: %s", f.Rule, f.Path, f.Line, f.Body)
		}
	}
	benchColdWarm(b, run)
}
