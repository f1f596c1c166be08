package masterconfig

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/reviewbot-dev/reviewbot/checks"
)

// baseNV is a small NVIDIA master config. It carries two old problems that
// no test change touches (a TP4/DEP4 exp-name collision and a fork image on
// B200): untouched rows and keys must never be reported.
const baseNV = `# test master config
dsv41flash-fp4-gb200-vllm-agentic-dspark:
  image: vllm/vllm-openai:nightly-dev-arm64-cu130-aaaa
  model: deepseek-ai/DeepSeek-V4.1-Flash
  model-prefix: dsv41flash
  runner: cluster:gb200-nv
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.70
      search-space:
      # TP4 arm
      - { tp: 4, spec-decoding: mtp, conc-list: [1, 4, 8, 16, 32, 64, 128] }

dsv4-fp4-b300-vllm-agentic:
  image: vllm/vllm-openai:v0.25.0
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: cluster:b300-nv
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - dram-utilization: 0.85
      search-space:
      - { tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }
      - { tp: 4, ep: 4, dp-attn: true, kv-offloading: none, conc-list: [8, 16] }

dsr1-fp4-b200-sglang:
  image: ghcr.io#someorg/sglang-fork:old
  model: nvidia/DeepSeek-R1-0528-FP4-V2
  model-prefix: dsr1
  runner: b200
  precision: fp4
  framework: sglang
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }

kimik2.5-fp4-b200-vllm:
  image: vllm/vllm-openai:v0.24.2
  model: nvidia/Kimi-K2.5-NVFP4
  model-prefix: kimik2.5
  runner: b200
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - { tp: 8, ep: 1, conc-start: 1, conc-end: 256 }
`

const baseAMD = `dsv4-fp4-mi355x-vllm-agentic:
  image: vllm/vllm-openai-rocm:v0.27.1
  model: deepseek-ai/DeepSeek-V4-Pro
  model-prefix: dsv4
  runner: cluster:mi355x-amds
  precision: fp4
  framework: vllm
  multinode: false
  scenarios:
    agentic-coding:
    - search-space:
      - { tp: 8, kv-offloading: none, conc-list: [1, 4, 8] }
`

func modelsMD(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/trees/inferencex/MODELS.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// after inserts text after the first line containing needle.
func after(src, needle, text string) string {
	i := strings.Index(src, needle)
	if i < 0 {
		panic("no " + needle)
	}
	j := strings.IndexByte(src[i:], '\n') + i + 1
	return src[:j] + text + src[j:]
}

func replace(src, old, new string) string {
	if !strings.Contains(src, old) {
		panic("no " + old)
	}
	return strings.Replace(src, old, new, 1)
}

// agenticKey is a config key with one agentic-coding block, to append to
// baseNV; rows are its search-space rows ("- { tp: 4, ... }").
type agenticKey struct {
	name, image, model, prefix, runner, precision, framework string
	rows                                                     []string
}

func (k agenticKey) yaml() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s:\n  image: %s\n  model: %s\n  model-prefix: %s\n  runner: %s\n  precision: %s\n  framework: %s\n",
		k.name, k.image, k.model, k.prefix, k.runner, k.precision, k.framework)
	b.WriteString("  multinode: false\n  scenarios:\n    agentic-coding:\n    - search-space:\n")
	for _, r := range k.rows {
		b.WriteString("      " + r + "\n")
	}
	return b.String()
}

func TestRules(t *testing.T) {
	type want struct{ rule, needle string } // the finding's line holds needle
	dep4 := "      - { tp: 4, ep: 4, dp-attn: true, spec-decoding: mtp, conc-list: [64, 128] }\n"
	qwenFP8 := agenticKey{name: "qwen3.5-fp8-b300-sglang-agentic-mtp", image: "lmsysorg/sglang:v0.5.16-cu130", model: "x/Q", prefix: "qwen3.5",
		runner: "cluster:b300-nv", precision: "fp8", framework: "sglang",
		rows: []string{"- { tp: 4, spec-decoding: mtp, conc-list: [4, 8] }"}}
	qwenFP8AsFP4 := qwenFP8
	qwenFP8AsFP4.precision = "fp4"
	for _, tc := range []struct {
		name  string
		nv    string // head nvidia-master.yaml
		amd   string // head amd-master.yaml ("" = unchanged)
		base  string // base nvidia-master.yaml ("" = baseNV)
		date  string
		want  []want
		words []string // the first finding's message contains these
	}{
		// MC001
		{name: "DEP4 collision",
			nv:   after(baseNV, "conc-list: [1, 4, 8, 16, 32, 64, 128] }", dep4),
			want: []want{{"MC001", "ep: 4, dp-attn: true, spec-decoding: mtp, conc-list: [64, 128]"}},
			words: []string{"`dsv41flash_tp4_conc64_kvnone_spec-mtp` and `dsv41flash_tp4_conc128_kvnone_spec-mtp`",
				"ep and dp-attn are not part of it", "nvidia-master.yaml:15"}},
		{name: "DEP4 with its own concurrencies",
			nv: after(baseNV, "conc-list: [1, 4, 8, 16, 32, 64, 128] }",
				"      - { tp: 4, ep: 4, dp-attn: true, spec-decoding: mtp, conc-list: [192, 256] }\n")},
		{name: "DEP4 with another KV setting",
			nv: after(baseNV, "conc-list: [1, 4, 8, 16, 32, 64, 128] }",
				"      - { tp: 4, ep: 4, dp-attn: true, spec-decoding: mtp, kv-offloading: dram, kv-offload-backend: { name: mooncake }, conc-list: [64] }\n")},
		{name: "DEP4 without spec-decoding",
			nv: after(baseNV, "conc-list: [1, 4, 8, 16, 32, 64, 128] }",
				"      - { tp: 4, ep: 4, dp-attn: true, conc-list: [64] }\n")},
		{name: "conc range collides",
			nv: after(baseNV, "conc-list: [1, 4, 8, 16, 32, 64, 128] }",
				"      - { tp: 4, ep: 4, dp-attn: true, spec-decoding: mtp, conc-start: 48, conc-end: 128 }\n"),
			want:  []want{{"MC001", "conc-start: 48"}},
			words: []string{"concurrency 128", "`dsv41flash_tp4_conc128_kvnone_spec-mtp`"}},
		{name: "block-style row collides",
			nv: after(baseNV, "conc-list: [1, 4, 8, 16, 32, 64, 128] }",
				"      - tp: 4\n        ep: 4\n        dp-attn: true\n        spec-decoding: \"mtp\"\n        conc-list:\n        - 32\n"),
			want: []want{{"MC001", "      - tp: 4"}}},
		{name: "old collision, unrelated change elsewhere in the key",
			nv: replace(baseNV, "dram-utilization: 0.85", "dram-utilization: 0.80")},
		{name: "old collision, image change",
			nv: replace(baseNV, "image: vllm/vllm-openai:v0.25.0", "image: vllm/vllm-openai:v0.26.0")},
		{name: "old collision, rows swapped and reformatted",
			nv: replace(baseNV,
				"      - { tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }\n      - { tp: 4, ep: 4, dp-attn: true, kv-offloading: none, conc-list: [8, 16] }\n",
				"      - tp: 4\n        ep: 4\n        dp-attn: true\n        kv-offloading: none\n        conc-list: [8, 16]\n      - { kv-offloading: \"none\", tp: 4, conc-list: [1, 2, 4, 8] }\n")},
		{name: "old collision, rows rewritten with an anchor and a merge key",
			nv: replace(baseNV,
				"      - { tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }\n      - { tp: 4, ep: 4, dp-attn: true, kv-offloading: none, conc-list: [8, 16] }\n",
				"      - &tp4 { tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }\n      - { <<: *tp4, ep: 4, dp-attn: true, conc-list: [8, 16] }\n")},
		{name: "old collision, a number quoted is a changed row",
			nv:   replace(baseNV, "dp-attn: true, kv-offloading: none, conc-list: [8, 16] }", "dp-attn: true, kv-offloading: none, conc-list: [8, \"16\"] }"),
			want: []want{{"MC001", "conc-list: [8, \"16\"]"}}},
		{name: "old collision, one of the rows changed",
			nv:   replace(baseNV, "dp-attn: true, kv-offloading: none, conc-list: [8, 16] }", "dp-attn: true, kv-offloading: none, conc-list: [8, 16, 24] }"),
			want: []want{{"MC001", "conc-list: [8, 16, 24]"}}},
		{name: "new key with two colliding rows reports once, on the later row",
			nv: baseNV + agenticKey{name: "glm5.2-fp4-b300-sglang-agentic-mtp", image: "lmsysorg/sglang:v0.5.16-cu130", model: "x/GLM", prefix: "glm5.2",
				runner: "cluster:b300-nv", precision: "fp4", framework: "sglang",
				rows: []string{"- { tp: 8, spec-decoding: mtp, conc-list: [1, 4] }", "- { tp: 8, ep: 8, spec-decoding: mtp, conc-list: [4, 8] }"}}.yaml(),
			want:  []want{{"MC001", "ep: 8, spec-decoding: mtp, conc-list: [4, 8]"}},
			words: []string{"`glm5.2_tp8_conc4_kvnone_spec-mtp`"}},
		{name: "fixed-seq-len rows are not named by the agentic formula",
			nv:   after(baseNV, "{ tp: 8, ep: 1, conc-start: 1, conc-end: 256 }", "      - { tp: 8, ep: 8, dp-attn: true, conc-start: 256, conc-end: 256 }\n"),
			date: "2026-08-05"},

		// MC002
		{name: "local image path",
			nv:    replace(baseNV, "image: vllm/vllm-openai:v0.25.0", "image: /scratch/images/vllm-dsv4.sqsh"),
			want:  []want{{"MC002", "image: /scratch/images/vllm-dsv4.sqsh"}},
			words: []string{"a squashfs file on a local filesystem"}},
		{name: "sqsh file",
			nv:    replace(baseNV, "image: vllm/vllm-openai:v0.25.0", "image: vllm+vllm-openai+v0.25.0.sqsh"),
			want:  []want{{"MC002", "image: vllm+vllm-openai+v0.25.0.sqsh"}},
			words: []string{"enroot squashfs file"}},
		{name: "local path in another file is still found",
			nv:   baseNV,
			amd:  replace(baseAMD, "image: vllm/vllm-openai-rocm:v0.27.1", "image: /home/me/rocm.img"),
			want: []want{{"MC002", "/home/me/rocm.img"}}},

		// MC003
		{name: "fork vLLM image on B200",
			nv:    replace(baseNV, "image: vllm/vllm-openai:v0.24.2", "image: ghcr.io#someorg/vllm-fork:x"),
			date:  "2026-08-05",
			want:  []want{{"MC003", "ghcr.io#someorg/vllm-fork:x"}},
			words: []string{"on B200", "`vllm/vllm-openai*`"}},
		{name: "docker.io prefix is upstream",
			nv:   replace(baseNV, "image: vllm/vllm-openai:v0.24.2", "image: docker.io/vllm/vllm-openai:v0.25.0"),
			date: "2026-08-05"},
		{name: "vllm-openai-rocm is upstream on MI355X",
			nv:  baseNV,
			amd: replace(baseAMD, "vllm/vllm-openai-rocm:v0.27.1", "vllm/vllm-openai-rocm:nightly-abc")},
		{name: "old fork image, unrelated change in its key",
			nv:   replace(baseNV, "conc-start: 1, conc-end: 32 }", "conc-start: 1, conc-end: 64 }"),
			date: "2026-08-05"},
		{name: "trt with an NGC image",
			nv: baseNV + agenticKey{name: "minimaxm3-fp4-b300-trt-agentic", image: "nvcr.io#nvidia/tensorrt-llm/release:1.3.0rc23", model: "x/M", prefix: "minimaxm3",
				runner: "cluster:b300-nv", precision: "fp4", framework: "trt",
				rows: []string{"- { tp: 4, conc-list: [4, 8] }"}}.yaml()},
		{name: "new hardware may use another engine build",
			nv: baseNV + agenticKey{name: "qwen3.5-fp4-rtx6000pro-sglang-agentic-mtp", image: "someorg/sglang-rtx:1", model: "x/Q", prefix: "qwen3.5",
				runner: "rtx6000pro-lat", precision: "fp4", framework: "sglang",
				rows: []string{"- { tp: 4, spec-decoding: mtp, conc-list: [4, 8] }"}}.yaml()},
		{name: "runner moved onto an established SKU",
			nv:   replace(baseNV, "  runner: b200\n  precision: fp4\n  framework: sglang", "  runner: cluster:b300-nv\n  precision: fp4\n  framework: sglang"),
			want: []want{{"MC003", "ghcr.io#someorg/sglang-fork:old"}}},

		// MC004
		{name: "model-prefix mismatch",
			nv:    replace(baseNV, "  model-prefix: dsv4\n  runner: cluster:b300-nv", "  model-prefix: dsv4.1\n  runner: cluster:b300-nv"),
			want:  []want{{"MC004", "model-prefix: dsv4.1"}},
			words: []string{"starts with `dsv4`, but `model-prefix` is `dsv4.1`"}},
		{name: "precision mismatch in a new key",
			nv:    baseNV + qwenFP8AsFP4.yaml(),
			want:  []want{{"MC004", "qwen3.5-fp8-b300-sglang-agentic-mtp:"}},
			words: []string{"precision segment is `fp8`, but `precision` is `fp4`"}},
		{name: "dotted prefix is fine",
			nv: baseNV + qwenFP8.yaml()},

		// MC005
		{name: "kimik2.5 8k1k changed the day after its last day (seed 004)",
			nv:    replace(baseNV, "image: vllm/vllm-openai:v0.24.2", "image: vllm/vllm-openai:v0.25.0"),
			date:  "2026-08-07",
			want:  []want{{"MC005", "image: vllm/vllm-openai:v0.25.0\n  model: nvidia/Kimi"}},
			words: []string{"Single-turn 8k1k for `kimik2.5` after 2026-08-06", "The review date is 2026-08-07"}},
		{name: "kimik2.5 8k1k changed on its last day",
			nv:   replace(baseNV, "image: vllm/vllm-openai:v0.24.2", "image: vllm/vllm-openai:v0.25.0"),
			date: "2026-08-06"},
		{name: "comment-only edit of a deprecated key",
			nv:   replace(baseNV, "      - { tp: 8, ep: 1, conc-start: 1, conc-end: 256 }", "      - { tp: 8, ep: 1, conc-start: 1, conc-end: 256 } # TP8"),
			date: "2026-08-21"},
		{name: "new qwen3.5 bf16 config after the bf16 retirement",
			nv: baseNV + "\nqwen3.5-bf16-b200-sglang:\n  image: lmsysorg/sglang:v0.5.16-cu130\n  model: Qwen/Qwen3.5-397B-A17B\n  model-prefix: qwen3.5\n" +
				"  runner: b200\n  precision: bf16\n  framework: sglang\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n" +
				"    - isl: 8192\n      osl: 1024\n      search-space:\n      - { tp: 8, conc-start: 4, conc-end: 64 }\n",
			date:  "2026-08-04",
			want:  []want{{"MC005", "qwen3.5-bf16-b200-sglang:"}},
			words: []string{"all bf16 recipes of `qwen3.5` after 2026-08-03"}},
		{name: "new 1k1k block for every model",
			nv: after(baseNV, "      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }",
				"    - isl: 1024\n      osl: 1024\n      search-space:\n      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }\n"),
			date:  "2026-08-05",
			want:  []want{{"MC005", "    - isl: 1024"}},
			words: []string{"Single-turn 1k1k for `dsr1` with no end date", "Single-turn 1k1k for every model after 2026-07-16"}},
		{name: "rows removed from a deprecated key",
			nv:   replace(baseNV, "      - { tp: 8, ep: 1, conc-start: 1, conc-end: 256 }\n", ""),
			date: "2026-08-07"},
		{name: "block setting of a deprecated key changed",
			nv:   replace(baseNV, "    - isl: 8192\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 1, conc-start: 1, conc-end: 256 }", "    - isl: 8192\n      osl: 1024\n      dram-utilization: 0.5\n      search-space:\n      - { tp: 8, ep: 1, conc-start: 1, conc-end: 256 }"),
			date: "2026-08-07",
			want: []want{{"MC005", "dram-utilization: 0.5"}}},
		{name: "non-MTP agentic arm: A/B retirement not enacted",
			nv: after(baseNV, "{ tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }",
				"      - { tp: 8, kv-offloading: none, conc-list: [32, 64] }\n")},

		// MC008
		{name: "ep larger than tp under DP attention",
			nv: after(baseNV, "{ tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }",
				"      - { tp: 2, ep: 4, dp-attn: true, kv-offloading: none, conc-list: [16, 32] }\n"),
			want:  []want{{"MC008", "{ tp: 2, ep: 4, dp-attn: true"}},
			words: []string{"sets `ep: 4` with `tp: 2`", "runs at ep 2 while the result is labelled ep 4", "Set `ep` to 2 (or 1), or raise `tp` to 4"}},
		{name: "ep equal to tp is the convention",
			nv: after(baseNV, "{ tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }",
				"      - { tp: 2, ep: 2, dp-attn: true, kv-offloading: none, conc-list: [16, 32] }\n")},
		{name: "ep smaller than tp",
			nv: after(baseNV, "{ tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }",
				"      - { tp: 8, ep: 4, kv-offloading: none, conc-list: [16, 32] }\n")},
		{name: "ep written as a string is read as the generator reads it",
			nv: after(baseNV, "{ tp: 4, kv-offloading: none, conc-list: [1, 2, 4, 8] }",
				"      - { tp: 2, ep: \"8\", kv-offloading: none, conc-list: [16, 32] }\n"),
			want: []want{{"MC008", "ep: \"8\""}}},

		// MC009
		{name: "copied row repeats a point",
			nv: after(baseNV, "      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }\n",
				"      - { tp: 4, ep: 1, conc-list: [32, 64] }\n"),
			want:  []want{{"MC009", "      - { tp: 4, ep: 1, conc-list: [32, 64] }"}},
			words: []string{"at concurrency 32 the two rows are one benchmark job", "configs/nvidia-master.yaml:45"}},
		{name: "a setting tells the rows apart",
			nv: after(baseNV, "      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }\n",
				"      - { tp: 4, ep: 4, dp-attn: true, conc-list: [32, 64] }\n")},
		{name: "same settings, no shared concurrency",
			nv: after(baseNV, "      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }\n",
				"      - { tp: 4, ep: 1, conc-list: [64, 128] }\n")},
		{name: "a second block of the same scenario repeats the row",
			nv: after(baseNV, "      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }\n",
				"    - isl: 8192\n      osl: 1024\n      search-space:\n      - { tp: 4, ep: 1, conc-list: [8] }\n"),
			want: []want{{"MC009", "      - { tp: 4, ep: 1, conc-list: [8] }"}}},

		// MC010
		{name: "image moved to a branch tag",
			nv:    replace(baseNV, "image: vllm/vllm-openai:v0.25.0", "image: vllm/vllm-openai:nightly"),
			want:  []want{{"MC010", "image: vllm/vllm-openai:nightly\n  model: deepseek-ai/DeepSeek-V4-Pro"}},
			words: []string{"on the `nightly` tag", "Of the other 3 images of `configs/nvidia-master.yaml`, 3 pin a version"}},
		{name: "image moved to a pinned nightly",
			nv: replace(baseNV, "image: vllm/vllm-openai:v0.25.0", "image: vllm/vllm-openai:nightly-5b8c30d62b754b575e043ce2fc0dcbf8a64f6306")},

		// MC011
		{name: "conc-list skips a point its 1k1k twin runs",
			nv: after(baseNV, "      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }\n",
				"    - isl: 4096\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 8, conc-list: [4, 8, 16, 32, 64, 128] }\n"+
					"    - isl: 2048\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 8, conc-list: [4, 8, 16, 32, 128] }\n"),
			want:  []want{{"MC011", "      - { tp: 8, ep: 8, conc-list: [4, 8, 16, 32, 128] }"}},
			words: []string{"skips conc 64, which its 4k1k twin", "reviewbot:ignore MC011"}},
		{name: "twin rows over the same concurrencies",
			nv: after(baseNV, "      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }\n",
				"    - isl: 4096\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 8, conc-list: [4, 8, 16, 32, 64, 128] }\n"+
					"    - isl: 2048\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 8, conc-list: [4, 8, 16, 32, 64, 128] }\n")},
		{name: "a shorter range is not a gap",
			nv: after(baseNV, "      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }\n",
				"    - isl: 4096\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 8, conc-list: [4, 8, 16, 32, 64, 128] }\n"+
					"    - isl: 2048\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 8, conc-list: [4, 8, 16, 32] }\n")},
		{name: "another topology is not a twin",
			nv: after(baseNV, "      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }\n",
				"    - isl: 4096\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 8, conc-list: [4, 8, 16, 32, 64, 128] }\n"+
					"    - isl: 2048\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 4, conc-list: [4, 8, 16, 32, 128] }\n")},
		{name: "many points missing is another sweep, not a gap",
			nv: after(baseNV, "      - { tp: 4, ep: 1, conc-start: 1, conc-end: 32 }\n",
				"    - isl: 4096\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 8, conc-list: [4, 8, 16, 32, 64, 128] }\n"+
					"    - isl: 2048\n      osl: 1024\n      search-space:\n      - { tp: 8, ep: 8, conc-list: [4, 32, 128] }\n")},

		// MC006
		{name: "parse error",
			nv:    replace(baseNV, "conc-list: [1, 2, 4, 8] }", "conc-list: [1, 2, 4, 8 }"),
			want:  []want{{"MC006", "conc-list: [1, 2, 4, 8 }"}},
			words: []string{"no longer parses as YAML"}},
		{name: "parse error does not stop the other file",
			nv:   replace(baseNV, "conc-list: [1, 2, 4, 8] }", "conc-list: [1, 2, 4, 8 }"),
			amd:  replace(baseAMD, "image: vllm/vllm-openai-rocm:v0.27.1", "image: /scratch/rocm.sqsh"),
			want: []want{{"MC006", "conc-list: [1, 2, 4, 8 }"}, {"MC002", "/scratch/rocm.sqsh"}}},
		{name: "duplicate config key",
			nv: baseNV + "\ndsv4-fp4-b300-vllm-agentic:\n  image: vllm/vllm-openai:v0.25.0\n  model: m\n  model-prefix: dsv4\n  runner: b300\n" +
				"  precision: fp4\n  framework: vllm\n  multinode: false\n",
			want:  []want{{"MC006", "dsv4-fp4-b300-vllm-agentic:\n  image: vllm/vllm-openai:v0.25.0\n  model: m"}},
			words: []string{"at the top level", "at line 17 and again at line"}},
		{name: "duplicate setting inside a key",
			nv:    replace(baseNV, "  precision: fp4\n  framework: sglang", "  precision: fp4\n  framework: sglang\n  precision: fp8"),
			want:  []want{{"MC006", "  precision: fp8"}},
			words: []string{"in `dsr1-fp4-b200-sglang`"}},
		{name: "already broken at base, untouched",
			base: replace(baseNV, "conc-list: [1, 2, 4, 8] }", "conc-list: [1, 2, 4, 8 }"),
			nv:   replace(replace(baseNV, "conc-list: [1, 2, 4, 8] }", "conc-list: [1, 2, 4, 8 }"), "# test master config", "# test master config, edited")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			baseCfg := tc.base
			if baseCfg == "" {
				baseCfg = baseNV
			}
			md := modelsMD(t)
			base := map[string]string{nv: baseCfg, "configs/amd-master.yaml": baseAMD, "MODELS.md": md}
			head := map[string]string{nv: tc.nv, "configs/amd-master.yaml": baseAMD, "MODELS.md": md}
			if tc.amd != "" {
				head["configs/amd-master.yaml"] = tc.amd
			}
			res := reviewTrees(t, base, head, tc.date, nil)
			var want []string
			for _, w := range tc.want {
				path, src := nv, tc.nv
				if tc.amd != "" && strings.Contains(tc.amd, w.needle) {
					path, src = "configs/amd-master.yaml", tc.amd
				}
				first := strings.SplitN(w.needle, "\n", 2)[0]
				want = append(want, w.rule+" "+path+":"+itoa(lineOfBlock(t, src, w.needle, first)))
			}
			if want == nil {
				want = []string{}
			}
			got := summary(res.Findings)
			sortStrings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				for _, f := range res.Findings {
					t.Logf("%s %s:%d %s", f.Rule, f.Path, f.Line, f.Body)
				}
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			if len(tc.words) > 0 {
				msg := res.Findings[0].Body
				for _, w := range tc.words {
					if !strings.Contains(msg, w) {
						t.Errorf("message lacks %q:\n%s", w, msg)
					}
				}
			}
			for _, f := range res.Findings {
				if f.Title == "" || f.Body == "" || f.Key == "" || f.Severity == 0 {
					t.Errorf("incomplete finding %+v", f)
				}
			}
		})
	}
}

// lineOfBlock finds the line where the (possibly multi-line) needle starts.
func lineOfBlock(t testing.TB, src, needle, first string) int {
	t.Helper()
	i := strings.Index(src, needle)
	if i < 0 {
		t.Fatalf("needle %q not in source", needle)
	}
	return strings.Count(src[:i], "\n") + 1 + strings.Count(needle[:strings.Index(needle, first)], "\n")
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestSeverities pins the rule IDs and default severities.
func TestSeverities(t *testing.T) {
	want := map[string]checks.Severity{"MC001": checks.Warning, "MC002": checks.Blocking, "MC003": checks.Warning,
		"MC004": checks.Blocking, "MC005": checks.Blocking, "MC006": checks.Blocking, "MC007": checks.Warning, "MC008": checks.Blocking,
		"MC009": checks.Warning, "MC010": checks.Warning, "MC011": checks.Warning}
	rules := Rules()
	if len(rules) != len(want) {
		t.Fatalf("%d rules", len(rules))
	}
	for i, r := range rules {
		if r.ID != fmt.Sprintf("MC%03d", i+1) || r.Severity != want[r.ID] || !strings.Contains(r.Doc, " ") {
			t.Errorf("rule %d: %s %v", i, r.ID, r.Severity)
		}
	}
}

// TestKeyHardware: the segment after a key's model prefix and precision.
func TestKeyHardware(t *testing.T) {
	for _, tc := range []struct{ name, prefix, prec, want string }{
		{"dsr1-fp4-b200-sglang", "dsr1", "fp4", "b200"},
		{"qwen3.5-fp8-MI355X-atom-mtp", "qwen3.5", "fp8", "mi355x"},
		{"kimik2.5-fp4-gb300", "kimik2.5", "fp4", "gb300"},
		{"dsr1-fp8-b200-sglang", "dsr1", "fp4", ""},
		{"glm5-fp4-b200", "glm5.1", "fp4", ""},
		{"dsr1-fp4-b200", "", "fp4", ""},
	} {
		k := &Key{Name: tc.name, ModelPrefix: Field{Value: tc.prefix}, Precision: Field{Value: tc.prec}}
		if got := k.Hardware(); got != tc.want {
			t.Errorf("Hardware(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
