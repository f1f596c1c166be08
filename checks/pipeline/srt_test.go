package pipeline

import (
	"testing"
)

func TestTPAgrees(t *testing.T) {
	s := func(v string) Setting { return Setting{Value: v, Line: 1} }
	for _, c := range []struct {
		row  map[string]any
		role SrtRole
		want bool
	}{
		{map[string]any{"tp": 8}, SrtRole{TP: s("8")}, true},
		{map[string]any{"tp": 8}, SrtRole{TP: s("4")}, false},
		// DEP: the row's tp is the worker's GPUs, tp × dp.
		{map[string]any{"tp": 2, "dp-attn": true}, SrtRole{TP: s("1"), DP: s("2")}, true},
		{map[string]any{"tp": 16}, SrtRole{TP: s("8"), PP: s("2")}, true},
		// Context parallelism counts GPUs differently per engine: not judged.
		{map[string]any{"tp": 1, "pcp-size": 8}, SrtRole{TP: s("8")}, true},
		{map[string]any{"tp": 1}, SrtRole{TP: s("8"), CP: s("8")}, true},
		{map[string]any{}, SrtRole{TP: s("8")}, true},
	} {
		role := c.role
		if got := tpAgrees(c.row, &role); got != c.want {
			t.Errorf("row %v, recipe %+v: got %v", c.row, c.role, got)
		}
	}
}

func TestRecipeOffload(t *testing.T) {
	rec, err := ParseSrtRecipe("r.yaml", []byte(`backend:
  mooncake_kv_store:
    store_config: {global_segment_size: "180GB"}
  vllm_config:
    prefill:
      tensor-parallel-size: 4
      kv-transfer-config: '{"kv_connector":"MultiConnector","kv_connector_extra_config":{"connectors":[{"kv_connector":"NixlConnector"},{"kv_connector":"MooncakeStoreConnector"}]}}'
    decode:
      tensor-parallel-size: 4
      kv-offloading-size: 64
  trtllm_config:
    agg:
      tensor_parallel_size: 8
      kv_cache_config: {host_cache_size: 137438953472}
`))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Roles["prefill"].Offload.Set() {
		t.Error("a Mooncake store is not read as host offload (it also carries P/D transfers)")
	}
	if !rec.OffloadHint {
		t.Error("the Mooncake store should still count as a hint of offload")
	}
	if !rec.Roles["decode"].Offload.Set() || !rec.Roles["agg"].Offload.Set() {
		t.Errorf("kv-offloading-size and host_cache_size are host offload: %+v %+v", rec.Roles["decode"], rec.Roles["agg"])
	}
}
