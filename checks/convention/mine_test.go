package convention

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

func TestEvaluateFamilies(t *testing.T) {
	files := map[string]string{
		// One family, three copies: one that follows, two that do not
		// makes the family a third of a follower.
		agentic("dsv4_fp4_b200_sglang"): sglangRecipe(nil, specFlags...),
		agentic("dsv4_fp4_b300_sglang"): sglangRecipe(nil, "--speculative-algorithm EAGLE"),
		agentic("dsv4_fp4_h200_sglang"): sglangRecipe(nil, "--speculative-algorithm EAGLE"),
		// Another vendor is another family.
		agentic("dsv4_fp4_mi355x_sglang"): sglangRecipe(nil, specFlags...),
		agentic("kimik3_fp4_b200_sglang"): sglangRecipe(nil, "--page-size 32"),
		// Not evidence: deprecated, or another engine.
		agentic("deprecated/glm5_fp8_b200_sglang"): sglangRecipe(nil, specFlags...),
		agentic("glm5_fp8_b200_vllm"):              vllmRecipe(nil, "--max-num-seqs 8"),
	}
	c := corpusOf(t, files, script.SGLang)
	if len(c.profiles) != 5 {
		t.Fatalf("%d profiles, want 5 (deprecated/ and vLLM left out)", len(c.profiles))
	}
	st := evaluate(cand{t: tFlagPair, slot: "--speculative-algorithm", y: "--speculative-num-steps"}, c.profiles)
	if st.families != 2 || count(st.follow) != "1.3" || st.others != 1 || st.othersFollow != 0 {
		t.Errorf("families %d follow %.2f others %d/%.2f", st.families, st.follow, st.others, st.othersFollow)
	}
	if len(st.followers) != 2 || len(st.exceptions) != 2 {
		t.Errorf("followers %+v exceptions %+v", st.followers, st.exceptions)
	}
}

func TestEvidenceFor(t *testing.T) {
	files := specBase()
	c := corpusOf(t, files, script.SGLang)
	head := &profile{path: agentic("kimik3_fp4_b200_sglang"), changed: true}
	added := &profile{path: newSGLang, changed: true}
	ev := evidenceFor(newShared(c, []*profile{head, added}, map[string]bool{agentic("kimik3_fp4_b200_sglang"): true}), newSGLang)
	got := map[string]bool{}
	ev.each(func(p *profile) {
		if got[p.path] {
			t.Errorf("%s twice", p.path)
		}
		got[p.path] = true
		if p.path == agentic("kimik3_fp4_b200_sglang") && !p.changed {
			t.Error("the changed sibling counts at its base version")
		}
	})
	if got[newSGLang] || len(got) != len(files) {
		t.Errorf("evidence %v: the file under review is left out, every other recipe is in", got)
	}
}

func TestCorpusCachedAcrossReviews(t *testing.T) {
	tr := memTree(specBase())
	cache := checks.NewParseCache(0)
	load := func() *corpus {
		ch := &checks.Change{Base: tr, Head: tr, Cache: cache}
		c, err := loadCorpus(context.Background(), ch, script.SGLang)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if a, b := load(), load(); a != b {
		t.Error("a second review of the same base tree mines again")
	}
}

func TestConventionsOf(t *testing.T) {
	c := corpusOf(t, specBase(), script.SGLang)
	convs := conventionsOf(beliefsOf(c, map[string]bool{}))
	if len(convs) != 1 {
		t.Fatalf("%d conventions, want the one set: %+v", len(convs), convs)
	}
	cv := convs[0]
	if strings.Join(cv.Together, " ") != "--speculative-algorithm --speculative-eagle-topk --speculative-num-draft-tokens --speculative-num-steps" ||
		len(cv.Beliefs) != 12 {
		t.Errorf("set %v with %d beliefs", cv.Together, len(cv.Beliefs))
	}
	if !strings.HasPrefix(cv.Statement, "`--speculative-algorithm`, `--speculative-eagle-topk`, `--speculative-num-draft-tokens` and `--speculative-num-steps` are passed together") {
		t.Errorf("statement %q", cv.Statement)
	}
	if !strings.Contains(cv.Evidence, "Model families that pass") || strings.Contains(cv.Evidence, "contrast") {
		t.Errorf("evidence %q", cv.Evidence)
	}
}

func TestSubstitute(t *testing.T) {
	// The siblings size the host pool with --hicache-size; a recipe that
	// sizes it with --hicache-ratio is doing the same another way.
	hicache := func(sizing string) []string {
		return []string{"--enable-hierarchical-cache", sizing, "--hicache-write-policy write_through"}
	}
	base := map[string]string{
		agentic("qwen3.5_fp8_b200_sglang"):   sglangRecipe(nil, hicache("--hicache-size 64")...),
		agentic("glm5.2_fp4_b300_sglang"):    sglangRecipe(nil, hicache("--hicache-size 96")...),
		agentic("dsv4_fp4_mi355x_sglang"):    sglangRecipe(nil, hicache("--hicache-size 128")...),
		agentic("kimik3_fp4_b200_sglang"):    sglangRecipe(nil, "--page-size 32"),
		agentic("minimaxm3_fp4_b300_sglang"): sglangRecipe(nil, "--page-size 32"),
	}
	for _, tc := range []struct {
		sizing string
		want   int
	}{{"--hicache-ratio 2", 0}, {"--page-size 64", 1}} {
		got := cv001Findings(review(t, base, with(base, newSGLang, sglangRecipe(nil, hicache(tc.sizing)...))))
		if len(got) != tc.want {
			t.Errorf("%s: %d findings, want %d: %+v", tc.sizing, len(got), tc.want, got)
		}
	}
}

// Judging each changed recipe on the shared evidence less itself gives
// what evaluating the others afresh gives: the same counts and witnesses,
// and the same rates up to rounding.
func TestSharedEvidenceLeavesTheFileOut(t *testing.T) {
	files := specBase()
	c := corpusOf(t, files, script.SGLang)
	// The PR's heads: copies of the corpus recipes under new names, so
	// that they share its candidates.
	var heads []*profile
	for i, p := range c.profiles {
		h := *p
		h.path, h.changed = fmt.Sprintf("%s.new%d", p.path, i), true
		heads = append(heads, &h)
	}
	s := newShared(c, heads, map[string]bool{c.profiles[0].path: true})
	cands := candidatesOf(s.profiles)
	if len(cands) == 0 {
		t.Fatal("no candidates")
	}
	for _, self := range append(heads, nil) {
		path := ""
		if self != nil {
			path = self.path
		}
		ev := evidenceFor(s, path)
		var others []*profile
		ev.each(func(p *profile) { others = append(others, p) })
		if self != nil && len(others) != len(s.profiles)-1 {
			t.Fatalf("%s: %d of %d profiles", path, len(others), len(s.profiles))
		}
		for _, cd := range cands {
			got, want := ev.stat(cd), evaluate(cd, others)
			gf, ge := got.witnesses()
			if got.families != want.families || got.others != want.others ||
				math.Abs(got.follow-want.follow) > 1e-9 || math.Abs(got.othersFollow-want.othersFollow) > 1e-9 ||
				math.Abs(got.lower-want.lower) > 1e-9 || math.Abs(got.lift-want.lift) > 1e-9 ||
				!slices.Equal(gf, want.followers) || !slices.Equal(ge, want.exceptions) {
				t.Errorf("%s, %+v: shared %+v, afresh %+v", path, cd, got, want)
			}
			if got, want := ev.ys(c.index(), xkey{cd.t, cd.slot, cd.val}), indexCands(candidatesOf(others))[xkey{cd.t, cd.slot, cd.val}]; !slices.Equal(got, want) {
				t.Errorf("%s, %+v: Ys %v, afresh %v", path, cd, got, want)
			}
		}
	}
}
