#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-V4-Pro MXFP4 on 8x MI355X with ATOM (AMD's AITER-based serving
# engine), agentic-coding trace replay. TP8 or TP8 with DP attention.
# GPU-resident KV only: ATOM has no host-DRAM offload tier yet.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC DP_ATTENTION RESULT_DIR
require_agentic_kv_offload_backend none

PORT="${PORT:-8000}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

# Kernel-argument preloading and hipBLASLt GEMMs are worth several percent of
# decode throughput on gfx950.
export HIP_FORCE_DEV_KERNARG=1
export TORCH_BLAS_PREFER_HIPBLASLT=1

# Fail fast when the allocation holds fewer GPUs than the TP degree asks for;
# ATOM would otherwise hang in the collective bring-up.
GPU_COUNT=$(rocm-smi --showid | grep -c '^GPU\[' || true)
if [ "$GPU_COUNT" -lt "$TP" ]; then
    echo "error: TP=$TP but only $GPU_COUNT GPUs visible" >&2
    exit 1
fi

# AITER JIT-compiles its kernels on first use; a per-node cache keeps that
# out of the measured window on reruns.
export AITER_JIT_DIR="${AITER_JIT_DIR:-/tmp/aiter-jit}"
mkdir -p "$AITER_JIT_DIR"

# With DP attention each rank batches its own share of the sessions.
PARALLEL_ARGS=()
if [ "$DP_ATTENTION" = "true" ]; then
    PARALLEL_ARGS=(--enable-dp-attention)
    MAX_NUM_SEQS=$((2 * CONC / TP))
else
    MAX_NUM_SEQS=$((2 * CONC))
fi
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    PARALLEL_ARGS+=(--enable-expert-parallel)
fi

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

python3 -m atom.entrypoints.openai_server \
    --model "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tensor-parallel-size "$TP" \
    --kv_cache_dtype fp8 \
    --gpu-memory-utilization 0.90 \
    --max-model-len 262144 \
    --max-num-seqs "$MAX_NUM_SEQS" \
    --enable-prefix-caching \
    --tool-call-parser deepseek_v4 \
    --reasoning-parser deepseek_v4 \
    "${PARALLEL_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

# One short tool-less request before the replay: the first requests of a
# shape trigger graph capture, which must not land in the measured window.
curl -sf "http://127.0.0.1:${PORT}/v1/chat/completions" \
    -H 'Content-Type: application/json' \
    -d "{\"model\": \"${MODEL}\", \"messages\": [{\"role\": \"user\", \"content\": \"hello\"}], \"max_tokens\": 16}" \
    > /dev/null

run_agentic_benchmark \
    --model "$MODEL" \
    --port "$PORT" \
    --concurrency "$CONC" \
    --result-dir "$RESULT_DIR"

# Keep the engine's throughput log lines next to the client results.
grep -E 'throughput|prefix cache hit' "$SERVER_LOG" > "$RESULT_DIR/server_summary.txt" || true
