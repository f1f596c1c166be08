package convention

import (
	"context"
	"math"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

const (
	xAlpha = "json:kv_connector=AlphaConnector"
	yAlpha = "env:ALPHA_MODE=1"
)

// alphaGroup builds n siblings with an alpha arm; the first `without`
// of them build the alpha config without the export.
func alphaGroup(n, without int) map[string]any {
	files := map[string]any{}
	for i := 0; i < n; i++ {
		files[agentic(string(rune('a'+i))+"_fp4_b200")] = recipeSpec{
			arms:  []armSpec{alphaArm(i >= without), betaArm()},
			flags: toolFlags,
		}
	}
	return files
}

func TestMineSupportConfidence(t *testing.T) {
	tests := []struct {
		name          string
		n, without    int
		th            Thresholds
		want          bool
		support, fol  int
		exceptions    int
		wantBlockable bool
	}{
		{name: "unanimous 3", n: 3, want: true, support: 3, fol: 3},
		{name: "below support", n: 2, want: false},
		{name: "support lowered", n: 2, th: Thresholds{MinSupport: 2}, want: true, support: 2, fol: 2},
		{name: "9 of 10 meets 90%", n: 10, without: 1, want: true, support: 10, fol: 9, exceptions: 1},
		{name: "8 of 10 misses 90%", n: 10, without: 2, want: false},
		{name: "8 of 10 meets 80%", n: 10, without: 2, th: Thresholds{MinConfidence: 0.8}, want: true, support: 10, fol: 8, exceptions: 2},
		{name: "3 of 4 misses", n: 4, without: 1, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ims := mineGroup(t, tree(alphaGroup(tc.n, tc.without)), tc.th)
			im, ok := find(ims, xAlpha, yAlpha)
			if ok != tc.want {
				t.Fatalf("mined %v, want %v (%d implications)", ok, tc.want, len(ims))
			}
			if !ok {
				return
			}
			if im.Support != tc.support || im.Followed != tc.fol {
				t.Errorf("support %d followed %d, want %d %d", im.Support, im.Followed, tc.support, tc.fol)
			}
			if math.Abs(im.Confidence-float64(tc.fol)/float64(tc.support)) > 1e-9 {
				t.Errorf("confidence %v", im.Confidence)
			}
			if len(im.Exceptions) != tc.exceptions || len(im.Followers) != tc.fol {
				t.Errorf("exceptions %v followers %v", im.Exceptions, im.Followers)
			}
			if !im.Local {
				t.Error("export and config share the arm: want a branch-local convention")
			}
			for _, e := range im.Exceptions {
				if e.YLine != 0 || e.XLine == 0 || e.Branch == "" {
					t.Errorf("exception witness %+v", e)
				}
			}
			for _, f := range im.Followers {
				if f.YLine == 0 || f.YLine != f.XLine-1 {
					t.Errorf("follower witness %+v: the export is the line before the config", f)
				}
			}
		})
	}
}

func TestMinePathSensitive(t *testing.T) {
	// The export sits in the beta arm, not in the alpha arm that builds
	// the config: per file both occur, per path they never meet.
	files := map[string]any{}
	for _, n := range []string{"a", "b", "c", "d"} {
		files[agentic(n+"_fp4_b200")] = recipeSpec{
			arms: []armSpec{
				alphaArm(false),
				{name: "beta", lines: []string{"export ALPHA_MODE=1", `OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"BetaConnector","kv_role":"kv_both"}')`}},
			},
			flags: toolFlags,
		}
	}
	ims := mineGroup(t, tree(files), Thresholds{})
	if im, ok := find(ims, xAlpha, yAlpha); ok {
		t.Errorf("an export in another arm does not cover the config: %+v", im)
	}
	if _, ok := find(ims, "json:kv_connector=BetaConnector", yAlpha); !ok {
		t.Error("the beta arm's export should be mined as its convention")
	}

	// A top-level export would cover every arm (judged per file), but it
	// is not written with the config: nothing ties the two together but
	// the file, and a file-level coincidence is not a convention.
	for _, n := range []string{"a", "b", "c"} {
		files[agentic(n+"_fp4_b200")] = recipeSpec{top: []string{"export ALPHA_MODE=1"}, arms: []armSpec{alphaArm(false)}, flags: toolFlags}
	}
	files[agentic("d_fp4_b200")] = recipeSpec{arms: []armSpec{betaArm()}, flags: toolFlags}
	files[agentic("e_fp4_b200")] = recipeSpec{arms: []armSpec{betaArm()}, flags: toolFlags}
	ims = mineGroup(t, tree(files), Thresholds{})
	if im, ok := find(ims, xAlpha, yAlpha); ok {
		t.Errorf("top-level export tied to an arm's config: %+v", im)
	}
}

func TestMineNeighbouringExports(t *testing.T) {
	// Two exports written together at top level, in three of six
	// siblings: a file-level convention.
	files := map[string]any{}
	for i, n := range []string{"a", "b", "c", "d", "e", "f"} {
		r := recipeSpec{flags: toolFlags}
		if i < 3 {
			r.top = []string{"export ACC_LEN=2." + n, "export ACC_METHOD=match"}
		}
		files[agentic(n+"_fp4_b200")] = r
	}
	ims := mineGroup(t, tree(files), Thresholds{})
	im, ok := find(ims, "env:ACC_LEN", "env:ACC_METHOD=match")
	if !ok {
		t.Fatalf("neighbouring exports not mined: %v", ims)
	}
	if im.Local || im.Contrast != 3 || im.Followers[0].YLine != im.Followers[0].XLine+1 {
		t.Errorf("%+v", im)
	}
}

func TestMineSignificance(t *testing.T) {
	// Three of seven siblings pass --served-model-name and all seven but
	// one pass --max-num-seqs: 3 of 3 is what chance gives.
	files := map[string]any{}
	for i, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		flags := append([]string{}, toolFlags...)
		if i < 3 {
			flags = append(flags, "--served-model-name m")
		}
		if i != 6 {
			flags = append(flags, "--max-num-seqs 8")
		}
		files[agentic(n+"_fp4_b200")] = recipeSpec{flags: flags}
	}
	ims := mineGroup(t, tree(files), Thresholds{})
	if im, ok := find(ims, "flag:--served-model-name", "flag:--max-num-seqs"); ok {
		t.Errorf("coincidence mined as a convention: %+v", im)
	}
	// But a pairing with contrast is found.
	for i, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		flags := []string{"--max-num-seqs 8"}
		if i < 4 {
			flags = append(flags, toolFlags...)
		}
		files[agentic(n+"_fp4_b200")] = recipeSpec{flags: flags}
	}
	ims = mineGroup(t, tree(files), Thresholds{})
	im, ok := find(ims, "flag:--tool-call-parser", "flag:--enable-auto-tool-choice")
	if !ok {
		t.Fatalf("tool flags pairing not mined: %v", ims)
	}
	if im.Contrast != 3 || im.Background {
		t.Errorf("contrast %d background %v, want 3 from the group", im.Contrast, im.Background)
	}
}

func TestMineBackgroundContrast(t *testing.T) {
	// Every agentic sibling passes both tool flags and --max-num-seqs.
	// Fixed-seq-len recipes elsewhere pass --max-num-seqs but no tool
	// flags: the tool flags go together, --max-num-seqs is just universal.
	files := map[string]any{}
	for _, n := range []string{"a", "b", "c"} {
		files[agentic(n+"_fp4_b200")] = recipeSpec{flags: append([]string{"--max-num-seqs 8"}, toolFlags...)}
		files["benchmarks/single_node/"+n+"_fp4_b200_vllm.sh"] = recipeSpec{flags: []string{"--max-num-seqs 8"}}
	}
	ims := mineGroup(t, tree(files), Thresholds{})
	im, ok := find(ims, "flag:--tool-call-parser", "flag:--enable-auto-tool-choice")
	if !ok || !im.Background || im.Contrast != 3 {
		t.Errorf("tool flags: %+v %v", im, ok)
	}
	for _, pair := range [][2]string{
		{"flag:--tool-call-parser", "flag:--max-num-seqs"},
		{"flag:--max-num-seqs", "flag:--tool-call-parser"},
	} {
		if im, ok := find(ims, pair[0], pair[1]); ok {
			t.Errorf("%s ⇒ %s mined without evidence: %+v", pair[0], pair[1], im)
		}
	}
	// Without the background there is no evidence at all.
	for _, n := range []string{"a", "b", "c"} {
		delete(files, "benchmarks/single_node/"+n+"_fp4_b200_vllm.sh")
	}
	if ims := mineGroup(t, tree(files), Thresholds{}); len(ims) != 0 {
		t.Errorf("a group where everyone does everything has no evidence: %v", ims)
	}
}

func TestVocabulary(t *testing.T) {
	files := map[string]any{}
	for i, n := range []string{"a", "b", "c", "d"} {
		files[agentic(n+"_fp4_b200")] = recipeSpec{
			top: []string{
				"export SHARED_MODE=1",
				"export ACC_LEN=2." + string(rune('1'+i)),
				"export MODEL_DIR=/models/" + n,
			},
			arms: []armSpec{{name: "alpha", lines: []string{
				`OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"AlphaConnector","kv_role":"kv_both","kv_connector_extra_config":{"model":"org/m-` + n + `","size":` + string(rune('1'+i)) + `,"lazy":true}}')`,
			}}},
			flags: append([]string{"--block-size " + string(rune('1'+i))}, toolFlags...),
		}
	}
	m, err := mined4(tree(files))
	if err != nil {
		t.Fatal(err)
	}
	a := m.members[0].atoms
	for _, want := range []string{
		"env:SHARED_MODE=1", // one shared constant: spelled with it
		"env:ACC_LEN",       // varies per file: name only
		"env:MODEL_DIR",
		"json:kv_connector=AlphaConnector",
		"json:kv_connector_extra_config.lazy=true",
		"json-key:kv_connector_extra_config.model",
		"json-key:kv_connector_extra_config.size",
		"flag:--block-size",
		"set:nounset",
	} {
		if len(a[want]) == 0 {
			t.Errorf("atom %s missing; have %v", want, keys(a))
		}
	}
	for _, bad := range []string{
		"env:SHARED_MODE", "env:ACC_LEN=2.1", "env:MODEL_DIR=/models/a",
		"json:kv_connector_extra_config.model=org/m-a", "json:kv_connector_extra_config.size=1",
		"json-key:kv_connector_extra_config.lazy", "flag:--block-size=1",
		"server:vllm serve", "source:benchmark_lib.sh", "check-env:MODEL",
	} {
		if len(a[bad]) > 0 {
			t.Errorf("atom %s should not be in the vocabulary", bad)
		}
	}
	for _, p := range m.pairs {
		if derived(p.x, p.y) {
			t.Errorf("derived pair mined: %s ⇒ %s", p.x, p.y)
		}
		if p.x == "json:kv_connector=AlphaConnector" && p.y == "flag:--kv-transfer-config" {
			t.Error("a JSON implies the flag it is passed to by construction")
		}
	}
}

func mined4(tr checks.Tree) (*mined, error) {
	ctx := context.Background()
	cfg := &checks.Config{}
	if err := cfg.ResolveLayout(ctx, tr); err != nil {
		return nil, err
	}
	ch := &checks.Change{Base: tr, Head: tr, Config: cfg}
	return loadGroup(ctx, ch, agentic("a_fp4_b200"), "vllm", DefaultThresholds)
}

func keys(a fileAtoms) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	return out
}

// derived reports whether y holds by construction wherever x does: the
// same fact spelled differently, or a JSON key's parent object — the pairs
// the miner skips inline.
func derived(x, y string) bool {
	return subject(x) == subject(y) || parentKey(x, y)
}

func TestDerived(t *testing.T) {
	tests := []struct {
		x, y string
		want bool
	}{
		{"env:A=1", "env:A", true},
		{"json:a.b=1", "json-key:a.b", true},
		{"json:a.b=1", "json-key:a", true},
		{"json-key:a.b.c", "json-key:a.b", true},
		{"json-key:ab", "json-key:a", false},
		{"json:kv_connector=X", "json:kv_role=kv_both", false},
		{"flag:--a", "flag:--b", false},
		{"flag:--a", "client-flag:--a", false},
	}
	for _, tc := range tests {
		if got := derived(tc.x, tc.y); got != tc.want {
			t.Errorf("derived(%s, %s) = %v", tc.x, tc.y, got)
		}
	}
}

func TestHyperTail(t *testing.T) {
	tests := []struct {
		N, K, n, k int
		want       float64
	}{
		{7, 6, 3, 3, 20.0 / 35},  // C(6,3)/C(7,3)
		{7, 3, 3, 3, 1.0 / 35},   // C(3,3)/C(7,3)
		{10, 7, 7, 7, 1.0 / 120}, // C(7,7)/C(10,7)
		{5, 5, 3, 3, 1},
		{5, 2, 3, 0, 1},
	}
	for _, tc := range tests {
		if got := hyperTail(tc.N, tc.K, tc.n, tc.k); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("hyperTail(%d,%d,%d,%d) = %v, want %v", tc.N, tc.K, tc.n, tc.k, got, tc.want)
		}
	}
}

func TestMineGroupsErrors(t *testing.T) {
	tr := tree(alphaGroup(3, 0))
	if _, err := MineGroups(context.Background(), tr, nil, "benchmarks/nope", Thresholds{}); err == nil {
		t.Error("a missing directory should be an error")
	}
	groups, err := MineGroups(context.Background(), tr, nil, "", Thresholds{})
	if err != nil || len(groups) != 1 || groups[0].Group.Dir != agenticDir || groups[0].Group.Size != 3 {
		t.Errorf("groups %+v, %v", groups, err)
	}
}

func TestReduce(t *testing.T) {
	g := Group{Dir: agenticDir, Engine: "vllm"}
	im := func(x, y string) Implication {
		return Implication{Group: g, X: x, Y: y, Support: 3, Followed: 3, Confidence: 1}
	}
	ims := []Implication{
		im("a", "b"), im("b", "a"), // a ⇔ b
		im("a", "c"), im("b", "c"), // {a,b} ⇒ c
		im("c", "d"), im("a", "d"), // {a,b} ⇒ d is implied through c
	}
	got := Reduce(ims)
	if len(got) != 3 {
		t.Fatalf("got %d conventions: %+v", len(got), got)
	}
	if !got[0].Together || len(got[0].X) != 2 {
		t.Errorf("first should be the class a ⇔ b: %+v", got[0])
	}
	for _, c := range got[1:] {
		if c.X[0] == "a" && c.Y[0] == "d" {
			t.Errorf("implied edge kept: %+v", c)
		}
	}
}
