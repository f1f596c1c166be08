package recipe

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// warnedRecipe is a sibling that documents why it passes lazy_offload.
var warnedRecipe = strings.Replace(kitRecipe, exportLine,
	"        # JSON form so that lazy_offload=true can be passed. Eager mode\n"+
		"        # (lazy_offload false) hits a popleft_n AssertionError at low\n"+
		"        # concurrency with this connector.\n"+exportLine, 1)

func TestSH005(t *testing.T) {
	eager := strings.Replace(kitRecipe, `"lazy_offload":true`, `"lazy_offload":false`, 1)
	tests := []kitCase{
		{
			name:     "eager mode against a documented assertion",
			head:     eager,
			siblings: map[string]string{"c_h200_vllm.sh": warnedRecipe},
			want:     []string{"SH005 " + kitTarget + ":24"},
			sug:      strings.Split(kitRecipe, "\n")[23],
		},
		{
			name:     "heredoc JSON with spaces",
			head:     edit(t, kitRecipe, `        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":1000,"lazy_offload":true}}')`, "        CFG=$(cat <<EOF\n{\n  \"kv_connector\": \"SimpleCPUOffloadConnector\",\n  \"kv_connector_extra_config\": {\"lazy_offload\": false}\n}\nEOF\n)\n        OFFLOAD_ARGS=(--kv-transfer-config \"$CFG\")"),
			siblings: map[string]string{"c_h200_vllm.sh": warnedRecipe},
			want:     []string{"SH005 " + kitTarget + ":27"},
			sug:      `  "kv_connector_extra_config": {"lazy_offload": true}`,
		},
		{
			name: "no comment documents the failure",
			head: eager,
		},
		{
			name:     "lazy offload stays on",
			head:     strings.Replace(kitRecipe, `"cpu_bytes_to_use":1000`, `"cpu_bytes_to_use":2000`, 1),
			siblings: map[string]string{"c_h200_vllm.sh": warnedRecipe},
		},
		{
			name:     "a string \"false\" is not the boolean",
			head:     strings.Replace(kitRecipe, `"lazy_offload":true`, `"lazy_offload":"false"`, 1),
			siblings: map[string]string{"c_h200_vllm.sh": warnedRecipe},
		},
		{
			name:     "eager before this PR",
			base:     eager,
			head:     strings.Replace(eager, `"cpu_bytes_to_use":1000`, `"cpu_bytes_to_use":2000`, 1),
			siblings: map[string]string{"c_h200_vllm.sh": warnedRecipe},
		},
		{
			name:     "another connector's lazy_offload is not judged",
			head:     strings.Replace(kitRecipe, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"`, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both","kv_connector_extra_config":{"lazy_offload":false}`, 1),
			siblings: map[string]string{"c_h200_vllm.sh": warnedRecipe},
		},
	}
	runKitCases(t, SH005, tests, func(t *testing.T, f checks.Finding) {
		mustContain(t, "message", f.Body,
			"runs `SimpleCPUOffloadConnector` in eager mode, which `c_h200_vllm.sh:23-25` documents as failing",
			"“Eager mode (lazy_offload false) hits a popleft_n AssertionError at low concurrency with this connector.”",
			"Set it to `true`.")
		if len(f.Related) == 0 || f.Related[0].Path != agenticDir+"c_h200_vllm.sh" || f.Related[0].Line != 23 || f.Related[0].EndLine != 25 {
			t.Errorf("first evidence should be the comment: %+v", f.Related)
		}
	})
}

func TestQuoteSentence(t *testing.T) {
	got := quoteSentence("JSON form so that lazy_offload=true can be passed. Eager mode\nhits an AssertionError. Done.")
	if got != "“Eager mode hits an AssertionError.”" {
		t.Errorf("quoteSentence = %q", got)
	}
	if got := quoteSentence("eager is slow"); got != "“eager is slow”" {
		t.Errorf("quoteSentence = %q", got)
	}
}

func TestCommentCovers(t *testing.T) {
	sibs := []*Sibling{{Path: "a/dsv4_fp4_b200_vllm.sh"}, {Path: "a/kimik2.5_int4_h200.sh"}, {Path: "a/dsv41flash_fp4_gb200_vllm.sh"}}
	tests := []struct {
		text, model string
		want        bool
	}{
		{"Eager mode hits a popleft_n AssertionError at low/mid CONC on DSv4 + SimpleCPUOffloadConnector.", "dsv4", true},
		{"Eager mode hits a popleft_n AssertionError at low/mid CONC on DSv4 + SimpleCPUOffloadConnector.", "kimik3", false},
		{"Eager mode hits a popleft_n AssertionError on DeepSeek-V4 with this connector.", "kimik2.5", false},
		{"Eager mode hits a popleft_n AssertionError on DeepSeek-V4 with this connector.", "dsv4", true},
		{"Eager mode (lazy_offload false) hits a popleft_n AssertionError at low concurrency.", "kimik3", true},
		{"Seen on Kimi-K2.5 only: eager mode asserts in popleft_n.", "kimik2.5", true},
	}
	for _, tt := range tests {
		if got := commentCovers(tt.text, tt.model, sibs); got != tt.want {
			t.Errorf("commentCovers(%q, %s) = %v, want %v (named %v)", tt.text, tt.model, got, tt.want, modelsNamed(tt.text, sibs, tt.model))
		}
	}
}
