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
			// Nothing says it is wrong: it may be a newer connector's knob.
			name: "a key far from any known one",
			head: strings.Replace(kitRecipe, `"lazy_offload":true`, `"lazy_offload":true,"zz":1`, 1),
		},
		{
			name: "a typo of a sibling key",
			head: strings.Replace(kitRecipe, `"lazy_offload":true`, `"lazy_ofload":true`, 1),
			want: []string{"SH004 " + kitTarget + ":24"},
			msg:  []string{"Did you mean `lazy_offload`?"},
			sug:  strings.Split(kitRecipe, "\n")[23],
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
			// Another connector's key resembles nothing Mooncake reads.
			name:     "a key another connector reads, far from this one's keys",
			head:     strings.Replace(kitRecipe, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"`, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":1}`, 1),
			siblings: map[string]string{"a_b200_vllm.sh": mooncakeSized, "b_b300_vllm.sh": mooncakeSized},
		},
		{
			// The engine reads lookup_async although no sibling passes it;
			// sharing "async" with load_async makes it no typo of it.
			name:     "a key the engine reads that no sibling passes",
			head:     strings.Replace(kitRecipe, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"`, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both","kv_connector_extra_config":{"lookup_async":true,"enable_offload":false}`, 1),
			siblings: map[string]string{"a_b200_vllm.sh": mooncakeSized, "b_b300_vllm.sh": mooncakeSized},
		},
		{
			name:     "a variant of a sibling key, another connector's siblings",
			head:     strings.Replace(kitRecipe, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"`, `"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both","kv_connector_extra_config":{"global_segment_size_per_rank":1}`, 1),
			siblings: map[string]string{"a_b200_vllm.sh": mooncakeSized, "b_b300_vllm.sh": mooncakeSized},
			want:     []string{"SH004 " + kitTarget + ":29"},
			msg:      []string{"the 2 sibling recipes that configure it use `global_segment_size`", "Did you mean `global_segment_size`?"},
			details:  []string{"`global_segment_size` with `_per_rank` added"},
			sug:      `        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both","kv_connector_extra_config":{"global_segment_size":1}}')`,
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
