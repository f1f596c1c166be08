package recipe

import "testing"

func TestSH033(t *testing.T) {
	const dir = "benchmarks/single_node/"
	const bf16 = dir + "qwen3.5_bf16_mi355x_atom.sh"
	const fp8 = dir + "qwen3.5_fp8_mi355x_atom.sh"
	atom := func(opts string) string {
		return "#!/usr/bin/env bash\nset -euo pipefail\npython3 -m atom.entrypoints.openai_server \\\n" +
			"    --model \"$MODEL\" \\\n    --tensor-parallel-size \"$TP\" \\\n" + opts +
			"    --max-model-len 9472 > server.log 2>&1 &\n"
	}
	fp8Recipe := atom("    --kv_cache_dtype fp8 \\\n")
	tests := []struct {
		name       string
		base, head map[string]string
		want       []string
		phrases    []string
		related    bool
	}{
		{name: "a BF16 copy of the FP8 recipe keeps its FP8 KV cache",
			base: map[string]string{fp8: fp8Recipe}, head: map[string]string{fp8: fp8Recipe, bf16: atom("    --kv_cache_dtype fp8 \\\n")},
			want:    []string{"SH033 " + bf16 + ":6"},
			phrases: []string{"`--kv_cache_dtype fp8`", "an FP8 KV cache", "`benchmarks/single_node/qwen3.5_fp8_mi355x_atom.sh` passes the same option"},
			related: true},
		{name: "FP8 quantization with no recipe to have copied it from",
			head:    map[string]string{dir + "llama3_bf16_h200_vllm.sh": "#!/usr/bin/env bash\nvllm serve \"$MODEL\" --quantization fp8 --port 8000\n"},
			want:    []string{"SH033 " + dir + "llama3_bf16_h200_vllm.sh:2"},
			phrases: []string{"FP8 quantization"}},
		{name: "SGLang's fp8_e4m3 spelling",
			head: map[string]string{dir + "glm5_bf16_b200_sglang.sh": "#!/usr/bin/env bash\npython3 -m sglang.launch_server --model-path \"$MODEL\" \\\n    --kv-cache-dtype fp8_e4m3 --port 8000\n"},
			want: []string{"SH033 " + dir + "glm5_bf16_b200_sglang.sh:3"}},
		{name: "the FP8 recipe itself", head: map[string]string{fp8: fp8Recipe}},
		{name: "a BF16 KV cache", head: map[string]string{bf16: atom("    --kv_cache_dtype auto \\\n")}},
		{name: "a dtype held in a variable", head: map[string]string{bf16: atom("    --kv_cache_dtype \"$KV_DTYPE\" \\\n")}},
		{name: "a line the PR does not write",
			base: map[string]string{bf16: atom("    --kv_cache_dtype fp8 \\\n")},
			head: map[string]string{bf16: atom("    --kv_cache_dtype fp8 \\\n") + "echo done\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.base
			if base == nil {
				base = map[string]string{}
			}
			fs := reviewRule(t, SH033, base, tc.head)
			wantLocs(t, fs, tc.want)
			for _, f := range fs {
				mustContain(t, "message", f.Title+" "+f.Body, tc.phrases...)
				if tc.related && len(f.Related) == 0 {
					t.Errorf("no evidence location for the copy source")
				}
			}
		})
	}
}

func TestPrecisionOf(t *testing.T) {
	for p, want := range map[string]string{
		"benchmarks/single_node/qwen3.5_bf16_mi355x_atom.sh": "bf16",
		"benchmarks/single_node/dsr1_fp8_h200.sh":            "fp8",
		"benchmarks/benchmark_lib.sh":                        "",
	} {
		if got := precisionOf(p); got != want {
			t.Errorf("precisionOf(%q) = %q, want %q", p, got, want)
		}
	}
}
