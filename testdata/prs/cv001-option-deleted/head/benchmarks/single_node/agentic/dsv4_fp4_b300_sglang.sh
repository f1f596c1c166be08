#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-V4-Pro FP4 on B300 with SGLang and HiCache host-DRAM KV offload,
# agentic-coding trace replay. TP8 or DEP8; no speculative decoding here
# (the MTP arm of this model runs in dsv4_fp4_b200_sglang.sh).

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC DP_ATTENTION RESULT_DIR
require_agentic_kv_offload_backend hicache none

PORT="${PORT:-30000}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

SERVED_MODEL="$MODEL"
if [[ -n "${MODEL_PATH:-}" ]]; then
    SERVED_MODEL="$MODEL_PATH"
fi

# Keep prefix hits across turns: unified radix tree over the full and SWA
# pools, and release out-of-window SWA slots during chunked prefill.
export SGLANG_ENABLE_UNIFIED_RADIX_TREE=1
export SGLANG_OPT_UNIFIED_CACHE_FREE_OUT_OF_WINDOW_SLOTS=1

# Global request cap; CUDA graphs are captured per DP rank, and under DP
# attention a rank only batches its share of the sessions.
MAX_RUNNING=$((2 * CONC))
if [ "$DP_ATTENTION" = "true" ]; then
    DP_ARGS=(--enable-dp-attention --dp-size "$TP")
    CUDA_GRAPH_MAX_BS=$(( (2 * CONC + TP - 1) / TP ))
else
    DP_ARGS=()
    CUDA_GRAPH_MAX_BS=$((2 * CONC))
fi

EP_ARGS=()
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    EP_ARGS=(--ep-size "$EP_SIZE")
fi

HICACHE_ARGS=()
case "${KV_OFFLOAD_BACKEND:-}" in
    hicache)
        # B300 nodes carry more host DRAM per GPU than B200, so the host pool
        # can be three times the device pool. Write-through is SGLang's
        # default, so no policy is passed.
        HICACHE_ARGS=(
            --enable-hierarchical-cache
            --hicache-ratio 3
            --hicache-io-backend direct
            --hicache-mem-layout page_first_direct
        )
        ;;
    none|"")
        ;;
esac

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

python3 -m sglang.launch_server \
    --model-path "$SERVED_MODEL" \
    --served-model-name "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tp-size "$TP" \
    --trust-remote-code \
    --kv-cache-dtype fp8_e4m3 \
    --mem-fraction-static 0.85 \
    --context-length 262144 \
    --chunked-prefill-size 16384 \
    --max-running-requests "$MAX_RUNNING" \
    --cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS" \
    --tool-call-parser deepseekv4 \
    --reasoning-parser deepseek-v4 \
    "${DP_ARGS[@]}" \
    "${EP_ARGS[@]}" \
    "${HICACHE_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_agentic_benchmark \
    --model "$MODEL" \
    --port "$PORT" \
    --concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
