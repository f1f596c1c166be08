package recipe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitGoldenName(t *testing.T) {
	tests := []struct {
		stem, prefix, method string
		quals                []string
	}{
		{"dsv4_mtp", "dsv4", "mtp", nil},
		{"glm5.2_mtp", "glm5.2", "mtp", nil},
		{"kimik3_dspark", "kimik3", "dspark", nil},
		{"minimaxm3_eagle3_gqa", "minimaxm3", "eagle3", []string{"gqa"}},
		{"dsv4-pro-0813-dspark", "dsv4-pro-0813", "dspark", nil},
		{"kimik3_dspark_probabilistic_sample_method_block_rejection_sample_method", "kimik3", "dspark",
			[]string{"probabilistic", "sample", "method", "block", "rejection", "sample", "method"}},
		{"mtp_only", "mtp_only", "", nil}, // the first word is never the method
		{"weird", "weird", "", nil},
	}
	for _, tc := range tests {
		p, m, q := splitGoldenName(tc.stem)
		if p != tc.prefix || m != tc.method || !cmp.Equal(q, tc.quals) {
			t.Errorf("splitGoldenName(%q) = %q %q %q, want %q %q %q", tc.stem, p, m, q, tc.prefix, tc.method, tc.quals)
		}
	}
}

const goldenDoc = `# comment
# key = num_speculative_tokens
deepseek-v4-pro:
  thinking_on:
    1: 1.76
    3: 2.62
  thinking_off:
    1: 1.88
    3: 2.93
`

func TestParseGoldenAL(t *testing.T) {
	g, err := ParseGoldenAL("golden_al_distribution/dsv4_mtp.yaml", []byte(goldenDoc))
	if err != nil {
		t.Fatal(err)
	}
	if g.Prefix != "dsv4" || g.Method != "mtp" || len(g.Models) != 1 || g.Models[0].Name != "deepseek-v4-pro" || g.Models[0].Line != 3 {
		t.Fatalf("parsed %+v", g)
	}
	curves := g.Models[0].Curves
	if len(curves) != 2 || curves[0].Mode != "thinking_on" || curves[1].Mode != "thinking_off" {
		t.Fatalf("curves %+v", curves)
	}
	pt, ok := curves[0].At(3)
	if !ok || pt.AL != 2.62 || pt.Text != "2.62" || pt.Line != 6 {
		t.Errorf("thinking_on[3] = %+v, %v", pt, ok)
	}
	pt, ok = curves[1].At(3)
	if !ok || pt.AL != 2.93 || pt.Line != 9 {
		t.Errorf("thinking_off[3] = %+v, %v", pt, ok)
	}
	if _, ok := curves[0].At(2); ok {
		t.Error("draft length 2 is not in the curve")
	}
	for _, c := range []struct {
		mode    string
		on, set bool
	}{{"thinking_on", true, true}, {"thinking_off", false, true}, {"reasoning-on", true, true}, {"greedy", false, false}} {
		on, ok := GoldenCurve{Mode: c.mode}.Thinking()
		if on != c.on || ok != c.set {
			t.Errorf("Thinking(%s) = %v %v", c.mode, on, ok)
		}
	}

	bad := map[string]string{
		"not yaml":        "a: [",
		"not a mapping":   "- 1\n- 2\n",
		"no curve":        "model:\n  note: hi\n",
		"duplicate point": "m:\n  thinking_on:\n    1: 1.5\n    1: 1.6\n",
		"non-numeric":     "m:\n  thinking_on:\n    1: fast\n",
		"empty":           "",
	}
	for name, doc := range bad {
		if _, err := ParseGoldenAL("x.yaml", []byte(doc)); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// Every golden file of the fixture tree parses, and the index in
// notes/recipe-tree.md holds: point N of thinking_on sits on line 10+N.
func TestParseTreeGoldenFiles(t *testing.T) {
	files, err := filepath.Glob("../../testdata/trees/inferencex/golden_al_distribution/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in the fixture tree: %v", err)
	}
	eachGoldenFile(t, files, func(f string, g *GoldenAL) {
		on := g.Models[0].Curves[0]
		for n := 1; n <= 8; n++ {
			pt, ok := on.At(n)
			if !ok || pt.Line != 10+n {
				t.Errorf("%s: thinking_on[%d] = %+v, %v", f, n, pt, ok)
			}
		}
	})
}

// eachGoldenFile parses each file as the golden curve file of its base
// name and calls check with those that parse; the others fail the test.
func eachGoldenFile(t *testing.T, files []string, check func(f string, g *GoldenAL)) {
	t.Helper()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ParseGoldenAL("golden_al_distribution/"+filepath.Base(f), b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		check(f, g)
	}
}

// The real repository's curves (read-only reference data) parse too.
func TestParseRealGoldenFiles(t *testing.T) {
	dir := "../../../shared/inferencex/golden_al_distribution"
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) == 0 {
		t.Skip("real golden files not available")
	}
	eachGoldenFile(t, files, func(f string, g *GoldenAL) {
		if g.Method == "" || g.Prefix == "" {
			t.Errorf("%s: name not split: %q %q", f, g.Prefix, g.Method)
		}
		hasOn := false
		for _, c := range g.Models[0].Curves {
			if on, ok := c.Thinking(); ok && on {
				hasOn = true
				if len(c.Points) != 8 {
					t.Errorf("%s: %d points", f, len(c.Points))
				}
			}
		}
		if !hasOn {
			t.Errorf("%s: no thinking_on curve", f)
		}
	})
}

func TestSelectGolden(t *testing.T) {
	mk := func(stem string) *GoldenAL {
		g := &GoldenAL{Path: "golden_al_distribution/" + stem + ".yaml", Stem: stem}
		g.Prefix, g.Method, g.Qualifiers = splitGoldenName(stem)
		return g
	}
	files := []*GoldenAL{
		mk("dsv4_mtp"), mk("dsv4-pro-0813-dspark"), mk("glm5.2_mtp"), mk("kimik3_dspark"),
		mk("kimik3_dspark_probabilistic_sample_method_block_rejection_sample_method"),
		mk("minimaxm3_eagle3"), mk("minimaxm3_eagle3_gqa"),
	}
	tests := []struct {
		name, prefix, method string
		words                []string
		want                 []string
	}{
		{"vllm mtp", "dsv4", "mtp", nil, []string{"dsv4_mtp"}},
		{"sglang EAGLE runs the MTP head", "dsv4", "EAGLE", nil, []string{"dsv4_mtp"}},
		{"trt MTP", "dsv4", "MTP", nil, []string{"dsv4_mtp"}},
		{"no dspark curve for dsv4", "dsv4", "dspark", nil, nil},
		{"separators ignored", "dsv4pro0813", "dspark", nil, []string{"dsv4-pro-0813-dspark"}},
		{"glm dots", "glm5.2", "", nil, []string{"glm5.2_mtp"}},
		{"synthetic kimi picks the plain curve", "kimik3", "dspark",
			[]string{"dspark", "moonshotai/Kimi-K3-DSpark-Draft", "synthetic"}, []string{"kimik3_dspark"}},
		{"probabilistic + block picks the variant", "kimik3", "dspark",
			[]string{"probabilistic", "block"}, []string{"kimik3_dspark_probabilistic_sample_method_block_rejection_sample_method"}},
		{"half-named variant is ambiguous", "kimik3", "dspark",
			[]string{"probabilistic", "synthetic"}, []string{"kimik3_dspark", "kimik3_dspark_probabilistic_sample_method_block_rejection_sample_method"}},
		{"gqa draft picks the gqa curve", "minimaxm3", "eagle3", []string{"nvidia/MiniMax-M3-EAGLE3-GQA"}, []string{"minimaxm3_eagle3_gqa"}},
		{"plain eagle3", "minimaxm3", "eagle3", []string{"nvidia/MiniMax-M3-EAGLE3"}, []string{"minimaxm3_eagle3"}},
		{"unknown model", "qwen3.5", "mtp", nil, nil},
	}
	for _, tc := range tests {
		var got []string
		for _, g := range SelectGolden(files, tc.prefix, tc.method, tc.words) {
			got = append(got, g.Stem)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestGoldenALFilesFromBase(t *testing.T) {
	base := map[string]string{
		"golden_al_distribution/dsv4_mtp.yaml":  goldenDoc,
		"golden_al_distribution/broken.yaml":    "a: [",
		"golden_al_distribution/README.md":      "# curves\n",
		"golden_al_distribution/kimik3_x.yml":   "kimi-k3:\n  thinking_on:\n    2: 2.39\n",
		agenticDir + "kimik3_fp4_b300_vllm.sh":  "#!/usr/bin/env bash\n",
		"golden_al_distribution/sub/extra.yaml": goldenDoc,
	}
	ch := testChange(t, base, base)
	files, err := GoldenALFiles(t.Context(), ch)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range files {
		got = append(got, g.Path)
	}
	want := []string{"golden_al_distribution/dsv4_mtp.yaml", "golden_al_distribution/kimik3_x.yml"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GoldenALFiles (-want +got):\n%s", diff)
	}
	if !strings.HasSuffix(files[1].Path, ".yml") || files[1].Models[0].Curves[0].Points[0].AL != 2.39 {
		t.Errorf("kimik3_x.yml parsed as %+v", files[1])
	}
}
