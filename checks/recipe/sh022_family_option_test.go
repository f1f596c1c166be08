package recipe

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// sh022Tree reads the Qwen3.5 SGLang family of the SH022 fixture: three
// recipes on B200, H200 and MI355X that all pass --tokenizer-worker-num
// and --cuda-graph-max-bs, and the MI355X FP4 recipe the PR adds without
// either.
func sh022Tree(t *testing.T) (base map[string]string, added string) {
	t.Helper()
	const fixture = "../../testdata/prs/sh022-family-option-pr1680"
	base = map[string]string{}
	for _, name := range []string{"qwen3.5_fp8_b200.sh", "qwen3.5_fp8_h200.sh", "qwen3.5_fp8_mi355x.sh"} {
		b, err := os.ReadFile(filepath.Join(fixture, "base/benchmarks/single_node", name))
		if err != nil {
			t.Fatal(err)
		}
		base[singleDir+name] = string(b)
	}
	b, err := os.ReadFile(filepath.Join(fixture, "head/benchmarks/single_node/qwen3.5_fp4_mi355x.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return base, string(b)
}

func TestSH022(t *testing.T) {
	base, added := sh022Tree(t)
	const target = singleDir + "qwen3.5_fp4_mi355x.sh"
	const tail = "    --disable-radix-cache > \"$SERVER_LOG\" 2>&1 &"
	// both passes the two options the family passes.
	both := edit(t, added, tail, "    --tokenizer-worker-num 6 \\\n    --cuda-graph-max-bs \"$CONC\" \\\n"+tail)
	onlyGraph := edit(t, added, tail, "    --cuda-graph-max-bs \"$CONC\" \\\n"+tail)
	// onEvery applies one edit to every sibling.
	onEvery := func(files map[string]string, old, new string) map[string]string {
		out := map[string]string{}
		for p, s := range files {
			out[p] = edit(t, s, old, new)
		}
		return out
	}
	h200 := singleDir + "qwen3.5_fp8_h200.sh"
	b300 := withFile(base, singleDir+"qwen3.5_fp8_b300.sh", base[singleDir+"qwen3.5_fp8_b200.sh"])
	nvidiaOnly := withFile(b300, singleDir+"qwen3.5_fp8_mi355x.sh", "")
	twoSiblings := withFile(base, h200, "")
	torch := onEvery(base, tail, "    --enable-torch-compile \\\n"+tail)
	jsonArg := onEvery(base, tail, "    --json-model-override-args '{\"rope_scaling\": null}' \\\n"+tail)
	otherWorkers := withFile(base, h200, edit(t, base[h200], "--tokenizer-worker-num 6", "--tokenizer-worker-num 4"))
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		phrases    []string
	}{
		{name: "new recipe without the family's options", base: base, head: withFile(base, target, added),
			want: []string{"SH022 " + target + ":17"},
			phrases: []string{"`--cuda-graph-max-bs` and `--tokenizer-worker-num`", "3 recipes", "`b200`, `h200` and `mi355x`",
				"qwen3.5_fp8_b200.sh:22", "Add `--cuda-graph-max-bs $CONC` and `--tokenizer-worker-num 6`", "adds (line 17)"}},
		{name: "new recipe that passes them", base: base, head: withFile(base, target, both)},
		{name: "the PR adds another option to the command that lacks them", base: withFile(base, target, added),
			head: withFile(base, target, edit(t, added, "    --mem-fraction-static 0.8 \\\n",
				"    --mem-fraction-static 0.8 \\\n    --chunked-prefill-size 16384 \\\n")),
			want: []string{"SH022 " + target + ":22"}, phrases: []string{"This PR adds `--chunked-prefill-size`", "still does not pass"}},
		{name: "an old absence the PR does not touch", base: withFile(base, target, added),
			head: withFile(base, target, edit(t, added, "--mem-fraction-static 0.8", "--mem-fraction-static 0.85"))},
		{name: "the PR deletes one", base: withFile(base, target, both), head: withFile(base, target, onlyGraph),
			want:    []string{"SH022 " + target + ":23"},
			phrases: []string{"This PR deletes `--tokenizer-worker-num` (line 23 before it)", "Add `--tokenizer-worker-num 6`"}},
		{name: "the negation is a choice", base: torch,
			head: withFile(torch, target, edit(t, both, tail, "    --no-enable-torch-compile \\\n"+tail))},
		{name: "without the negation it fires", base: torch, head: withFile(torch, target, both),
			want: []string{"SH022 " + target + ":17"}, phrases: []string{"`--enable-torch-compile`", "Add `--enable-torch-compile`"}},
		{name: "a comment names them", base: base,
			head: withFile(base, target, edit(t, added, "export SGLANG_USE_AITER=1\n",
				"export SGLANG_USE_AITER=1\n# --tokenizer-worker-num and --cuda-graph-max-bs stay at their defaults on FP4.\n"))},
		{name: "a JSON-valued option selects, it does not set", base: jsonArg, head: withFile(jsonArg, target, both)},
		{name: "one vendor's family: may be that vendor's", base: nvidiaOnly, head: withFile(nvidiaOnly, target, added)},
		{name: "two siblings are too few", base: twoSiblings, head: withFile(twoSiblings, target, added)},
		{name: "an array it cannot see may hold them", base: base,
			head: withFile(base, target, edit(t, added, tail, "    \"${EXTRA_ARGS[@]}\" \\\n"+tail))},
		{name: "values that differ get no exact fix", base: otherWorkers, head: withFile(otherWorkers, target, added),
			want: []string{"SH022 " + target + ":17"}, phrases: []string{"Pass them to the server command"}},
		{name: "one vendor's family: a deletion is still reported", base: withFile(nvidiaOnly, target, both),
			head:    withFile(nvidiaOnly, target, onlyGraph),
			want:    []string{"SH022 " + target + ":23"},
			phrases: []string{"This PR deletes `--tokenizer-worker-num` (line 23 before it)"}},
		{name: "a parser deleted from a fixed-length recipe",
			base:    withFile(onEvery(base, tail, "    --reasoning-parser qwen3 \\\n"+tail), target, edit(t, both, tail, "    --reasoning-parser qwen3 \\\n"+tail)),
			head:    withFile(onEvery(base, tail, "    --reasoning-parser qwen3 \\\n"+tail), target, both),
			want:    []string{"SH022 " + target + ":25"},
			phrases: []string{"This PR deletes `--reasoning-parser` (line 25 before it)"}},
		{name: "a JSON-valued option the PR deletes",
			base:    withFile(jsonArg, target, edit(t, both, tail, "    --json-model-override-args '{\"rope_scaling\": null}' \\\n"+tail)),
			head:    withFile(jsonArg, target, both),
			want:    []string{"SH022 " + target + ":25"},
			phrases: []string{"This PR deletes `--json-model-override-args` (line 25 before it)"}},
		{name: "an agentic recipe's reasoning parser is the family's setting",
			base: moveTo(withFile(onEvery(base, tail, "    --reasoning-parser qwen3 \\\n"+tail), target, both), agenticDir),
			head: moveTo(withFile(onEvery(base, tail, "    --reasoning-parser qwen3 \\\n"+tail), target, edit(t, both, tail, "    --enable-torch-compile \\\n"+tail)), agenticDir),
			want: []string{"SH022 " + agenticDir + "qwen3.5_fp4_mi355x.sh:25"}, phrases: []string{"still does not pass `--reasoning-parser`", "This PR adds `--enable-torch-compile`"}},
		{name: "a short alias is the same option", base: base,
			head: withFile(base, target, edit(t, both, "--tensor-parallel-size \"$TP\"", "--tp \"$TP\""))},
		{name: "the parallel layout is each recipe's own",
			base: onEvery(base, tail, "    --data-parallel-size 8 --enable-dp-attention \\\n"+tail),
			head: withFile(onEvery(base, tail, "    --data-parallel-size 8 --enable-dp-attention \\\n"+tail), target, both)},
		{name: "where the server listens is no convention", base: base,
			head: withFile(base, target, edit(t, both, "--host 0.0.0.0 --port \"$PORT\"", "--port \"$PORT\""))},
		{name: "tool-calling flags are SH006's",
			base: onEvery(base, tail, "    --tool-call-parser qwen3_coder \\\n"+tail),
			head: withFile(onEvery(base, tail, "    --tool-call-parser qwen3_coder \\\n"+tail), target, both)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewRule(t, SH022, tc.base, tc.head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Body, tc.phrases...)
			}
		})
	}
}

func TestPassesEither(t *testing.T) {
	opts := map[string]bool{"--enable-prefix-caching": true, "--no-enable-torch-compile": true}
	tests := []struct {
		name string
		want bool
	}{
		{"--enable-prefix-caching", true},
		{"--no-enable-prefix-caching", true},
		{"--enable-torch-compile", true},
		{"--no-enable-torch-compile", true},
		{"--enable-metrics", false},
		{"--no-enable-metrics", false},
	}
	for _, tc := range tests {
		m := map[string]script.Flag{}
		for n := range opts {
			m[n] = script.Flag{}
		}
		if got := passesEither(m, tc.name); got != tc.want {
			t.Errorf("passesEither(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// moveTo moves every recipe of a tree into dir.
func moveTo(files map[string]string, dir string) map[string]string {
	out := map[string]string{}
	for p, s := range files {
		out[dir+filepath.Base(p)] = s
	}
	return out
}
