#!/usr/bin/env bash
set -euo pipefail

# Qwen3.5-397B-A17B FP8 on B200 with SGLang, MTP speculative decoding and
# optional HiCache host-DRAM KV offload, agentic-coding trace replay.
# Config: qwen3.5-fp8-b200-sglang-agentic-mtp (configs/nvidia-master.yaml).
# TP4 for low concurrency, TP8 with HiCache above it.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC RESULT_DIR
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

# MTP, three draft tokens, simulated acceptance at the golden AL:
# golden_al_distribution/qwen3.5_mtp.yaml, qwen3.5-397b-a17b, thinking_on,
# 3 tokens -> 3.28.
export SGLANG_SIMULATE_ACC_LEN=3.28
export SGLANG_SIMULATE_ACC_METHOD=match-expected
SPEC_ARGS=(
    --speculative-algorithm EAGLE
    --speculative-num-steps 3
    --speculative-eagle-topk 1
    --speculative-num-draft-tokens 4
)

MAX_RUNNING=$((2 * CONC))
CUDA_GRAPH_MAX_BS=$((2 * CONC))

EP_ARGS=()
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    EP_ARGS=(--ep-size "$EP_SIZE")
fi

HICACHE_ARGS=()
# The write policy is swept on its own axis.
HICACHE_POLICY_ARGS=(--hicache-write-policy "${HICACHE_WRITE_POLICY:-write_back}")
case "${KV_OFFLOAD_BACKEND:-}" in
    hicache)
        # Qwen3.5 is plain GQA with one host pool per rank, so the host tier
        # is sized in GB per rank rather than as a ratio of the device pool.
        check_env_vars TOTAL_CPU_DRAM_GB
        HICACHE_ARGS=(
            --enable-hierarchical-cache
            --hicache-size $((TOTAL_CPU_DRAM_GB / TP))
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
    --kv-cache-dtype fp8_e4m3 \
    --mem-fraction-static 0.85 \
    --context-length 262144 \
    --chunked-prefill-size 16384 \
    --max-running-requests "$MAX_RUNNING" \
    --cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS" \
    --tool-call-parser qwen3_coder \
    --reasoning-parser qwen3 \
    "${EP_ARGS[@]}" \
    "${HICACHE_ARGS[@]}" \
    "${HICACHE_POLICY_ARGS[@]}" \
    "${SPEC_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_agentic_benchmark \
    --model "$MODEL" \
    --port "$PORT" \
    --concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
