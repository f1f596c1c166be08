#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-V4-Pro FP4 on B300 with vLLM, agentic-coding trace replay; TP4 or
# DEP4, optional Mooncake DRAM offload.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC KV_OFFLOADING TOTAL_CPU_DRAM_GB RESULT_DIR

SERVER_LOG="$RESULT_DIR/server.log"
GPU_COUNT="$TP"

OFFLOAD_ARGS=()
case "${KV_OFFLOAD_BACKEND:-}" in
    "")
        ;;
    mooncake)
        PER_RANK_GB=$((TOTAL_CPU_DRAM_GB / GPU_COUNT))
        export MOONCAKE_GLOBAL_SEGMENT_SIZE="${PER_RANK_GB}GB"
        # Another connector: keep the SimpleCPU switch off.
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}')
        ;;
    *)
        echo "unsupported KV_OFFLOAD_BACKEND='${KV_OFFLOAD_BACKEND:-}'" >&2
        exit 1
        ;;
esac

VLLM_CMD=(
    vllm serve "$MODEL"
    --tensor-parallel-size "$TP"
    --max-num-seqs "$CONC"
    --tool-call-parser deepseek_v4
    --enable-auto-tool-choice
    "${OFFLOAD_ARGS[@]}"
)
"${VLLM_CMD[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port 8888 --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"
run_agentic_benchmark --model "$MODEL" --concurrency "$CONC" --result-dir "$RESULT_DIR"
