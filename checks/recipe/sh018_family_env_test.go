package recipe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sh018Tree reads the GLM-5 SGLang MTP family of the SH018 fixture: three
// recipes on B200, B300 and MI355X that all export SGLANG_ENABLE_SPEC_V2,
// and the H200 recipe the PR adds without it.
func sh018Tree(t *testing.T) (base map[string]string, added string) {
	t.Helper()
	const fixture = "../../testdata/prs/sh018-family-env-missing-pr1480"
	base = map[string]string{}
	for _, name := range []string{"glm5_fp4_b200_mtp.sh", "glm5_fp8_b300_mtp.sh", "glm5_fp8_mi355x_mtp.sh"} {
		b, err := os.ReadFile(filepath.Join(fixture, "base/benchmarks/single_node", name))
		if err != nil {
			t.Fatal(err)
		}
		base[singleDir+name] = string(b)
	}
	b, err := os.ReadFile(filepath.Join(fixture, "head/benchmarks/single_node/glm5_fp8_h200_mtp.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return base, string(b)
}

const singleDir = "benchmarks/single_node/"

func TestSH018(t *testing.T) {
	base, added := sh018Tree(t)
	const target = singleDir + "glm5_fp8_h200_mtp.sh"
	const spec = "export SGLANG_ENABLE_SPEC_V2=1\n"
	mi355 := base[singleDir+"glm5_fp8_mi355x_mtp.sh"]
	withSpec := edit(t, added, "cleanup() {", spec+"cleanup() {")
	noSpec := func(s string) string { return strings.Replace(s, spec, "", 1) }
	// nvidiaOnly has three NVIDIA recipes in the family and no AMD one.
	nvidiaOnly := withFile(withFile(base, singleDir+"glm5_fp8_mi355x_mtp.sh", ""), singleDir+"glm5_fp8_b200_mtp.sh", base[singleDir+"glm5_fp4_b200_mtp.sh"])
	// most has five recipes that set the variable, on both vendors, and two
	// merged without it; fewer is most minus its two MI355X copies.
	b300 := base[singleDir+"glm5_fp8_b300_mtp.sh"]
	most := withFile(withFile(withFile(withFile(base,
		singleDir+"glm5_fp8_b200_mtp.sh", base[singleDir+"glm5_fp4_b200_mtp.sh"]),
		singleDir+"glm5_fp4_mi355x_mtp.sh", mi355),
		singleDir+"glm5_fp8_h100_mtp.sh", noSpec(b300)),
		singleDir+"glm5_fp8_mi325x_mtp.sh", noSpec(mi355))
	fewer := withFile(most, singleDir+"glm5_fp4_mi355x_mtp.sh", "")
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		suggest    string
		phrases    []string
	}{
		{name: "new recipe without the family's variable", base: base, head: withFile(base, target, added),
			want:    []string{"SH018 " + target + ":22"},
			suggest: spec + "python3 -m sglang.launch_server \\",
			phrases: []string{"`SGLANG_ENABLE_SPEC_V2`", "3 recipes", "`b200`, `b300` and `mi355x`", "glm5_fp4_b200_mtp.sh:18", "`export SGLANG_ENABLE_SPEC_V2=1`"}},
		{name: "new recipe that sets it", base: base, head: withFile(base, target, withSpec)},
		{name: "a comment names it", base: base,
			head: withFile(base, target, edit(t, added, "cleanup() {", "# SGLANG_ENABLE_SPEC_V2 is off on Hopper.\ncleanup() {"))},
		{name: "the PR deletes it", base: withFile(base, target, withSpec), head: withFile(base, target, added),
			want: []string{"SH018 " + target + ":17"}, phrases: []string{"This PR deletes `SGLANG_ENABLE_SPEC_V2` (line 17 before it)"}},
		{name: "an old recipe that never had it: not this PR's doing", base: withFile(base, target, added),
			head: withFile(base, target, edit(t, added, "--mem-fraction-static 0.85", "--mem-fraction-static 0.8"))},
		{name: "one vendor's family: may be that vendor's", base: withFile(base, singleDir+"glm5_fp8_mi355x_mtp.sh", ""),
			head: withFile(withFile(base, singleDir+"glm5_fp8_mi355x_mtp.sh", ""), target, added)},
		{name: "one sibling lacks it", base: withFile(base, singleDir+"glm5_fp8_mi355x_mtp.sh", noSpec(mi355)),
			head: withFile(withFile(base, singleDir+"glm5_fp8_mi355x_mtp.sh", noSpec(mi355)), target, added)},
		{name: "five of seven set it: a new recipe still follows them", base: most, head: withFile(most, target, added),
			want: []string{"SH018 " + target + ":22"},
			phrases: []string{"which 5 of the 7 other SGLang speculative-decoding recipes", "`glm5_fp8_h100_mtp.sh` and `glm5_fp8_mi325x_mtp.sh` do not",
				"`export SGLANG_ENABLE_SPEC_V2=1`"}},
		{name: "five of seven set it: an old recipe the PR edits is not this PR's doing", base: withFile(most, target, added),
			head: withFile(most, target, edit(t, added, "--mem-fraction-static 0.85", "--mem-fraction-static 0.8"))},
		{name: "four of six set it: too few to hold a new recipe to it", base: fewer, head: withFile(fewer, target, added)},
		{name: "five of eight set it: not two thirds",
			base: withFile(most, singleDir+"glm5_fp4_h100_mtp.sh", noSpec(b300)),
			head: withFile(withFile(most, singleDir+"glm5_fp4_h100_mtp.sh", noSpec(b300)), target, added)},
		{name: "five of seven set it, all on NVIDIA: may be that vendor's",
			base: renameGPU(most, "mi355x", "gb200"), head: withFile(renameGPU(most, "mi355x", "gb200"), target, added)},
		{name: "two siblings are too few",
			base: withFile(base, singleDir+"glm5_fp8_b300_mtp.sh", ""),
			head: withFile(withFile(base, singleDir+"glm5_fp8_b300_mtp.sh", ""), target, added)},
		{name: "another model's recipes do not count", base: base, head: withFile(base, singleDir+"qwen3.5_fp8_h200_mtp.sh", added)},
		{name: "recipes without speculative decoding are another family", base: base,
			head: withFile(base, singleDir+"glm5_fp8_h200.sh", edit(t, added,
				"    --speculative-algorithm EAGLE \\\n    --speculative-num-steps 3 \\\n    --speculative-eagle-topk 1 \\\n    --speculative-num-draft-tokens 4 \\\n", ""))},
		{name: "a variable no engine owns is left alone",
			base: map[string]string{
				singleDir + "glm5_fp4_b200_mtp.sh":   strings.ReplaceAll(base[singleDir+"glm5_fp4_b200_mtp.sh"], "SGLANG_ENABLE_SPEC_V2", "PYTHONHASHSEED"),
				singleDir + "glm5_fp8_b300_mtp.sh":   strings.ReplaceAll(base[singleDir+"glm5_fp8_b300_mtp.sh"], "SGLANG_ENABLE_SPEC_V2", "PYTHONHASHSEED"),
				singleDir + "glm5_fp8_mi355x_mtp.sh": strings.ReplaceAll(mi355, "SGLANG_ENABLE_SPEC_V2", "PYTHONHASHSEED"),
			},
			head: map[string]string{
				singleDir + "glm5_fp4_b200_mtp.sh":   strings.ReplaceAll(base[singleDir+"glm5_fp4_b200_mtp.sh"], "SGLANG_ENABLE_SPEC_V2", "PYTHONHASHSEED"),
				singleDir + "glm5_fp8_b300_mtp.sh":   strings.ReplaceAll(base[singleDir+"glm5_fp8_b300_mtp.sh"], "SGLANG_ENABLE_SPEC_V2", "PYTHONHASHSEED"),
				singleDir + "glm5_fp8_mi355x_mtp.sh": strings.ReplaceAll(mi355, "SGLANG_ENABLE_SPEC_V2", "PYTHONHASHSEED"),
				target:                               added,
			}},
		{name: "one vendor's family: a deletion is still reported",
			base:    withFile(nvidiaOnly, target, withSpec),
			head:    withFile(nvidiaOnly, target, added),
			want:    []string{"SH018 " + target + ":17"},
			phrases: []string{"This PR deletes `SGLANG_ENABLE_SPEC_V2` (line 17 before it)"}},
		{name: "a variable no engine owns, deleted where every sibling sets it alike",
			base: withFile(renameVar(base, "SGLANG_ENABLE_SPEC_V2", "NCCL_NVLS_ENABLE"), target,
				strings.ReplaceAll(withSpec, "SGLANG_ENABLE_SPEC_V2", "NCCL_NVLS_ENABLE")),
			head:    withFile(renameVar(base, "SGLANG_ENABLE_SPEC_V2", "NCCL_NVLS_ENABLE"), target, added),
			want:    []string{"SH018 " + target + ":17"},
			phrases: []string{"This PR deletes `NCCL_NVLS_ENABLE` (line 17 before it)", "`export NCCL_NVLS_ENABLE=1`"}},
		{name: "a variable no engine owns, set a different way by each sibling",
			base: withFile(renameVar(withFile(base, singleDir+"glm5_fp8_mi355x_mtp.sh",
				strings.Replace(mi355, "SGLANG_ENABLE_SPEC_V2=1", "SGLANG_ENABLE_SPEC_V2=2", 1)), "SGLANG_ENABLE_SPEC_V2", "NCCL_NVLS_ENABLE"), target,
				strings.ReplaceAll(withSpec, "SGLANG_ENABLE_SPEC_V2", "NCCL_NVLS_ENABLE")),
			head: withFile(renameVar(withFile(base, singleDir+"glm5_fp8_mi355x_mtp.sh",
				strings.Replace(mi355, "SGLANG_ENABLE_SPEC_V2=1", "SGLANG_ENABLE_SPEC_V2=2", 1)), "SGLANG_ENABLE_SPEC_V2", "NCCL_NVLS_ENABLE"), target, added)},
		{name: "values that differ get no suggestion",
			base: withFile(base, singleDir+"glm5_fp8_mi355x_mtp.sh", strings.Replace(mi355, "SGLANG_ENABLE_SPEC_V2=1", "SGLANG_ENABLE_SPEC_V2=true", 1)),
			head: withFile(withFile(base, singleDir+"glm5_fp8_mi355x_mtp.sh", strings.Replace(mi355, "SGLANG_ENABLE_SPEC_V2=1", "SGLANG_ENABLE_SPEC_V2=true", 1)), target, added),
			want: []string{"SH018 " + target + ":22"}, phrases: []string{"Set it before the server starts"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH018, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, tc.phrases...)
				if tc.suggest != "" || len(tc.phrases) > 0 && strings.Contains(strings.Join(tc.phrases, ""), "Set it") {
					wantSuggestion(t, f, tc.suggest)
				}
			}
		})
	}
}

// renameGPU moves the recipes of one GPU to another by their file names.
func renameGPU(files map[string]string, from, to string) map[string]string {
	out := map[string]string{}
	for p, s := range files {
		out[strings.Replace(p, "_"+from+"_", "_"+to+"_", 1)] = s
	}
	return out
}

// renameVar renames a variable in every file of a tree.
func renameVar(files map[string]string, old, new string) map[string]string {
	out := map[string]string{}
	for p, s := range files {
		out[p] = strings.ReplaceAll(s, old, new)
	}
	return out
}

func TestFamilyOf(t *testing.T) {
	tests := []struct {
		path, model, gpu string
		ok               bool
	}{
		{"benchmarks/single_node/glm5_fp8_h200_mtp.sh", "glm5", "h200", true},
		{"benchmarks/single_node/agentic/glm5.2_fp4_mi355x_sglang.sh", "glm5.2", "mi355x", true},
		{"benchmarks/single_node/dsr1_fp8.sh", "", "", false},
		{"benchmarks/single_node/_fp8_h200.sh", "", "", false},
	}
	for _, tc := range tests {
		model, gpu, ok := familyOf(tc.path)
		if model != tc.model || gpu != tc.gpu || ok != tc.ok {
			t.Errorf("familyOf(%s) = %q, %q, %v; want %q, %q, %v", tc.path, model, gpu, ok, tc.model, tc.gpu, tc.ok)
		}
	}
	for gpu, want := range map[string]string{"mi355x": "AMD", "mi300x": "AMD", "h200": "NVIDIA", "gb300": "NVIDIA"} {
		if got := vendorOf(gpu); got != want {
			t.Errorf("vendorOf(%s) = %s, want %s", gpu, got, want)
		}
	}
}
