#!/usr/bin/env bash
set -euo pipefail

# Kimi-K2.5 INT4 on H200 with vLLM, agentic-coding trace replay.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC KV_OFFLOADING TOTAL_CPU_DRAM_GB RESULT_DIR

SERVER_LOG="$RESULT_DIR/server.log"
OFFLOAD_ARGS=""
if require_agentic_kv_offload_backend vllm-simple; then
    PER_ENGINE_BYTES=$((TOTAL_CPU_DRAM_GB * 1024 * 1024 * 1024))
    # The JSON form, not the --kv_offloading_backend shortcut, so that
    # lazy_offload can be passed; the switch is still needed.
    export VLLM_USE_SIMPLE_KV_OFFLOAD=1
    OFFLOAD_ARGS="--kv-transfer-config {\"kv_connector\":\"SimpleCPUOffloadConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"cpu_bytes_to_use\":$PER_ENGINE_BYTES,\"lazy_offload\":true}}"
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
