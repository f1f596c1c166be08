#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-V4-Pro FP4 on 8x B200 with SGLang, MTP speculative decoding and
# HiCache host-DRAM KV offload, agentic-coding trace replay.
# Config: dsv4-fp4-b200-sglang-agentic-hicache-mtp (configs/nvidia-master.yaml).

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC DP_ATTENTION RESULT_DIR
require_agentic_kv_offload_backend hicache none

PORT="${PORT:-30000}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

# One radix tree for the full and sliding-window pools, and free the SWA
# slots that fall out of the window during chunked prefill, so multi-turn
# sessions keep their prefix hits.
export SGLANG_ENABLE_UNIFIED_RADIX_TREE=1
export SGLANG_OPT_UNIFIED_CACHE_FREE_OUT_OF_WINDOW_SLOTS=1

# MTP with three draft tokens. Throughput runs accept drafts at the golden
# AL instead of verifying them: golden_al_distribution/dsv4_mtp.yaml,
# deepseek-v4-pro, thinking_on, 3 tokens -> 2.62.
export SGLANG_SIMULATE_ACC_LEN=2.62
export SGLANG_SIMULATE_ACC_METHOD=match-expected
SPEC_ARGS=(
    --speculative-algorithm EAGLE
    --speculative-num-steps 3
    --speculative-eagle-topk 1
    --speculative-num-draft-tokens 4
)

# --max-running-requests is global; --cuda-graph-max-bs is per DP rank, and
# each rank only sees its share of the sessions under DP attention.
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
        # Host pool twice the device pool; write-back keeps eviction off the
        # decode critical path.
        HICACHE_ARGS=(
            --enable-hierarchical-cache
            --hicache-ratio 2
            --hicache-write-policy write_back
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
    --model-path "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tp-size "$TP" \
    --trust-remote-code \
    --kv-cache-dtype fp8_e4m3 \
    --mem-fraction-static 0.82 \
    --context-length 262144 \
    --chunked-prefill-size 16384 \
    --max-running-requests "$MAX_RUNNING" \
    --cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS" \
    --tool-call-parser deepseekv4 \
    --reasoning-parser deepseek-v4 \
    "${DP_ARGS[@]}" \
    "${EP_ARGS[@]}" \
    "${HICACHE_ARGS[@]}" \
    "${SPEC_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_agentic_benchmark \
    --model "$MODEL" \
    --port "$PORT" \
    --concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
