#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-R1-0528 FP8 on 8x H200 with SGLang, fixed sequence length (8k/1k).
# Config: dsr1-fp8-h200-sglang (configs/nvidia-master.yaml): TP8 only.

source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME RESULT_DIR

PORT="${PORT:-30000}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

if [[ -z "${MODEL_PATH:-}" ]]; then
    huggingface-cli download "$MODEL" > /dev/null
fi
export HF_HUB_OFFLINE=1

# Fail fast when the allocation holds fewer GPUs than the TP degree asks for;
# the engine would otherwise hang in collective bring-up.
GPU_COUNT=$(nvidia-smi -L | wc -l)
if [ "$GPU_COUNT" -lt "$TP" ]; then
    echo "error: TP=$TP but only $GPU_COUNT GPUs visible" >&2
    exit 1
fi

# Hopper has no FP4 path; the block-scaled FP8 GEMMs come from DeepGEMM,
# whose JIT cache is kept per node so reruns skip compilation.
export SGLANG_ENABLE_JIT_DEEPGEMM=1
export SGL_DG_CACHE_DIR="${SGL_DG_CACHE_DIR:-/tmp/deepgemm-cache}"
mkdir -p "$SGL_DG_CACHE_DIR"

MAX_RUNNING="$CONC"
CUDA_GRAPH_MAX_BS="$CONC"

EP_ARGS=()
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    EP_ARGS=(--ep-size "$EP_SIZE")
fi

# HiCache: a host-DRAM tier twice the size of the device KV pool, so the
# 8k-prefix reuse of the sweep's multi-round points stays off the GPU.
HICACHE_ARGS=(
    --hicache-ratio 2
    --hicache-write-policy write_through
    --hicache-io-backend kernel
    --hicache-mem-layout layer_first
)

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

python3 -m sglang.launch_server \
    --model-path "${MODEL_PATH:-$MODEL}" \
    --served-model-name "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tp-size "$TP" \
    --trust-remote-code \
    --kv-cache-dtype fp8_e4m3 \
    --mem-fraction-static 0.88 \
    --chunked-prefill-size 8192 \
    --max-running-requests "$MAX_RUNNING" \
    --cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS" \
    --quantization fp8 \
    "${HICACHE_ARGS[@]}" \
    "${EP_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_benchmark_serving \
    --model "$MODEL" \
    --port "$PORT" \
    --backend sglang \
    --input-len "$ISL" \
    --output-len "$OSL" \
    --random-range-ratio "$RANDOM_RANGE_RATIO" \
    --num-prompts "$((CONC * 10))" \
    --max-concurrency "$CONC" \
    --result-filename "$RESULT_FILENAME" \
    --result-dir "$RESULT_DIR"

run_eval_if_requested "$MODEL" "$PORT"

# Keep the engine's throughput log lines next to the client results.
grep -E 'throughput|cuda graph|preempt' "$SERVER_LOG" > "$RESULT_DIR/server_summary.txt" || true
