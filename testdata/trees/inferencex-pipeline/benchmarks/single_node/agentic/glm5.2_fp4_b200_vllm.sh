#!/usr/bin/env bash
set -euo pipefail

# GLM-5.2 NVFP4 on B200 with vLLM, agentic-coding trace replay; KV
# offload to host DRAM with the simple CPU offload connector.
# Config: glm5.2-fp4-b200-vllm-agentic.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC RESULT_DIR KV_OFFLOADING

PORT="${PORT:-8888}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

OFFLOAD_ARGS=()
if [ "$KV_OFFLOADING" = "dram" ]; then
    check_env_vars TOTAL_CPU_DRAM_GB KV_OFFLOAD_BACKEND
    export VLLM_USE_SIMPLE_KV_OFFLOAD=1
    OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\": \"SimpleCPUOffloadConnector\", \"kv_role\": \"kv_both\", \"kv_connector_extra_config\": {\"cpu_bytes_to_use\": $((TOTAL_CPU_DRAM_GB * 1000000000)), \"lazy_offload\": true}}")
fi

vllm serve "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tensor-parallel-size "$TP" \
    --max-num-seqs $((2 * CONC)) \
    --enable-prefix-caching \
    --tool-call-parser glm47 \
    --enable-auto-tool-choice \
    "${OFFLOAD_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server "$PORT" "$SERVER_LOG"
python3 -m utils.agentic.replay --concurrency "$CONC" --result-dir "$RESULT_DIR"
kill "$SERVER_PID"
