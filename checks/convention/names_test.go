package convention

import (
	"testing"

	"github.com/reviewbot-dev/reviewbot/checks"
)

func TestCanonFlag(t *testing.T) {
	tests := map[string]string{
		"--tensor-parallel-size":     "--tensor-parallel-size",
		"--tp":                       "--tensor-parallel-size",
		"-tp":                        "--tensor-parallel-size",
		"--tp-size":                  "--tensor-parallel-size",
		"--tp_size":                  "--tensor-parallel-size",
		"--dp":                       "--data-parallel-size",
		"--dp-size":                  "--data-parallel-size",
		"--data_parallel_size":       "--data-parallel-size",
		"--ep-size":                  "--expert-parallel-size",
		"--kv_offloading_backend":    "--kv-offloading-backend",
		"--no-enable-prefix-caching": "--enable-prefix-caching",
		"--attention-config.backend": "--attention-config",
		"--max-num-seqs=8":           "--max-num-seqs",
		"--no":                       "--no",
	}
	for in, want := range tests {
		if got := canonFlag(in); got != want {
			t.Errorf("canonFlag(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDottedKey(t *testing.T) {
	tests := []struct {
		in        string
		flag, key string
		ok        bool
	}{
		{"--attention-config.indexer-kv-dtype", "--attention-config", "indexer_kv_dtype", true},
		{"--attention-config.indexer_kv_dtype", "--attention-config", "indexer_kv_dtype", true},
		{"--compilation_config.cudagraph_mode=FULL", "--compilation-config", "cudagraph_mode", true},
		{"--attention-config", "", "", false},
		{"--x.", "", "", false},
		{"-O.level", "", "", false},
	}
	for _, tc := range tests {
		flag, key, ok := dottedKey(tc.in)
		if flag != tc.flag || key != tc.key || ok != tc.ok {
			t.Errorf("dottedKey(%q) = %q, %q, %v; want %q, %q, %v", tc.in, flag, key, ok, tc.flag, tc.key, tc.ok)
		}
	}
}

func TestNameRelated(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"--tool-call-parser", "--enable-auto-tool-choice", true},
		{"--speculative-algorithm", "--speculative-num-steps", true},
		{"--hicache-size", "--enable-hierarchical-cache", true},
		{"--kv-offloading-backend", "--kv-offloading-size", true},
		// Only words of the kind of setting in common: not related.
		{"--tool-call-parser", "--reasoning-parser", false},
		{"--max-num-seqs", "--max-model-len", false},
		{"--data-parallel-size", "--tensor-parallel-size", false},
		{"--kv-cache-dtype", "--enable-hierarchical-cache", false},
		{"--attention-backend", "--enable-dp-attention", false},
		{"--quantization", "--hicache-size", false},
		{"--cuda-graph-max-bs", "--max-prefill-tokens", false},
		{"--tool-call-parser", "--tool-call-parser", false},
	}
	for _, tc := range tests {
		if got := nameRelated(canonFlag(tc.a), canonFlag(tc.b)); got != tc.want {
			t.Errorf("nameRelated(%s, %s) = %v, want %v (tokens %v / %v)", tc.a, tc.b, got, tc.want,
				contentTokens(canonFlag(tc.a)), contentTokens(canonFlag(tc.b)))
		}
	}
}

func TestFamily(t *testing.T) {
	tests := map[string]string{
		"benchmarks/single_node/agentic/dsv4_fp4_b200_vllm_mtp.sh":           "dsv4/nvidia",
		"benchmarks/single_node/fixed_seq_len/dsv4_fp4_b300_vllm.sh":         "dsv4/nvidia",
		"benchmarks/single_node/agentic/dsv4_fp4_mi355x_vllm_mtp.sh":         "dsv4/amd",
		"benchmarks/single_node/agentic/qwen3.5_fp8_h200_mtp.sh":             "qwen35/nvidia",
		"benchmarks/single_node/speedbench/glm52_fp4_b300_vllm.sh":           "glm52/nvidia",
		"benchmarks/single_node/agentic/glm5.2_fp4_b200_sglang_mtp.sh":       "glm52/nvidia",
		"benchmarks/multi_node/amd_utils/server.sh":                          "server/amd",
		"benchmarks/single_node/fixed_seq_len/deprecated/gptoss_fp4_h100.sh": "gptoss/nvidia",
	}
	for in, want := range tests {
		if got := family(in); got != want {
			t.Errorf("family(%q) = %q, want %q", in, got, want)
		}
	}
	if !checks.InDeprecated("benchmarks/single_node/fixed_seq_len/deprecated/gptoss_fp4_h100.sh") ||
		checks.InDeprecated("benchmarks/single_node/agentic/dsv4_fp4_b200_vllm.sh") {
		t.Error("deprecated/ not recognized")
	}
}

func TestJudgedBy(t *testing.T) {
	tests := []struct {
		c    cand
		path string
		want string
	}{
		{cand{t: tArmEnv, slot: "--kv-transfer-config kv_connector", val: "SimpleCPUOffloadConnector", y: "export VLLM_USE_SIMPLE_KV_OFFLOAD"}, "", "SH002"},
		{cand{t: tArmEnv, slot: "--kv-transfer-config kv_connector", val: "MooncakeStoreConnector", y: "export MOONCAKE_CONFIG_PATH"}, "", ""},
		{cand{t: tObject, slot: "--kv-transfer-config kv_connector", val: "LMCacheMPConnector", y: "kv_connector_module_path"}, "", "SH003"},
		{cand{t: tFlagPair, slot: "--tool-call-parser", y: "--enable-auto-tool-choice"}, "benchmarks/single_node/fixed_seq_len/x.sh", "SH006"},
		{cand{t: tFlagPair, slot: "--speculative-algorithm", y: "--speculative-num-steps"}, "", ""},
		{cand{t: tFlagJSON, slot: "--speculative-config", y: "synthetic_acceptance_length"}, agenticDir + "/x.sh", "SH013"},
		{cand{t: tFlagJSON, slot: "--speculative-config", y: "synthetic_acceptance_length"}, "benchmarks/single_node/fixed_seq_len/x.sh", ""},
		{cand{t: tFlagJSON, slot: "--speculative-config", y: "num_speculative_tokens"}, agenticDir + "/x.sh", ""},
	}
	for _, tc := range tests {
		if got := judgedBy(tc.c, tc.path); got != tc.want {
			t.Errorf("judgedBy(%+v, %q) = %q, want %q", tc.c, tc.path, got, tc.want)
		}
	}
}
