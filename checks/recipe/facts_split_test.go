package recipe

import "testing"

// A scalar holding an option and its JSON value, spliced unquoted into the
// server command, is word-split by the shell: the JSON is the option's
// value and is read as a config (once, however often the command is
// expanded).
func TestSplitScalarJSON(t *testing.T) {
	src := `#!/usr/bin/env bash
OFFLOAD_ARGS=""
if require_agentic_kv_offload_backend vllm-simple; then
    export VLLM_USE_SIMPLE_KV_OFFLOAD=1
    OFFLOAD_ARGS="--kv-transfer-config {\"kv_connector\":\"SimpleCPUOffloadConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"cpu_bytes_to_use\":$BYTES,\"lazy_offload\":true}}"
fi
vllm serve "$MODEL" --tensor-parallel-size "$TP" $OFFLOAD_ARGS &
`
	f := mustFacts(t, src)
	ks := kvConfigsOf(f, simpleConnector)
	if len(f.JSON) != 1 || len(ks) != 1 {
		t.Fatalf("JSON configs %d, SimpleCPU configs %d; want 1 and 1", len(f.JSON), len(ks))
	}
	j := ks[0].JSON
	if e, ok := j.Entry(extraConfigKey + ".cpu_bytes_to_use"); !ok || !e.Dynamic || e.Value != "$BYTES" {
		t.Errorf("cpu_bytes_to_use = %+v, %v; want the dynamic $BYTES", e, ok)
	}
	if v, _, ok := j.Get(lazyKey); !ok || v != "true" {
		t.Errorf("lazy_offload = %q, %v", v, ok)
	}
	if j.Line != 5 || armKeys(j.Branch)[0] != "KV_OFFLOAD_BACKEND=vllm-simple" {
		t.Errorf("line %d, arms %v", j.Line, armKeys(j.Branch))
	}
	if _, ok := simpleExport(f, j.Branch); !ok {
		t.Error("the export on the same branch is not seen as covering the config")
	}
}

func TestCStyleLoopBindsItsVariable(t *testing.T) {
	f := mustFacts(t, "#!/usr/bin/env bash\nset -euo pipefail\nSIZES=\"\"\nfor ((i = 1; i <= ${MAX:-4}; i++)); do\n    SIZES+=\"$i\"\ndone\necho \"$SIZES $UNSET_ONE\"\n")
	var names []string
	for _, r := range f.UnguardedReads() {
		names = append(names, r.Name)
	}
	if len(names) != 1 || names[0] != "UNSET_ONE" {
		t.Errorf("unguarded reads %v, want only UNSET_ONE", names)
	}
}
