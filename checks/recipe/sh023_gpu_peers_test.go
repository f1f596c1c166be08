package recipe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// sh023Tree reads the SH023 fixture: three B200 SGLang recipes of three
// models that export the two B200 GEMM variables, three B300 ones of two
// models that pass --enable-symm-mem, and the DeepSeek-R1 FP8 B300 recipe
// the PR adds, copied from the B200 one.
func sh023Tree(t *testing.T) (base map[string]string, added string) {
	t.Helper()
	const fixture = "../../testdata/prs/sh023-gpu-carried-pr1050"
	base = map[string]string{}
	for _, name := range []string{"dsr1_fp8_b200.sh", "glm5_fp8_b200.sh", "qwen3.5_fp8_b200.sh",
		"dsr1_fp4_b300.sh", "qwen3.5_fp8_b300.sh", "qwen3.5_fp8_b300_mtp.sh"} {
		b, err := os.ReadFile(filepath.Join(fixture, "base/benchmarks/single_node", name))
		if err != nil {
			t.Fatal(err)
		}
		base[singleDir+name] = string(b)
	}
	b, err := os.ReadFile(filepath.Join(fixture, "head/benchmarks/single_node/dsr1_fp8_b300.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return base, string(b)
}

func TestSH023(t *testing.T) {
	base, added := sh023Tree(t)
	const target = singleDir + "dsr1_fp8_b300.sh"
	const jit, gemm, srv = "SH023 " + target + ":18", "SH023 " + target + ":19", "SH023 " + target + ":23"
	const tail = "    --disable-radix-cache > \"$SERVER_LOG\" 2>&1 &"
	const specFlags = "    --speculative-algorithm EAGLE \\\n    --speculative-num-steps 3 \\\n" + tail
	dsrB200 := singleDir + "dsr1_fp8_b200.sh"
	// change edits one file of base.
	change := func(files map[string]string, p string, pairs ...string) map[string]string {
		return withFile(files, p, edit(t, files[p], pairs...))
	}
	noSource := change(base, dsrB200, "export SGL_ENABLE_JIT_DEEPGEMM=false\n", "")
	twoGPUs := withFile(base, singleDir+"glm5_fp8_h200.sh", strings.ReplaceAll(base[singleDir+"glm5_fp8_b200.sh"], "B200", "H200"))
	peerNames := change(base, singleDir+"dsr1_fp4_b300.sh", "SERVER_LOG=", "# SGL_ENABLE_JIT_DEEPGEMM stays on here.\nSERVER_LOG=")
	twoPeers := withFile(base, singleDir+"qwen3.5_fp8_b300_mtp.sh", "")
	oneModel := withFile(withFile(base, singleDir+"dsr1_fp4_b300.sh", ""), singleDir+"qwen3.5_fp4_b300.sh", base[singleDir+"dsr1_fp4_b300.sh"])
	common := change(change(base, dsrB200, tail, "    --enable-symm-mem \\\n"+tail), singleDir+"glm5_fp8_b200.sh", tail, "    --enable-symm-mem \\\n"+tail)
	noOthers := map[string]string{}
	for p, s := range base {
		if !strings.Contains(p, "b200") {
			noOthers[p] = s
		}
	}
	allSpec := change(change(base, singleDir+"dsr1_fp4_b300.sh", tail, specFlags), singleDir+"qwen3.5_fp8_b300.sh", tail, specFlags)
	// The DeepSeek-R1 family on B200, B300, H200 and MI355X all pass
	// --enable-symm-mem: that is SH022's to report, not this rule's.
	symm := edit(t, base[dsrB200], tail, "    --enable-symm-mem \\\n"+tail)
	family := setFiles(withFile(base, dsrB200, symm),
		singleDir+"dsr1_fp8_h200.sh", symm, singleDir+"dsr1_fp8_mi355x.sh", symm,
		singleDir+"glm5_fp8_h200.sh", base[singleDir+"glm5_fp8_b200.sh"], singleDir+"qwen3.5_fp8_h200.sh", base[singleDir+"qwen3.5_fp8_b200.sh"])
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		phrases    map[string][]string // by location
	}{
		{name: "a recipe copied from B200", base: base, head: withFile(base, target, added), want: []string{jit, gemm, srv},
			phrases: map[string][]string{
				jit: {"`SGL_ENABLE_JIT_DEEPGEMM` (line 18)", "no other SGLang recipe on `b300`", "3 recipes, of `dsr1` and `qwen3.5`",
					"run on `b200` (3 recipes, e.g. benchmarks/single_node/dsr1_fp8_b200.sh:18, the same model's)", "Drop it"},
				srv: {"never passes `--enable-symm-mem`", "3 recipes, of `dsr1` and `qwen3.5`", "dsr1_fp4_b300.sh:", "Add `--enable-symm-mem`"},
			}},
		{name: "an existing recipe the PR edits", base: withFile(base, target, added),
			head: withFile(base, target, edit(t, added, "--mem-fraction-static 0.82", "--mem-fraction-static 0.85"))},
		{name: "no copy source on the other GPU", base: noSource, head: withFile(noSource, target, added), want: []string{gemm, srv}},
		{name: "set on two other GPUs: not one GPU's tuning", base: twoGPUs, head: withFile(twoGPUs, target, added), want: []string{srv}},
		{name: "a peer names the variable", base: peerNames, head: withFile(peerNames, target, added), want: []string{gemm, srv}},
		{name: "the recipe says why", base: base,
			head: withFile(base, target, edit(t, added, "export SGL_ENABLE_JIT_DEEPGEMM", "# SGL_ENABLE_JIT_DEEPGEMM off: slower on B300 too.\nexport SGL_ENABLE_JIT_DEEPGEMM")),
			want: []string{"SH023 " + target + ":20", "SH023 " + target + ":24"}},
		{name: "two peers are too few", base: twoPeers, head: withFile(twoPeers, target, added)},
		{name: "peers of one model are that model's", base: oneModel, head: withFile(oneModel, target, added)},
		{name: "an option most other GPUs pass too is not the GPU's", base: common, head: withFile(common, target, added), want: []string{jit, gemm}},
		{name: "no other GPU to compare with", base: noOthers, head: withFile(noOthers, target, added)},
		{name: "peers that all decode speculatively", base: allSpec, head: withFile(allSpec, target, added), want: []string{jit, gemm}},
		{name: "an option the model family agrees on is SH022's", base: family, head: withFile(family, target, added)},
		{name: "an array it cannot see may hold the option", base: base,
			head: withFile(base, target, edit(t, added, tail, "    \"${EXTRA_ARGS[@]}\" \\\n"+tail)), want: []string{jit, gemm}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH023, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, tc.phrases[locs([]checks.Finding{f})[0]]...)
			}
		})
	}
}
