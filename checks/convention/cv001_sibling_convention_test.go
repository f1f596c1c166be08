package convention

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

// specBase is three SGLang model families that pass the speculative
// options together and two that pass none of them.
func specBase() map[string]string {
	return map[string]string{
		agentic("qwen3.5_fp8_b200_sglang"):   sglangRecipe(nil, append([]string{"--mem-fraction-static 0.8"}, specFlags...)...),
		agentic("glm5.2_fp4_b300_sglang"):    sglangRecipe(nil, specFlags...),
		agentic("dsv4_fp4_mi355x_sglang"):    sglangRecipe(nil, append(specFlags, "--page-size 64")...),
		agentic("kimik3_fp4_b200_sglang"):    sglangRecipe(nil, "--mem-fraction-static 0.85"),
		agentic("minimaxm3_fp4_b300_sglang"): sglangRecipe(nil, "--page-size 32"),
	}
}

const newSGLang = "benchmarks/single_node/agentic/dsr1_fp4_h200_sglang.sh"

func TestCV001SpeculativeGroup(t *testing.T) {
	base := specBase()
	tests := []struct {
		name  string
		flags []string
		top   []string
		want  int
	}{
		{"one option of the group", []string{"--speculative-algorithm EAGLE"}, nil, 1},
		{"two of four", []string{"--speculative-algorithm EAGLE", "--speculative-num-steps 3"}, nil, 1},
		{"all four", specFlags, nil, 0},
		{"underscore spellings", []string{"--speculative_algorithm EAGLE", "--speculative_num_steps 3",
			"--speculative_eagle_topk 1", "--speculative_num_draft_tokens 4"}, nil, 0},
		{"an unresolved splice may carry them", []string{"--speculative-algorithm EAGLE", `"${EXTRA_SPEC_ARGS[@]}"`}, nil, 0},
		{"unrelated options", []string{"--quantization fp8", "--dp 2", "--enable-dp-attention"}, nil, 0},
		{"env and strict mode are no template", nil, []string{"set -x", "export PYTHONUNBUFFERED=1"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			script := sglangRecipe(tc.top, tc.flags...)
			got := cv001Findings(review(t, base, with(base, newSGLang, script)))
			if len(got) != tc.want {
				t.Fatalf("%d findings, want %d: %+v", len(got), tc.want, got)
			}
			if tc.want == 0 {
				return
			}
			f := got[0]
			if f.Severity != checks.Warning || f.Path != newSGLang || f.Line != checktest.LineOf(t, script, "--speculative-algorithm") {
				t.Errorf("finding at %s:%d (%v)", f.Path, f.Line, f.Severity)
			}
			for _, w := range []string{"3 of 3 model families", "Of the 2 model families that run a server without `--speculative-"} {
				if !strings.Contains(f.Body, w) {
					t.Errorf("message lacks %q: %s", w, f.Body)
				}
			}
			if !strings.Contains(f.Title, "`--speculative-eagle-topk`") || !strings.Contains(f.Title, "`--speculative-num-draft-tokens`") {
				t.Errorf("one finding must name the whole missing group: %q", f.Title)
			}
			if !strings.Contains(f.Problem, "In this new recipe, the command at line") || f.Why == "" || f.Fix == "" ||
				!strings.Contains(f.Evidence, "of them, 3 pass") {
				t.Errorf("reasoning parts: %+v", f)
			}
			if len(f.Notes) != 1 || f.Notes[0].Title != "How sure the bot is" || !strings.Contains(f.Notes[0].Text, "conventions:\n  confirmed:\n") {
				t.Errorf("notes: %+v", f.Notes)
			}
			cited := map[string]bool{}
			for _, r := range f.Related {
				cited[r.Path] = true
			}
			if len(cited) != 3 {
				t.Errorf("want the 3 following families cited: %+v", f.Related)
			}
		})
	}
}

func TestCV001CopiesCountOnce(t *testing.T) {
	// Three recipes of one model family: one piece of evidence, below the
	// 3 families an option pair needs.
	base := map[string]string{
		agentic("dsv4_fp4_b200_sglang"):      sglangRecipe(nil, specFlags...),
		agentic("dsv4_fp4_b300_sglang"):      sglangRecipe(nil, specFlags...),
		agentic("dsv4_fp4_h200_sglang"):      sglangRecipe(nil, specFlags...),
		agentic("kimik3_fp4_b200_sglang"):    sglangRecipe(nil, "--page-size 32"),
		agentic("minimaxm3_fp4_b300_sglang"): sglangRecipe(nil, "--page-size 32"),
	}
	head := with(base, newSGLang, sglangRecipe(nil, "--speculative-algorithm EAGLE"))
	if got := cv001Findings(review(t, base, head)); len(got) != 0 {
		t.Errorf("copies of one family made a convention: %+v", got)
	}
	// The same three recipes as three families do.
	base = specBase()
	if got := cv001Findings(review(t, base, with(base, newSGLang, sglangRecipe(nil, "--speculative-algorithm EAGLE")))); len(got) != 1 {
		t.Errorf("three families: %d findings", len(got))
	}
}

func TestCV001Deprecated(t *testing.T) {
	base := map[string]string{}
	for p, s := range specBase() {
		base[strings.Replace(p, "/agentic/", "/agentic/deprecated/", 1)] = s
	}
	head := with(base, newSGLang, sglangRecipe(nil, "--speculative-algorithm EAGLE"))
	if got := cv001Findings(review(t, base, head)); len(got) != 0 {
		t.Errorf("deprecated recipes are evidence: %+v", got)
	}
}

func TestCV001SiblingChangedInPR(t *testing.T) {
	base := specBase()
	// Only two families follow in the base tree; the PR makes kimik3 the
	// third, and its head version counts.
	delete(base, agentic("glm5.2_fp4_b300_sglang"))
	kimi := agentic("kimik3_fp4_b200_sglang")
	head := with(base, newSGLang, sglangRecipe(nil, "--speculative-algorithm EAGLE"))
	if got := cv001Findings(review(t, base, head)); len(got) != 0 {
		t.Fatalf("two families: %+v", got)
	}
	head = with(head, kimi, sglangRecipe(nil, append([]string{"--mem-fraction-static 0.85"}, specFlags...)...))
	got := cv001Findings(review(t, base, head))
	if len(got) != 1 {
		t.Fatalf("findings %+v", got)
	}
	if !strings.Contains(got[0].Body, "`"+kimi+":") || !strings.Contains(got[0].Reasoning(), "kimik3/nvidia (changed in this PR)") {
		t.Errorf("the changed sibling is not cited as such:\n%s\n%s", got[0].Body, got[0].Reasoning())
	}
	for _, r := range got[0].Related {
		if r.Path == kimi && r.Side != checks.Head {
			t.Errorf("a changed sibling is cited at its head version: %+v", r)
		}
	}
}

func TestCV001RemovedAndMoved(t *testing.T) {
	base := specBase()
	base[agentic("dsr1_fp4_h200_sglang")] = sglangRecipe(nil, specFlags...)
	p := agentic("dsr1_fp4_h200_sglang")
	old := base[p]

	// Deleting a line of the group: "removes", citing the deleted line,
	// with the line put back as the suggestion.
	removed := strings.Replace(old, "    --speculative-num-steps 3 \\\n", "", 1)
	got := cv001Findings(review(t, base, with(base, p, removed)))
	if len(got) != 1 {
		t.Fatalf("findings %+v", got)
	}
	f := got[0]
	baseLine := checktest.LineOf(t, old, "--speculative-num-steps")
	if !strings.Contains(f.Body, "this PR removes `--speculative-num-steps` (base line") ||
		!strings.Contains(f.Body, "Restore `--speculative-num-steps 3`") {
		t.Errorf("message: %s", f.Body)
	}
	if f.Suggestion == nil || !strings.HasSuffix(f.Suggestion.Replacement, "\n    --speculative-num-steps 3 \\") {
		t.Errorf("suggestion %+v", f.Suggestion)
	}
	if f.Side != checks.Base || f.Line != baseLine {
		t.Errorf("the finding is not on the deleted line: %s:%d", f.Side, f.Line)
	}

	// Moving the options into an array the command splices: still there.
	moved := strings.Replace(old, "python3 -m sglang.launch_server \\\n",
		"SPEC_ARGS=(\n    --speculative-num-steps 3\n    --speculative-eagle-topk 1\n)\npython3 -m sglang.launch_server \\\n    \"${SPEC_ARGS[@]}\" \\\n", 1)
	moved = strings.Replace(moved, "    --speculative-num-steps 3 \\\n    --speculative-eagle-topk 1 \\\n", "", 1)
	if got := cv001Findings(review(t, base, with(base, p, moved))); len(got) != 0 {
		t.Errorf("a moved option is not removed: %+v", got)
	}
}

func TestCV001OldDeviation(t *testing.T) {
	base := specBase()
	p := agentic("dsr1_fp4_h200_sglang")
	base[p] = sglangRecipe([]string{"MEM=0.8"}, "--speculative-algorithm EAGLE", "--mem-fraction-static \"$MEM\"")
	for name, head := range map[string]string{
		"unrelated line":        sglangRecipe([]string{"MEM=0.75"}, "--speculative-algorithm EAGLE", "--mem-fraction-static \"$MEM\""),
		"deviating line edited": sglangRecipe([]string{"MEM=0.8"}, "--speculative-algorithm NEXTN", "--mem-fraction-static \"$MEM\""),
	} {
		t.Run(name, func(t *testing.T) {
			if got := cv001Findings(review(t, base, with(base, p, head))); len(got) != 0 {
				t.Errorf("old deviation reported: %+v", got)
			}
		})
	}
}

func TestCV001Confirmed(t *testing.T) {
	base := specBase()
	base[".github/reviewbot.yml"] = "conventions:\n  confirmed:\n    - \"sglang: --speculative-algorithm => --speculative-num-steps\"\n"
	got := cv001Findings(review(t, base, with(base, newSGLang, sglangRecipe(nil, "--speculative-algorithm EAGLE"))))
	if len(got) != 1 || got[0].Severity != checks.Blocking {
		t.Fatalf("a confirmed belief blocks: %+v", got)
	}
	// Without the engine, for every engine; ⇒ is accepted.
	base[".github/reviewbot.yml"] = "conventions:\n  confirmed: [\"--speculative-algorithm ⇒ --speculative-num-steps\"]\n"
	got = cv001Findings(review(t, base, with(base, newSGLang, sglangRecipe(nil, "--speculative-algorithm EAGLE"))))
	if len(got) != 1 || got[0].Severity != checks.Blocking {
		t.Fatalf("a confirmed belief without engine: %+v", got)
	}
}

// priorRule reports one finding on path with the given facts, so CV001
// sees it in Pass.Prior.
func priorRule(path string, facts ...string) *checks.Rule {
	return &checks.Rule{ID: "SH999", Severity: checks.Blocking, Title: "t", Doc: "d", Run: func(p *checks.Pass) error {
		p.Report(checks.Finding{Path: path, Line: 1, Title: "prior", Body: "m", Facts: facts, Key: "k"})
		return nil
	}}
}

func TestCV001Defers(t *testing.T) {
	base := specBase()
	head := with(base, newSGLang, sglangRecipe(nil, "--speculative-algorithm EAGLE"))
	all := []string{"flag:--speculative-num-steps", "flag:--speculative-eagle-topk", "flag:--speculative-num-draft-tokens"}
	tests := []struct {
		name  string
		prior *checks.Rule
		want  int
		ys    int
	}{
		{"no prior", nil, 1, 3},
		{"prior judged one companion", priorRule(newSGLang, all[0]), 1, 2},
		{"prior judged them all", priorRule(newSGLang, all...), 0, 0},
		{"prior on another file", priorRule(agentic("kimik3_fp4_b200_sglang"), all...), 1, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rules []*checks.Rule
			if tc.prior != nil {
				rules = append(rules, tc.prior)
			}
			got := cv001Findings(review(t, base, head, rules...))
			if len(got) != tc.want {
				t.Fatalf("%d findings, want %d: %+v", len(got), tc.want, got)
			}
			if tc.want > 0 && strings.Count(got[0].Title, "--speculative-") != tc.ys+1 {
				t.Errorf("title %q", got[0].Title)
			}
		})
	}

	// The tool-calling options are SH006's, whatever the statistic says.
	tools := []string{"--tool-call-parser x", "--enable-auto-tool-choice"}
	vbase := map[string]string{}
	for _, m := range []string{"qwen3.5_fp8_b200", "glm5.2_fp4_b300", "dsv4_fp4_mi355x", "kimik3_fp4_b200"} {
		vbase[agentic(m+"_vllm")] = vllmRecipe(nil, tools...)
	}
	vbase[agentic("minimaxm3_fp4_b300_vllm")] = vllmRecipe(nil, "--max-num-seqs 8")
	vhead := with(vbase, agentic("dsr1_fp4_h200_vllm"), vllmRecipe(nil, "--tool-call-parser x"))
	if got := cv001Findings(review(t, vbase, vhead)); len(got) != 0 {
		t.Errorf("CV001 judged SH006's fact: %+v", got)
	}
}

// mooncakeBase is three vLLM families whose Mooncake branch exports the
// config path, beside branches of another connector.
func mooncakeBase() map[string]string {
	files := map[string]string{}
	for _, m := range []string{"qwen3.5_fp8_b200", "glm5.2_fp4_b300", "dsv4_fp4_mi355x"} {
		files[agentic(m+"_vllm")] = vllmRecipe([]arm{mooncakeArm(true), nativeArm()}, "--max-num-seqs 8")
	}
	files[agentic("kimik3_fp4_b200_vllm")] = vllmRecipe([]arm{nativeArm()}, "--max-num-seqs 8")
	return files
}

func TestCV001BranchEnv(t *testing.T) {
	base := mooncakeBase()
	p := agentic("minimaxm3_fp4_b300_vllm")
	tests := []struct {
		name string
		arms []arm
		want int
	}{
		{"mooncake branch without the export", []arm{mooncakeArm(false), nativeArm()}, 1},
		{"with it", []arm{mooncakeArm(true), nativeArm()}, 0},
		{"exported at top level", []arm{{name: "mooncake", lines: mooncakeArm(false).lines}}, 0},
		{"other connector only", []arm{nativeArm()}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			script := vllmRecipe(tc.arms, "--max-num-seqs 8")
			if tc.name == "exported at top level" {
				script = strings.Replace(script, "OFFLOAD_ARGS=()\n", "OFFLOAD_ARGS=()\nexport MOONCAKE_CONFIG_PATH=/tmp/m.json\n", 1)
			}
			got := cv001Findings(review(t, base, with(base, p, script)))
			if len(got) != tc.want {
				t.Fatalf("%d findings, want %d: %+v", len(got), tc.want, got)
			}
			if tc.want == 0 {
				return
			}
			f := got[0]
			if !strings.Contains(f.Title, "`MooncakeStoreConnector` branch without `export MOONCAKE_CONFIG_PATH`") ||
				!strings.Contains(f.Body, "case \"${KV_OFFLOAD_BACKEND:-}\" in mooncake)") ||
				!strings.Contains(f.Body, "Add `export MOONCAKE_CONFIG_PATH` to the branch") {
				t.Errorf("finding: %s\n%s", f.Title, f.Body)
			}
			stmt := checktest.LineOf(t, script, "MooncakeStoreConnector")
			if f.Suggestion == nil || f.Suggestion.Line != stmt ||
				!strings.HasPrefix(f.Suggestion.Replacement, "        export MOONCAKE_CONFIG_PATH\n        OFFLOAD_ARGS=(") {
				t.Errorf("suggestion %+v", f.Suggestion)
			}
		})
	}
}

// eagleBase is two vLLM families whose eagle3 speculative config names
// the draft model, and two whose mtp config does not.
func eagleBase() map[string]string {
	eagle := `--speculative-config '{"method":"eagle3","model":"org/draft","num_speculative_tokens":3}'`
	mtp := `--speculative-config '{"method":"mtp","num_speculative_tokens":2}'`
	return map[string]string{
		agentic("minimaxm3_fp8_h200_vllm"):  vllmRecipe(nil, eagle),
		agentic("kimik2.5_fp4_mi355x_vllm"): vllmRecipe(nil, eagle),
		agentic("dsv4_fp4_b200_vllm"):       vllmRecipe(nil, mtp),
		agentic("glm5.2_fp4_b300_vllm"):     vllmRecipe(nil, mtp),
	}
}

func TestCV001ComponentKey(t *testing.T) {
	base := eagleBase()
	p := agentic("qwen3.5_fp8_h100_vllm")
	tests := []struct {
		name  string
		flags []string
		top   []string
		want  int
	}{
		{"eagle3 without the draft model", []string{`--speculative-config '{"method":"eagle3","num_speculative_tokens":3}'`}, nil, 1},
		{"with it", []string{`--speculative-config '{"method":"eagle3","model":"q/d","num_speculative_tokens":3}'`}, nil, 0},
		{"dotted key", []string{`--speculative-config '{"method":"eagle3","num_speculative_tokens":3}'`, "--speculative-config.model q/d"}, nil, 0},
		{"printf-built JSON", []string{`--speculative-config "$SPEC"`}, []string{`SPEC=$(printf '{"method":"eagle3","num_speculative_tokens":%d}' 3)`}, 0},
		{"spliced member", []string{`--speculative-config "{\"method\":\"eagle3\",$DRAFT}"`}, nil, 0},
		{"mtp needs none", []string{`--speculative-config '{"method":"mtp","num_speculative_tokens":2}'`}, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			script := vllmRecipe(nil, tc.flags...)
			if tc.top != nil {
				script = strings.Replace(script, "OFFLOAD_ARGS=()\n", "OFFLOAD_ARGS=()\n"+strings.Join(tc.top, "\n")+"\n", 1)
			}
			got := cv001Findings(review(t, base, with(base, p, script)))
			if len(got) != tc.want {
				t.Fatalf("%d findings, want %d: %+v", len(got), tc.want, got)
			}
			if tc.want == 0 {
				return
			}
			f := got[0]
			if f.Title != "`eagle3` config without `model`" || !strings.Contains(f.Body, "Add `\"model\": \"org/draft\"` to the JSON") ||
				!strings.Contains(f.Body, "Of the 2 model families that use another `method` there, 0 set `model`") {
				t.Errorf("finding: %s\n%s", f.Title, f.Body)
			}
		})
	}
}

func TestCV001AtMostThreePerFile(t *testing.T) {
	base := specBase()
	command := func(port int, flags ...string) string {
		return "python3 -m sglang.launch_server --model-path \"$MODEL\" --port " + fmt.Sprint(port) + " " + strings.Join(flags, " ") + " &\n"
	}
	// Five commands, each missing a different part of the group.
	script := "#!/usr/bin/env bash\nset -euo pipefail\n" +
		command(9000, "--speculative-algorithm EAGLE") +
		command(9001, "--speculative-algorithm EAGLE", "--speculative-num-steps 3") +
		command(9002, "--speculative-algorithm EAGLE", "--speculative-eagle-topk 1") +
		command(9003, "--speculative-algorithm EAGLE", "--speculative-num-draft-tokens 4") +
		command(9004, "--speculative-num-steps 3")
	if got := cv001Findings(review(t, base, with(base, newSGLang, script))); len(got) != maxPerFile {
		t.Errorf("%d findings, want %d", len(got), maxPerFile)
	}
	// The same command twice is one finding naming both.
	script = "#!/usr/bin/env bash\nset -euo pipefail\n" + command(9000, "--speculative-algorithm EAGLE") + command(9001, "--speculative-algorithm EAGLE")
	got := cv001Findings(review(t, base, with(base, newSGLang, script)))
	if len(got) != 1 || got[0].Line != 3 || !strings.Contains(got[0].Body, "(and the same at line 4)") {
		t.Errorf("findings %+v", got)
	}
}

func TestGrouping(t *testing.T) {
	v := func(slot, y string, line int) violation {
		return violation{c: cand{t: tFlagPair, slot: slot, y: y}, xLine: line, scope: "cmd:1",
			st: stat{lift: float64(line) / 100}}
	}
	tests := []struct {
		name   string
		vs     []violation
		groups []string // "xs => ys" per group
	}{
		{"one option, its missing companions", []violation{
			v("--speculative-algorithm", "--speculative-num-steps", 3),
			v("--speculative-algorithm", "--speculative-eagle-topk", 3),
		}, []string{"--speculative-algorithm => --speculative-eagle-topk,--speculative-num-steps"}},
		{"two options missing one", []violation{
			v("--hicache-size", "--enable-hierarchical-cache", 4),
			v("--hicache-io-backend", "--enable-hierarchical-cache", 5),
		}, []string{"--hicache-io-backend,--hicache-size => --enable-hierarchical-cache"}},
		{"unrelated features apart", []violation{
			v("--hicache-size", "--enable-hierarchical-cache", 4),
			v("--speculative-algorithm", "--speculative-num-steps", 3),
		}, []string{"--hicache-size => --enable-hierarchical-cache", "--speculative-algorithm => --speculative-num-steps"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, g := range components(tc.vs) {
				got = append(got, strings.Join(g.xs, ",")+" => "+strings.Join(sortedCopy(missing(g)), ","))
			}
			if strings.Join(got, "|") != strings.Join(tc.groups, "|") {
				t.Errorf("groups %q, want %q", got, tc.groups)
			}
		})
	}
}

func sortedCopy(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}

// TestHostileCommand reviews a command with thousands of options that all
// share a word: mining must stay bounded (options are paired through an
// index, at most maxSharing per word) and nothing may panic.
func TestHostileCommand(t *testing.T) {
	var flags []string
	for i := 0; i < 3000; i++ {
		flags = append(flags, fmt.Sprintf("--feature-knob%d 1", i))
	}
	base := specBase()
	base[agentic("glm5_fp8_b200_sglang")] = sglangRecipe(nil, flags...)
	head := with(base, newSGLang, sglangRecipe(nil, append(flags, "--speculative-algorithm EAGLE")...))
	if got := cv001Findings(review(t, base, head)); len(got) != 1 {
		t.Errorf("findings %+v", got)
	}
	if n := len(relatedPairs(map[string]int{"--a-knob": 1, "--b-knob": 2, "--c-dial": 3})); n != 2 {
		t.Errorf("%d pairs, want the two through knob", n)
	}
}

// TestCV001Exceptions: a sibling that does not follow the convention is
// cited in the evidence prose, before the paragraph that introduces the
// cited followers (the Related locations the reviewer lists after it), so
// the two lists never run together.
func TestCV001Exceptions(t *testing.T) {
	base := specBase()
	base[agentic("gptoss_fp4_b200_sglang")] = sglangRecipe(nil, specFlags...)
	base[agentic("llama4_fp8_b200_sglang")] = sglangRecipe(nil, specFlags...)
	odd := agentic("qwen3.5_fp8_h200_sglang")
	base[odd] = sglangRecipe(nil, "--speculative-algorithm EAGLE")
	got := cv001Findings(review(t, base, with(base, newSGLang, sglangRecipe(nil, "--speculative-algorithm EAGLE"))))
	if len(got) != 1 {
		t.Fatalf("findings %+v", got)
	}
	ev := got[0].Evidence
	want := fmt.Sprintf("\n\nSiblings that do not:\n- `%s:%d` (qwen35/nvidia)\n\nSiblings that do it, one recipe per model family: ", odd, checktest.LineOf(t, base[odd], "--speculative-algorithm"))
	if !strings.Contains(ev, want) || strings.Contains(ev[strings.Index(ev, "Siblings that do it"):], "\n") {
		t.Errorf("evidence:\n%s\nwant it to contain %q and end with the followers' paragraph", ev, want)
	}
	for _, r := range got[0].Related {
		if r.Path == odd {
			t.Errorf("an exception is cited as a follower: %+v", r)
		}
	}
}
