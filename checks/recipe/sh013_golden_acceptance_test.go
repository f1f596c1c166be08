package recipe

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
)

var goldenBase = map[string]string{
	"golden_al_distribution/dsv4_mtp.yaml":      goldenDoc, // on[3]=2.62 (line 6), off[3]=2.93 (line 9)
	"golden_al_distribution/kimik3_dspark.yaml": "kimi-k3:\n  thinking_on:\n    2: 2.39\n    3: 2.80\n",
	"golden_al_distribution/glm5.2_mtp.yaml":    "glm-5.2:\n  thinking_on:\n    2: 2.50\n    3: 2.93\n",
}

const kimiSpec = `#!/usr/bin/env bash
SPEC='{"method": "dspark", "num_speculative_tokens": 2, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.39}'
vllm serve "$MODEL" \
    --port 8000 \
    --speculative-config "$SPEC" &
`

const dsv4SGLang = `#!/usr/bin/env bash
export SGLANG_SIMULATE_ACC_LEN=2.62
SPEC_ARGS=(--speculative-algorithm EAGLE --speculative-num-steps 3)
python3 -m sglang.launch_server --model-path "$MODEL" "${SPEC_ARGS[@]}" &
`

const dsv4TRT = `#!/usr/bin/env bash
NUM_NEXTN_LAYERS=3
export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2
cat > "$CFG" <<EOF
speculative_config:
  decoding_type: MTP
  num_nextn_predict_layers: ${NUM_NEXTN_LAYERS}
EOF
trtllm-serve "$MODEL" --extra_llm_api_options "$CFG" &
`

func TestSH013(t *testing.T) {
	const (
		kimi  = agenticDir + "kimik3_fp4_b300_vllm.sh"
		dsv4V = agenticDir + "dsv4_fp4_b300_vllm.sh"
		sgl   = agenticDir + "dsv4_fp4_b200_sglang.sh"
		trt   = agenticDir + "dsv4_fp4_b200_trt.sh"
		glm   = agenticDir + "glm5.2_fp4_gb300_trt.sh"
		qwen  = agenticDir + "qwen9_fp4_b200_vllm.sh"
	)
	dsv4Spec := func(al, kwargs string) string {
		return edit(t, kimiSpec, `"method": "dspark", "num_speculative_tokens": 2`, `"method": "mtp", "num_speculative_tokens": 3`,
			"2.39", al, "    --port 8000 \\\n", "    --port 8000 \\\n"+kwargs)
	}
	tests := []struct {
		name    string
		path    string
		base    string // "" = new file
		head    string
		want    []string
		phrases []string
		sug     string // expected suggestion replacement ("" = none)
		sugLine int
		warning bool // the finding is a 🟡, not the rule's 🔴
	}{
		{name: "vLLM golden", path: kimi, head: kimiSpec},
		{
			name: "vLLM wrong AL", path: kimi, base: kimiSpec, head: edit(t, kimiSpec, "2.39", "2.50"),
			want:    []string{"SH013 " + kimi + ":2"},
			phrases: []string{"pins `2.50`", "golden value for this recipe is 2.39 (golden_al_distribution/kimik3_dspark.yaml:3: kimi-k3, thinking_on, 2 draft tokens)", "Set it to `2.39`."},
			sug:     edit(t, strings.Split(kimiSpec, "\n")[1], "2.39", "2.39"), sugLine: 2,
		},
		{
			name: "vLLM AL kept while the draft length changed", path: kimi, base: kimiSpec,
			head:    edit(t, kimiSpec, `"num_speculative_tokens": 2`, `"num_speculative_tokens": 3`),
			want:    []string{"SH013 " + kimi + ":2"},
			phrases: []string{"pins `2.39`", "is 2.80 (", "3 draft tokens"},
			sug:     edit(t, strings.Split(kimiSpec, "\n")[1], `"num_speculative_tokens": 2`, `"num_speculative_tokens": 3`, "2.39", "2.80"), sugLine: 2,
		},
		{
			name: "vLLM without synthetic acceptance", path: kimi, base: kimiSpec,
			head:    edit(t, kimiSpec, `, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.39`, ""),
			want:    []string{"SH013 " + kimi + ":2"},
			phrases: []string{"turns on `dspark` speculative decoding in an agentic recipe without simulated acceptance", "Add `\"rejection_sample_method\": \"synthetic\", \"synthetic_acceptance_length\": 2.39`"},
			sug:     strings.Split(kimiSpec, "\n")[1], sugLine: 2,
		},
		{
			name: "vLLM with another rejection method", path: kimi, base: kimiSpec,
			head:    edit(t, kimiSpec, `"rejection_sample_method": "synthetic"`, `"rejection_sample_method": "strict"`),
			want:    []string{"SH013 " + kimi + ":2"},
			phrases: []string{`(it sets "strict")`},
		},
		{
			name: "vLLM AL through a variable", path: kimi, base: kimiSpec,
			head:    edit(t, kimiSpec, "SPEC='", "AL=2.50\nSPEC='", `"synthetic_acceptance_length": 2.39}'`, `"synthetic_acceptance_length": '"$AL"'}'`),
			want:    []string{"SH013 " + kimi + ":2"},
			phrases: []string{"`AL` (line 2), the `synthetic_acceptance_length` of the `--speculative-config` built on line 3, pins `2.50`"},
			sug:     "AL=2.39", sugLine: 2,
		},
		{
			name: "vLLM AL from a command: not judged", path: kimi, base: kimiSpec,
			head: edit(t, kimiSpec, "SPEC='", "AL=$(cat al.txt)\nSPEC='", `"synthetic_acceptance_length": 2.39}'`, `"synthetic_acceptance_length": '"$AL"'}'`),
		},
		{name: "thinking off uses the thinking_off curve", path: dsv4V, head: dsv4Spec("2.93", "    --default-chat-template-kwargs '{\"thinking\": false}' \\\n")},
		{
			name: "thinking off, thinking_on value", path: dsv4V, head: dsv4Spec("2.62", "    --default-chat-template-kwargs '{\"thinking\": false}' \\\n"),
			want:    []string{"SH013 " + dsv4V + ":2"},
			phrases: []string{"is 2.93 (golden_al_distribution/dsv4_mtp.yaml:9: deepseek-v4-pro, thinking_off, 3 draft tokens)"},
			sug:     `SPEC='{"method": "mtp", "num_speculative_tokens": 3, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.93}'`, sugLine: 2,
		},
		{
			name: "thinking unknown defaults to thinking_on", path: dsv4V, head: dsv4Spec("2.93", ""),
			want: []string{"SH013 " + dsv4V + ":2"},
			sug:  `SPEC='{"method": "mtp", "num_speculative_tokens": 3, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.62}'`, sugLine: 2,
		},
		{
			name: "both thinking modes: either curve", path: dsv4V,
			head: edit(t, dsv4Spec("2.93", "    \"${KW[@]}\" \\\n"), "SPEC=", "if [ \"$T\" = on ]; then\n    KW=(--default-chat-template-kwargs '{\"thinking\": true}')\nelse\n    KW=(--default-chat-template-kwargs '{\"thinking\": false}')\nfi\nSPEC="),
		},
		{
			name: "eval-only real verification", path: kimi, base: kimiSpec,
			head: edit(t, kimiSpec, "vllm serve", "if [ \"${EVAL_ONLY:-false}\" = \"true\" ]; then\n    SPEC='{\"method\": \"dspark\", \"num_speculative_tokens\": 2}'\nfi\nvllm serve"),
		},
		{
			name: "untouched config", path: kimi, base: edit(t, kimiSpec, "2.39", "2.50"),
			head: edit(t, kimiSpec, "2.39", "2.50", "--port 8000", "--port 8001"),
		},
		{
			name: "no golden curve: missing synthetic still reported", path: qwen,
			head:    edit(t, kimiSpec, `, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.39`, ""),
			want:    []string{"SH013 " + qwen + ":2"},
			phrases: []string{"from the model's curve in `golden_al_distribution/`"},
		},
		{
			name: "no golden curve: a pinned AL is no measured value", path: qwen, head: edit(t, kimiSpec, "2.39", "9.99"),
			want:    []string{"SH013 " + qwen + ":2"},
			phrases: []string{"pins `synthetic_acceptance_length` to `9.99`", "has no golden curve for `qwen9`", "pin its point for 2 draft tokens"},
			warning: true,
		},
		{
			name: "no golden curve: the AL of another model's curve", path: qwen, head: kimiSpec,
			want:    []string{"SH013 " + qwen + ":2"},
			phrases: []string{"It is the golden AL of another model: 2.39 (golden_al_distribution/kimik3_dspark.yaml:3: kimi-k3, thinking_on, 2 draft tokens)"},
		},
		{
			name: "no golden curve: through a default the caller may override", path: qwen,
			head: `#!/usr/bin/env bash
DEFAULT_SPEC=$(cat <<'EOF'
{
  "method": "dspark",
  "num_speculative_tokens": 2,
  "rejection_sample_method": "synthetic",
  "synthetic_acceptance_length": 2.39
}
EOF
)
export SPEC="${SPEC:-$DEFAULT_SPEC}"
vllm serve "$MODEL" --speculative-config "$SPEC" &
`,
			want:    []string{"SH013 " + qwen + ":7"},
			phrases: []string{"kimik3_dspark.yaml:3"},
		},
		{name: "no golden curve: an old pin the PR does not touch", path: qwen, base: kimiSpec, head: edit(t, kimiSpec, "--port 8000", "--port 8001")},
		{name: "a curve of the model for another method: not this check's", path: agenticDir + "glm5.2_fp4_b200_vllm.sh", head: edit(t, kimiSpec, "2.39", "9.99")},
		{name: "the model's curve lacks the draft length: not judged", path: kimi, head: edit(t, kimiSpec, `"num_speculative_tokens": 2`, `"num_speculative_tokens": 7`)},

		{name: "SGLang golden", path: sgl, head: dsv4SGLang},
		{
			name: "SGLang wrong AL", path: sgl, base: dsv4SGLang, head: edit(t, dsv4SGLang, "2.62", "2.50"),
			want:    []string{"SH013 " + sgl + ":2"},
			phrases: []string{"`export SGLANG_SIMULATE_ACC_LEN=2.50` (line 2) pins `2.50`", "is 2.62 ("},
			sug:     "export SGLANG_SIMULATE_ACC_LEN=2.62", sugLine: 2,
		},
		{
			name: "SGLang export dropped", path: sgl, base: dsv4SGLang, head: edit(t, dsv4SGLang, "export SGLANG_SIMULATE_ACC_LEN=2.62\n", ""),
			want:    []string{"SH013 " + sgl + ":2"},
			phrases: []string{"never exports `SGLANG_SIMULATE_ACC_LEN`", "Export `SGLANG_SIMULATE_ACC_LEN=2.62`"},
			sug:     "export SGLANG_SIMULATE_ACC_LEN=2.62\nexport SGLANG_SIMULATE_ACC_METHOD=match-expected\nSPEC_ARGS=(--speculative-algorithm EAGLE --speculative-num-steps 3)", sugLine: 2,
		},
		{
			name: "SGLang export for throughput runs only", path: sgl,
			head: edit(t, dsv4SGLang, "export SGLANG_SIMULATE_ACC_LEN=2.62\n", "if [ \"${EVAL_ONLY:-false}\" != \"true\" ]; then\n    export SGLANG_SIMULATE_ACC_LEN=2.62\nfi\n"),
		},
		{
			name: "SGLang draft length from num-draft-tokens", path: sgl,
			head: edit(t, dsv4SGLang, "--speculative-num-steps 3", "--speculative-num-draft-tokens 4"),
		},
		{
			name: "SGLang bare export after assignment", path: sgl,
			head:    edit(t, dsv4SGLang, "export SGLANG_SIMULATE_ACC_LEN=2.62\n", "SGLANG_SIMULATE_ACC_LEN=2.70\nexport SGLANG_SIMULATE_ACC_LEN\n"),
			want:    []string{"SH013 " + sgl + ":2"},
			phrases: []string{"`SGLANG_SIMULATE_ACC_LEN` (exported on line 3, value from line 2) pins `2.70`"},
			sug:     "SGLANG_SIMULATE_ACC_LEN=2.62", sugLine: 2,
		},

		{name: "TRT golden", path: trt, head: dsv4TRT},
		{
			name: "TRT wrong forced tokens", path: trt, base: dsv4TRT, head: edit(t, dsv4TRT, "TOKENS=2", "TOKENS=3"),
			want:    []string{"SH013 " + trt + ":3"},
			phrases: []string{"pins `3`", "is 2 (golden_al_distribution/dsv4_mtp.yaml:6: deepseek-v4-pro, thinking_on, 3 draft tokens, golden AL 2.62 minus the bonus token, rounded)"},
			sug:     "export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2", sugLine: 3,
		},
		{
			name: "TRT export dropped", path: trt, base: dsv4TRT, head: edit(t, dsv4TRT, "export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2\n", ""),
			want:    []string{"SH013 " + trt + ":4"},
			phrases: []string{"(`decoding_type: MTP`, line 4)", "Export `TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2`", "AL - 1, rounded"},
			sug:     "export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2\ncat > \"$CFG\" <<EOF", sugLine: 3,
		},
		{name: "TRT half-way AL accepts both neighbours (1)", path: glm, head: edit(t, dsv4TRT, "LAYERS=3", "LAYERS=2", "TOKENS=2", "TOKENS=1")},
		{name: "TRT half-way AL accepts both neighbours (2)", path: glm, head: edit(t, dsv4TRT, "LAYERS=3", "LAYERS=2")},
		{
			name: "TRT half-way AL, far off", path: glm, head: edit(t, dsv4TRT, "LAYERS=3", "LAYERS=2", "TOKENS=2", "TOKENS=3"),
			want:    []string{"SH013 " + glm + ":3"},
			phrases: []string{"is 1 or 2 ("},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// goldenBase has no recipes: a "" base makes the file new.
			base := withFile(goldenBase, tc.path, tc.base)
			head := withFile(goldenBase, tc.path, tc.head)
			fs := reviewRule(t, SH013, base, head)
			wantLocs(t, fs, tc.want)
			if len(fs) == 0 {
				return
			}
			mustContain(t, "message", fs[0].Body, tc.phrases...)
			if want := map[bool]checks.Severity{true: checks.Warning, false: checks.Blocking}[tc.warning]; fs[0].Severity != want {
				t.Errorf("severity %v, want %v", fs[0].Severity, want)
			}
			if f := fs[0]; f.Problem == "" || f.Why == "" || len(f.Steps) == 0 || f.Fix == "" {
				t.Errorf("reasoning parts missing: problem %q, why %q, %d steps, fix %q", f.Problem, f.Why, len(f.Steps), f.Fix)
			}
			s := fs[0].Suggestion
			switch {
			case tc.sug == "" && s != nil:
				t.Errorf("unexpected suggestion %+v", s)
			case tc.sug != "" && (s == nil || s.Replacement != tc.sug || s.Line != tc.sugLine):
				t.Errorf("suggestion %+v, want line %d %q", s, tc.sugLine, tc.sug)
			}
		})
	}
}

// The missing-synthetic suggestion keeps the JSON's quoting and spacing.
func TestAddSyntheticKeys(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{
			`vllm serve m --speculative-config '{"method": "mtp", "num_speculative_tokens": 3}' &`,
			`vllm serve m --speculative-config '{"method": "mtp", "num_speculative_tokens": 3, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.62}' &`,
		},
		{
			`vllm serve m --speculative-config "{\"method\":\"mtp\",\"num_speculative_tokens\":3}" &`,
			`vllm serve m --speculative-config "{\"method\":\"mtp\",\"num_speculative_tokens\":3,\"rejection_sample_method\":\"synthetic\",\"synthetic_acceptance_length\":2.62}" &`,
		},
	} {
		f := mustFacts(t, tc.src+"\n")
		s := addSyntheticKeys(f, f.JSON[0], "2.62")
		if s == nil || s.Replacement != tc.want {
			t.Errorf("addSyntheticKeys(%s) = %+v", tc.src, s)
		}
	}
}

func TestTRTTokens(t *testing.T) {
	for al, want := range map[float64][]int{2.62: {2}, 2.46: {1}, 2.50: {1, 2}, 1.2: {0}, 3.49: {2}} {
		if got := trtTokens(al); !cmp.Equal(got, want) {
			t.Errorf("trtTokens(%v) = %v, want %v", al, got, want)
		}
	}
}

func TestThinkingModes(t *testing.T) {
	for src, want := range map[string][2]bool{
		"vllm serve m\n": {true, false},
		"vllm serve m --default-chat-template-kwargs '{\"enable_thinking\": false}'\n":                       {false, true},
		"vllm serve m --default-chat-template-kwargs '{\"thinking_mode\": \"enabled\"}'\n":                   {true, false},
		"vllm serve m --default-chat-template-kwargs '{\"thinking\": true, \"x\": {\"thinking\": false}}'\n": {true, true},
	} {
		on, off := thinkingModes(mustFacts(t, src))
		if on != want[0] || off != want[1] {
			t.Errorf("thinkingModes(%s) = %v %v", src, on, off)
		}
	}
}

// Every pinned AL of the shared tree is judged against its golden curve:
// nudging any of them is reported at the line that pins it.
func TestSH013SharedTreeMutations(t *testing.T) {
	tree := readTree(t)
	tests := []struct {
		file, old, new string
		line           int
	}{
		{"kimik3_fp4_b300_vllm.sh", `"synthetic_acceptance_length": 2.39`, `"synthetic_acceptance_length": 2.40`, 29},
		{"minimaxm3_fp4_b300_vllm.sh", "SYNTHETIC_AL=2.74", "SYNTHETIC_AL=2.75", 29},
		{"dsv41flash_fp4_gb200_vllm.sh", `"synthetic_acceptance_length": 2.91`, `"synthetic_acceptance_length": 2.92`, 76},
		{"dsv4_fp4_b200_sglang.sh", "SIMULATE_ACC_LEN=2.62", "SIMULATE_ACC_LEN=2.63", 30},
		{"glm5.2_fp4_b300_sglang.sh", "SIMULATE_ACC_LEN=2.93", "SIMULATE_ACC_LEN=2.94", 26},
		{"qwen3.5_fp8_b200_sglang.sh", "SIMULATE_ACC_LEN=3.28", "SIMULATE_ACC_LEN=3.29", 30},
		{"dsv4_fp4_b200_trt.sh", "ACCEPTED_TOKENS=2", "ACCEPTED_TOKENS=1", 27},
		{"glm5.2_fp4_gb300_trt.sh", "ACCEPTED_TOKENS=1", "ACCEPTED_TOKENS=2", 26},
	}
	for _, tc := range tests {
		p := agenticDir + tc.file
		head := withFile(tree, p, edit(t, tree[p], tc.old, tc.new))
		want := []string{"SH013 " + p + ":" + strconv.Itoa(tc.line)}
		if diff := cmp.Diff(want, locs(reviewRule(t, SH013, tree, head))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.file, diff)
		}
	}
}

// brokenDirTree fails to list one directory, as a git tree whose object
// store is damaged does.
type brokenDirTree struct {
	checks.Tree
	dir string
}

func (b brokenDirTree) ReadDir(ctx context.Context, dir string) ([]checks.Entry, error) {
	if checks.CleanPath(dir) == b.dir {
		return nil, errors.New("object store unreadable")
	}
	return b.Tree.ReadDir(ctx, dir)
}

// A failure to read the siblings is the rule's error, not silently fewer
// citations.
func TestSH013SiblingErrorsReported(t *testing.T) {
	p := agenticDir + "kimik3_fp4_b300_vllm.sh"
	head := withFile(goldenBase, p, edit(t, kimiSpec, `, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.39`, ""))
	ch := checktest.Change(t, brokenDirTree{checks.NewMemTree(goldenBase), strings.TrimSuffix(agenticDir, "/")}, checks.NewMemTree(head))
	reg, err := checks.NewRegistry(SH013)
	if err != nil {
		t.Fatal(err)
	}
	res, err := checks.Review(context.Background(), reg, ch)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Error(), "siblings of "+p) {
		t.Errorf("errors %v", res.Errors)
	}
}
