package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestPipelineCommand(t *testing.T) {
	const fx = "../../testdata/prs/pl001-script-deleted-row-still-runs-it"
	run := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := runPipeline(args, &out, &errb)
		return out.String(), errb.String(), code
	}

	out, stderr, code := run("--fixture", fx)
	if code != exitOK {
		t.Fatalf("overview: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"master configs: configs/nvidia-master.yaml", "runner labels: configs/runners.yaml",
		"Rows that run no benchmark on some runner group (1):", "dsr1-fp4-b200-sglang-mtp (configs/nvidia-master.yaml:34)"} {
		if !strings.Contains(out, want) {
			t.Errorf("overview lacks %q:\n%s", want, out)
		}
	}

	// At the base the script exists: the row, its runner, launcher, script
	// and what flows in.
	out, stderr, code = run("--fixture", fx, "--base", "qwen3.5*")
	if code != exitOK {
		t.Fatalf("key: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"qwen3.5-fp8-h100-sglang\n", "row configs/nvidia-master.yaml:", "h100: h100-cr_0 → runners/launch_h100-cr.sh",
		"runs script benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h100.sh (exists) at runners/launch_h100-cr.sh:",
		"reads MODEL, TP, CONC", "check_env_vars at benchmarks/single_node/fixed_seq_len/qwen3.5_fp8_h100.sh:"} {
		if !strings.Contains(out, want) {
			t.Errorf("key output lacks %q:\n%s", want, out)
		}
	}

	// At the head the MTP script of dsr1-fp4-b200-sglang-mtp is gone.
	out, _, _ = run("--fixture", fx, "dsr1-fp4-b200-sglang-mtp")
	if !strings.Contains(out, "(MISSING)") || !strings.Contains(out, "RUNS NO BENCHMARK") {
		t.Errorf("head: the deleted script should show as missing:\n%s", out)
	}

	out, stderr, code = run("--fixture", fx, "--format", "json", "qwen3.5-fp8-h100-sglang")
	var reports []map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &reports) != nil || len(reports) == 0 || reports[0]["key"] != "qwen3.5-fp8-h100-sglang" {
		t.Errorf("json: exit %d, %s %s", code, out, stderr)
	}

	if _, stderr, code = run("--fixture", fx, "no-such-key"); code == exitOK || !strings.Contains(stderr, `no config key matches "no-such-key"`) {
		t.Errorf("unknown key: exit %d, %q", code, stderr)
	}
	if _, _, code = run("--base"); code == exitOK {
		t.Error("--base without --fixture should fail")
	}
}
