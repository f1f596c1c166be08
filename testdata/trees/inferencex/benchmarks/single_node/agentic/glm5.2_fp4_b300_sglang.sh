#!/usr/bin/env bash
set -euo pipefail

# GLM-5.2 NVFP4 on 8x B300 with SGLang, MTP (nextn) speculative decoding and
# HiCache host-DRAM KV offload, agentic-coding trace replay.
# Config: glm5.2-fp4-b300-sglang-agentic-mtp (configs/nvidia-master.yaml).

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC RESULT_DIR
require_agentic_kv_offload_backend hicache none

PORT="${PORT:-30000}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

# MTP, three draft tokens. Throughput runs pin simulated acceptance to the
# golden AL (golden_al_distribution/glm5.2_mtp.yaml, glm-5.2, thinking_on,
# 3 tokens -> 2.93). Eval-only runs keep real verification: simulated
# acceptance commits drafts regardless of the target and would zero the score.
if [ "${EVAL_ONLY:-false}" != "true" ]; then
    export SGLANG_SIMULATE_ACC_LEN=2.93
    export SGLANG_SIMULATE_ACC_METHOD=match-expected
fi
SPEC_ARGS=(
    --speculative-algorithm EAGLE
    --speculative-num-steps 3
    --speculative-eagle-topk 1
    --speculative-num-draft-tokens 4
)

# Pure TP8: one scheduler, so the graph batch size follows CONC directly.
MAX_RUNNING=$((2 * CONC))
CUDA_GRAPH_MAX_BS=$((2 * CONC))

EP_ARGS=()
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    EP_ARGS=(--ep-size "$EP_SIZE")
fi

HICACHE_ARGS=()
case "${KV_OFFLOAD_BACKEND:-}" in
    hicache)
        # The device pool is replicated on every rank, so a ratio of 0.75
        # already pins about a terabyte of host memory per node.
        HICACHE_ARGS=(
            --enable-hierarchical-cache
            --hicache-ratio 0.75
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
    --mem-fraction-static 0.85 \
    --context-length 202752 \
    --max-prefill-tokens 8192 \
    --chunked-prefill-size 8192 \
    --max-running-requests "$MAX_RUNNING" \
    --cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS" \
    --tool-call-parser glm47 \
    --reasoning-parser glm45 \
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
