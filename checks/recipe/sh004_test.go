package recipe

import (
	"strings"
	"testing"
)

// mooncakeSized configures MooncakeStoreConnector with an extra config.
var mooncakeSized = strings.Replace(kitRecipe, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"`, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both","kv_connector_extra_config":{"global_segment_size":1}`, 1)

func TestSH004(t *testing.T) {
	perRank := strings.Replace(kitRecipe, `"cpu_bytes_to_use":1000`, `"cpu_bytes_to_use_per_rank":1000`, 1)
	tests := []kitCase{
		{
			name: "per-rank key no sibling uses",
			head: perRank,
			want: []string{"SH004 " + kitTarget + ":24"},
			sug:  strings.Split(kitRecipe, "\n")[23],
			msg: []string{
				"`cpu_bytes_to_use_per_rank` (line 24) is not a key any sibling passes to `SimpleCPUOffloadConnector`",
				"the 3 sibling recipes that configure it use `cpu_bytes_to_use` and `lazy_offload`",
				"permissive dict",
				"Did you mean `cpu_bytes_to_use`?",
			},
		},
		{
			name: "a key far from any known one: named, no suggestion",
			head: strings.Replace(kitRecipe, `"lazy_offload":true`, `"lazy_offload":true,"zz":1`, 1),
			want: []string{"SH004 " + kitTarget + ":24"},
		},
		{
			name: "known keys",
			head: strings.Replace(kitRecipe, `"cpu_bytes_to_use":1000`, `"cpu_bytes_to_use":2000`, 1),
		},
		{
			name: "dotted key the siblings use",
			head: strings.Replace(kitRecipe, `lmcache.mp.port\":6555`, `lmcache.mp.port\":6556`, 1),
		},
		{
			name: "dotted key misspelt",
			head: strings.Replace(kitRecipe, `lmcache.mp.port\":6555`, `lmcache.mp_port\":6555`, 1),
			want: []string{"SH004 " + kitTarget + ":33"},
			sug:  strings.Replace(strings.Split(kitRecipe, "\n")[32], `lmcache.mp_port`, `lmcache.mp.port`, 1),
		},
		{
			name:     "a key another connector reads is still unknown for this one",
			head:     strings.Replace(kitRecipe, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"`, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":1}`, 1),
			siblings: map[string]string{"a_b200_vllm.sh": mooncakeSized, "b_b300_vllm.sh": mooncakeSized},
			want:     []string{"SH004 " + kitTarget + ":29"},
			msg:      []string{"the 2 sibling recipes that configure it use `global_segment_size`"},
		},
		{
			name: "connector the siblings never configure: no vocabulary to compare with",
			head: strings.Replace(kitRecipe, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"`, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both","kv_connector_extra_config":{"lazy_offload":true}`, 1),
		},
		{
			name:     "only one sibling configures the connector",
			head:     perRank,
			siblings: map[string]string{"a_b200_vllm.sh": perRank, "b_b300_vllm.sh": perRank},
		},
		{
			name: "key passed before this PR",
			base: perRank,
			head: edit(t, perRank, "MAX_NUM_SEQS=$((2 * CONC))", "MAX_NUM_SEQS=$((3 * CONC))", `"lazy_offload":true`, `"lazy_offload":true `),
		},
	}
	runKitCases(t, SH004, tests, nil)
}
