package recipe

import (
	"strings"
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func TestSH003(t *testing.T) {
	const modPath = `\"kv_connector_module_path\":\"lmcache.integration.vllm.lmcache_mp_connector\",`
	noModule := strings.Replace(kitRecipe, modPath, "", 1)
	fooSibling := edit(t, kitRecipe,
		`'{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'`,
		`'{"kv_connector":"FooConnector","kv_connector_module_path":"foo.vllm.connector","kv_role":"kv_both"}'`)
	tests := []kitCase{
		{
			name: "LMCache without the module path, escaped JSON",
			head: noModule,
			want: []string{"SH003 " + kitTarget + ":33"},
			// The fix is the sibling's own line.
			sug: `        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"LMCacheMPConnector\",` + modPath + `\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"lmcache.mp.port\":6555}}")`,
			msg: []string{
				"The `lmcache)` arm names `LMCacheMPConnector` in its `--kv-transfer-config` (line 33) without `kv_connector_module_path`",
				"ships with the `lmcache` package",
				"All 3 siblings that use it set",
			},
		},
		{
			name: "single-quoted JSON",
			head: edit(t, noModule, `"{\"kv_connector\":\"LMCacheMPConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"lmcache.mp.port\":6555}}"`,
				`'{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both"}'`),
			want: []string{"SH003 " + kitTarget + ":33"},
			sug:  `        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"LMCacheMPConnector","kv_connector_module_path":"lmcache.integration.vllm.lmcache_mp_connector","kv_role":"kv_both"}')`,
		},
		{
			name: "spaced heredoc JSON on one line",
			head: edit(t, noModule, `        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"LMCacheMPConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"lmcache.mp.port\":6555}}")`,
				"        CFG=$(cat <<EOF\n{\"kv_connector\": \"LMCacheMPConnector\", \"kv_role\": \"kv_both\"}\nEOF\n)\n        OFFLOAD_ARGS=(--kv-transfer-config \"$CFG\")"),
			want: []string{"SH003 " + kitTarget + ":34"},
			sug:  `{"kv_connector": "LMCacheMPConnector", "kv_connector_module_path": "lmcache.integration.vllm.lmcache_mp_connector", "kv_role": "kv_both"}`,
		},
		{
			name: "multi-line heredoc: no suggestion",
			head: edit(t, noModule, `        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"LMCacheMPConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"lmcache.mp.port\":6555}}")`,
				"        CFG=$(cat <<EOF\n{\n  \"kv_connector\": \"LMCacheMPConnector\",\n  \"kv_role\": \"kv_both\"\n}\nEOF\n)\n        OFFLOAD_ARGS=(--kv-transfer-config \"$CFG\")"),
			want: []string{"SH003 " + kitTarget + ":35"},
		},
		{
			name: "module path present",
			head: edit(t, kitRecipe, "MAX_NUM_SEQS=$((2 * CONC))", "MAX_NUM_SEQS=$((3 * CONC))"),
		},
		{
			name: "in-tree connector needs no module path",
			head: edit(t, kitRecipe, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"`, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_producer"`),
		},
		{
			name: "missing before this PR",
			base: noModule,
			head: edit(t, noModule, "MAX_NUM_SEQS=$((2 * CONC))", "MAX_NUM_SEQS=$((3 * CONC))"),
		},
		{
			name:     "listed connector the siblings use without the key",
			head:     noModule,
			siblings: map[string]string{"a_b200_vllm.sh": noModule, "b_b300_vllm.sh": noModule, "c_h200_vllm.sh": noModule},
		},
		{
			name:     "connector inferred out-of-tree from the siblings",
			head:     edit(t, kitRecipe, `'{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'`, `'{"kv_connector":"FooConnector","kv_role":"kv_both"}'`),
			siblings: map[string]string{"a_b200_vllm.sh": fooSibling, "b_b300_vllm.sh": fooSibling},
			want:     []string{"SH003 " + kitTarget + ":29"},
			sug:      `        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"FooConnector","kv_connector_module_path":"foo.vllm.connector","kv_role":"kv_both"}')`,
			msg:      []string{"Every sibling that uses this connector sets the key", "Both siblings that use it set `\"kv_connector_module_path\":\"foo.vllm.connector\"`"},
		},
		{
			name:     "one sibling is not enough to infer it",
			head:     edit(t, kitRecipe, `'{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'`, `'{"kv_connector":"FooConnector","kv_role":"kv_both"}'`),
			siblings: map[string]string{"a_b200_vllm.sh": fooSibling},
		},
	}
	runKitCases(t, SH003, tests, func(t *testing.T, f checks.Finding) {
		if f.Suggestion != nil && f.Suggestion.Line != f.Line {
			t.Errorf("suggestion at line %d, finding at %d", f.Suggestion.Line, f.Line)
		}
	})
}
