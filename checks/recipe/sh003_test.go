package recipe

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSH003(t *testing.T) {
	const modPath = `\"kv_connector_module_path\":\"lmcache.integration.vllm.lmcache_mp_connector\",`
	noModule := strings.Replace(kitRecipe, modPath, "", 1)
	fooSibling := edit(t, kitRecipe,
		`'{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'`,
		`'{"kv_connector":"FooConnector","kv_connector_module_path":"foo.vllm.connector","kv_role":"kv_both"}'`)
	tests := []struct {
		name     string
		base     string
		head     string
		siblings map[string]string
		want     []string
		sug      string // expected suggestion ("" = none expected)
		msg      []string
	}{
		{
			name: "LMCache without the module path, escaped JSON",
			head: noModule,
			want: []string{"SH003 " + kitTarget + ":33"},
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
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := kitTree()
			for name, c := range tc.siblings {
				base = withFile(base, agenticDir+name, c)
			}
			if tc.base != "" {
				base = withFile(base, kitTarget, tc.base)
			}
			head := withFile(base, kitTarget, tc.head)
			fs := reviewRule(t, SH003, base, head)
			want := tc.want
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, locs(fs)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			if len(fs) != 1 {
				return
			}
			f := fs[0]
			for _, m := range tc.msg {
				if !strings.Contains(f.Message, m) {
					t.Errorf("message lacks %q:\n%s", m, f.Message)
				}
			}
			switch {
			case tc.name == "LMCache without the module path, escaped JSON":
				// The fix is the sibling's own line.
				want := `        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"LMCacheMPConnector\",` + modPath + `\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"lmcache.mp.port\":6555}}")`
				if f.Suggestion == nil || f.Suggestion.Replacement != want {
					t.Errorf("suggestion = %+v\nwant %s", f.Suggestion, want)
				}
			case tc.sug == "":
				if f.Suggestion != nil {
					t.Errorf("unexpected suggestion %+v", f.Suggestion)
				}
			default:
				if f.Suggestion == nil || f.Suggestion.Replacement != tc.sug || f.Suggestion.Line != f.Line {
					t.Errorf("suggestion = %+v\nwant %s", f.Suggestion, tc.sug)
				}
			}
		})
	}
}
