#!/usr/bin/env bash
set -euo pipefail

# Kimi-K2.5 NVFP4 on B200 with vLLM, fixed sequence length (8k/1k).
# Config: kimik2.5-fp4-b200-vllm (configs/nvidia-master.yaml): TP4 and TP8.

source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME RESULT_DIR

PORT="${PORT:-8888}"
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
export VLLM_ENGINE_READY_TIMEOUT_S=3600

# TP4 leaves about half the KV room of TP8; the cap below keeps the scheduler
# from admitting more sequences than fit and then preempting them.
MAX_MODEL_LEN=$((ISL + OSL + 256))
MAX_NUM_SEQS="$CONC"
GPU_MEM_UTIL=0.90
if [ "$TP" -le 4 ]; then
    GPU_MEM_UTIL=0.93
fi

EXTRA_ARGS=()
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    EXTRA_ARGS+=(--enable-expert-parallel)
fi

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

vllm serve "${MODEL_PATH:-$MODEL}" \
    --served-model-name "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tensor-parallel-size "$TP" \
    --trust-remote-code \
    --kv-cache-dtype fp8 \
    --gpu-memory-utilization "$GPU_MEM_UTIL" \
    --max-model-len "$MAX_MODEL_LEN" \
    --max-num-batched-tokens 16384 \
    --max-num-seqs "$MAX_NUM_SEQS" \
    --max-cudagraph-capture-size "$MAX_NUM_SEQS" \
    --no-enable-prefix-caching \
    "${EXTRA_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_benchmark_serving \
    --model "$MODEL" \
    --port "$PORT" \
    --backend vllm \
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
