#!/usr/bin/env bash
set -euo pipefail

# Kimi-K2.5 INT4 on B200 with vLLM, agentic-coding trace replay.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC KV_OFFLOADING TOTAL_CPU_DRAM_GB RESULT_DIR

SERVER_LOG="$RESULT_DIR/server.log"
OFFLOAD_ARGS=""
if require_agentic_kv_offload_backend vllm-simple; then
    export VLLM_USE_SIMPLE_KV_OFFLOAD=1
    OFFLOAD_ARGS="--kv_offloading_backend native --kv_offloading_size $TOTAL_CPU_DRAM_GB --disable-hybrid-kv-cache-manager"
fi

vllm serve "$MODEL" --served-model-name "$MODEL" \
--host 0.0.0.0 \
--tensor-parallel-size "$TP" \
--max-num-seqs "$CONC" \
--tool-call-parser kimi_k2 \
--enable-auto-tool-choice \
$OFFLOAD_ARGS > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port 8888 --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"
run_agentic_benchmark --model "$MODEL" --concurrency "$CONC" --result-dir "$RESULT_DIR"
