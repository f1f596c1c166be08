package script

import (
	"fmt"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// benchRecipe builds a recipe of about 350 lines in the real structure:
// strict mode, benchmark_lib, check_env_vars, a KV-offload case with
// JSON in heredocs and escaped strings, DP-attention branches, an
// array-built server command with conditional appends, and the client.
func benchRecipe() string {
	var b strings.Builder
	b.WriteString(`#!/usr/bin/env bash
set -euo pipefail

# Generated benchmark recipe.
source "$(dirname "$0")/../../benchmark_lib.sh"
check_env_vars MODEL TP CONC EP_SIZE DP_ATTENTION RESULT_DIR TOTAL_CPU_DRAM_GB KV_OFFLOADING

PORT=${PORT:-8888}
SERVER_LOG="$RESULT_DIR/server.log"
if [ "$DP_ATTENTION" = "true" ]; then
    MAX_NUM_SEQS=$((2 * CONC / TP))
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
else
    MAX_NUM_SEQS=$((2 * CONC))
    PARALLEL_ARGS=(--tensor-parallel-size "$TP")
fi
CPU_BYTES_PER_RANK=$((TOTAL_CPU_DRAM_GB * 1024 * 1024 * 1024 / TP))
OFFLOAD_ARGS=()
case "${KV_OFFLOAD_BACKEND:-}" in
`)
	for i := 0; i < 14; i++ {
		fmt.Fprintf(&b, `    backend-%d)
        # Arm %d: explicit JSON so every option is visible.
        export VLLM_BACKEND_%d=1
        unset VLLM_OTHER_%d
        CFG_%d=$(cat <<JSON
{
  "kv_connector": "Connector%d",
  "kv_role": "kv_both",
  "kv_connector_extra_config": {
    "cpu_bytes_to_use": ${CPU_BYTES_PER_RANK},
    "lazy_offload": true
  }
}
JSON
)
        OFFLOAD_ARGS=(--kv-transfer-config "$CFG_%d")
        ;;
    inline-%d)
        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"Inline%d\",\"kv_role\":\"kv_both\"}")
        ;;
`, i, i, i, i, i, i, i, i, i)
	}
	b.WriteString(`    *)
        ;;
esac

VLLM_CMD=(
    vllm serve "$MODEL"
    --host 0.0.0.0
    --port "$PORT"
    "${PARALLEL_ARGS[@]}"
    --max-num-seqs "$MAX_NUM_SEQS"
    --gpu-memory-utilization 0.92
    --tool-call-parser deepseek_v4
    --enable-auto-tool-choice
)
VLLM_CMD+=("${OFFLOAD_ARGS[@]}")
`)
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "if [ \"${FEATURE_%d:-0}\" = \"1\" ]; then\n    VLLM_CMD+=(--feature-%d \"$CONC\")\nfi\n", i, i)
	}
	b.WriteString(`"${VLLM_CMD[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!
wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_benchmark_serving \
    --model "$MODEL" \
    --port "$PORT" \
    --backend vllm \
    --max-concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
`)
	return b.String()
}

func BenchmarkParseFacts(b *testing.B) {
	src := []byte(benchRecipe())
	f, err := Parse("benchmarks/single_node/agentic/bench_vllm.sh", src)
	if err != nil {
		b.Fatal(err)
	}
	if f.Lines < 330 || f.Lines > 370 || len(f.Servers) != 1 || len(f.JSON) != 28 {
		b.Fatalf("generated recipe: %d lines, %d servers, %d JSON configs", f.Lines, len(f.Servers), len(f.JSON))
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("benchmarks/single_node/agentic/bench_vllm.sh", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExtractFacts is BenchmarkParseFacts without the shell
// parser: the cost of the extractor alone.
func BenchmarkExtractFacts(b *testing.B) {
	src := benchRecipe()
	const p = "benchmarks/single_node/agentic/bench_vllm.sh"
	file, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), p)
	if err != nil {
		b.Fatal(err)
	}
	if f, err := extractFacts(p, src, file); err != nil || len(f.JSON) != 28 {
		b.Fatalf("generated recipe: %d JSON configs", len(f.JSON))
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = extractFacts(p, src, file)
	}
}

// BenchmarkAtoms measures flattening facts into atoms, which Atoms does
// once per Facts (later calls copy the result).
func BenchmarkAtoms(b *testing.B) {
	f, err := Parse("bench_vllm.sh", []byte(benchRecipe()))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = f.computeAtoms()
	}
}
