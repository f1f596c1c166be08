package recipe

// What the recipe rules' tests share: building and reviewing a change,
// editing fixtures, the kit recipe tree most SH tests start from, and
// comparing findings.

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/internal/checktest"
	"github.com/reviewbot-dev/reviewbot/checks/recipe/script"
)

// reviewRule reviews the change from base to head (path → content) with
// rule alone and returns its findings.
func reviewRule(t *testing.T, rule *checks.Rule, base, head map[string]string) []checks.Finding {
	t.Helper()
	return reviewPR(t, rule, 1, base, head)
}

// reviewPR is reviewRule with a PR number (0: unknown).
func reviewPR(t *testing.T, rule *checks.Rule, number int, base, head map[string]string) []checks.Finding {
	t.Helper()
	ch := checktest.Change(t, checks.NewMemTree(base), checks.NewMemTree(head))
	ch.PR = checks.PRInfo{Number: number}
	return checktest.Review(t, ch, rule).Findings
}

// testChange builds a change from base to head (path → content) with the
// default configuration resolved.
func testChange(t *testing.T, base, head map[string]string) *checks.Change {
	t.Helper()
	ch := checktest.Change(t, checks.NewMemTree(base), checks.NewMemTree(head))
	cfg := &checks.Config{}
	if err := cfg.ResolveLayout(t.Context(), ch.Base, ch.Head); err != nil {
		t.Fatal(err)
	}
	ch.Config = cfg
	return ch
}

// withFile returns a copy of files with p set to content ("" deletes it).
func withFile(files map[string]string, p, content string) map[string]string {
	out := make(map[string]string, len(files)+1)
	for k, v := range files {
		out[k] = v
	}
	if content == "" {
		delete(out, p)
	} else {
		out[p] = content
	}
	return out
}

// setFiles sets path/content pairs in files and returns it.
func setFiles(files map[string]string, pairs ...string) map[string]string {
	for i := 0; i+1 < len(pairs); i += 2 {
		files[pairs[i]] = pairs[i+1]
	}
	return files
}

// edit applies old→new replacements to s and fails when one does not
// apply, so a test cannot silently stop testing what it says.
func edit(t *testing.T, s string, pairs ...string) string {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("edit: %q not found", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

// locs renders findings as "RULE path:line" for comparison.
func locs(fs []checks.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Rule+" "+f.Path+":"+strconv.Itoa(f.Line))
	}
	return out
}

// wantLocs stops the test unless the findings are exactly at want
// ("RULE path:line"; nil for none), logging what they said.
func wantLocs(t *testing.T, fs []checks.Finding, want []string) {
	t.Helper()
	if diff := cmp.Diff(append([]string{}, want...), locs(fs)); diff != "" {
		for _, f := range fs {
			t.Log(f.Body)
		}
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
}

// mustContain fails for each phrase s lacks.
func mustContain(t *testing.T, what, s string, phrases ...string) {
	t.Helper()
	for _, p := range phrases {
		if !strings.Contains(s, p) {
			t.Errorf("%s lacks %q:\n%s", what, p, s)
		}
	}
}

// wantSuggestion fails unless f suggests replacing with want, or, when
// want is "", suggests nothing.
func wantSuggestion(t *testing.T, f checks.Finding, want string) {
	t.Helper()
	switch {
	case want == "":
		if f.Suggestion != nil {
			t.Errorf("unexpected suggestion %+v", f.Suggestion)
		}
	case f.Suggestion == nil || f.Suggestion.Replacement != want:
		t.Errorf("suggestion = %+v\nwant %s", f.Suggestion, want)
	}
}

func mustFacts(t *testing.T, src string) *script.Facts {
	t.Helper()
	f, err := script.Parse("x.sh", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// readTree loads the shared fixture tree into memory.
func readTree(t *testing.T) map[string]string {
	t.Helper()
	root := "../../testdata/trees/inferencex"
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

const agenticDir = "benchmarks/single_node/agentic/"

// kitRecipe is a small vLLM agentic recipe in the shape of the real ones:
// strict mode, a DP-attention branch, a case over the offload backends and
// an array-built server command.
const kitRecipe = `#!/usr/bin/env bash
set -euo pipefail

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC DP_ATTENTION RESULT_DIR

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

if [ "$DP_ATTENTION" = "true" ]; then
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC / TP))
else
    PARALLEL_ARGS=(--tensor-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC))
fi

OFFLOAD_ARGS=()
case "${KV_OFFLOAD_BACKEND:-}" in
    vllm-simple)
        export VLLM_USE_SIMPLE_KV_OFFLOAD=1
        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":1000,"lazy_offload":true}}')
        ;;
    mooncake)
        # VLLM_USE_SIMPLE_KV_OFFLOAD would swap in SimpleCPUOffloadConnector.
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}')
        ;;
    lmcache)
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"LMCacheMPConnector\",\"kv_connector_module_path\":\"lmcache.integration.vllm.lmcache_mp_connector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"lmcache.mp.port\":6555}}")
        ;;
    none|"")
        ;;
esac

VLLM_CMD=(
    vllm serve "$MODEL"
    "${PARALLEL_ARGS[@]}"
    --max-num-seqs "$MAX_NUM_SEQS"
    --max-cudagraph-capture-size "$MAX_NUM_SEQS"
    "${OFFLOAD_ARGS[@]}"
)
"${VLLM_CMD[@]}" > "$RESULT_DIR/server.log" 2>&1 &
`

// kitTree is a directory of three sibling recipes and the target t_vllm.sh,
// all equal to kitRecipe.
func kitTree() map[string]string {
	return map[string]string{
		agenticDir + "a_b200_vllm.sh": kitRecipe,
		agenticDir + "b_b300_vllm.sh": kitRecipe,
		agenticDir + "c_h200_vllm.sh": kitRecipe,
		agenticDir + "t_b300_vllm.sh": kitRecipe,
	}
}

const kitTarget = agenticDir + "t_b300_vllm.sh"

// reviewKit reviews rule over kitTree changed at p (kitTarget when ""):
// siblings replaces sibling contents (name under agenticDir → content),
// base replaces p's base ("" keeps kitTree's, so a new p has none) and
// head is p's head.
func reviewKit(t *testing.T, rule *checks.Rule, p, base, head string, siblings map[string]string) []checks.Finding {
	t.Helper()
	if p == "" {
		p = kitTarget
	}
	b := kitTree()
	for name, c := range siblings {
		b = withFile(b, agenticDir+name, c)
	}
	if base != "" {
		b = withFile(b, p, base)
	}
	return reviewRule(t, rule, b, withFile(b, p, head))
}

// kitCase is a change to kitTree's target and what a rule must say of it.
type kitCase struct {
	name     string
	base     string            // the target's base ("" keeps kitRecipe)
	head     string            // the target's head
	siblings map[string]string // sibling contents replaced, by name
	want     []string          // "RULE path:line"
	sug      string            // the suggested replacement ("" = none)
	msg      []string          // phrases of the message
	details  []string          // phrases of the details
}

// runKitCases reviews each case with rule; a single finding must have the
// case's phrases and suggestion, and passes check when there is one.
func runKitCases(t *testing.T, rule *checks.Rule, cases []kitCase, check func(t *testing.T, f checks.Finding)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := reviewKit(t, rule, "", tc.base, tc.head, tc.siblings)
			wantLocs(t, fs, tc.want)
			if len(fs) != 1 {
				return
			}
			f := fs[0]
			mustContain(t, "message", f.Body, tc.msg...)
			mustContain(t, "details", f.Reasoning(), tc.details...)
			wantSuggestion(t, f, tc.sug)
			if check != nil {
				check(t, f)
			}
		})
	}
}

// suggested returns the line and replacement of f's suggestion, or 0 and
// "<none>".
func suggested(f checks.Finding) (int, string) {
	if f.Suggestion == nil {
		return 0, "<none>"
	}
	return f.Suggestion.Line, f.Suggestion.Replacement
}
