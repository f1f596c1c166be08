#!/usr/bin/env bash
set -euo pipefail

# Qwen3.5-397B-A17B FP8 on MI355X with ATOM, fixed sequence length (8k/1k).
# Config: qwen3.5-fp8-mi355x-atom (configs/amd-master.yaml): TP4 and TP8.

source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME RESULT_DIR

PORT="${PORT:-8000}"
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
GPU_COUNT=$(rocm-smi --showid | grep -c '^GPU\[' || true)
if [ "$GPU_COUNT" -lt "$TP" ]; then
    echo "error: TP=$TP but only $GPU_COUNT GPUs visible" >&2
    exit 1
fi

export HIP_FORCE_DEV_KERNARG=1
export TORCH_BLAS_PREFER_HIPBLASLT=1
export AITER_JIT_DIR="${AITER_JIT_DIR:-/tmp/aiter-jit}"
mkdir -p "$AITER_JIT_DIR"

# Room for the prompt, the answer and the random-range jitter.
MAX_MODEL_LEN=$((ISL + OSL + 256))
MAX_NUM_SEQS="$CONC"

EXTRA_ARGS=()
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    EXTRA_ARGS+=(--enable-expert-parallel)
fi

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

python3 -m atom.entrypoints.openai_server \
    --model "${MODEL_PATH:-$MODEL}" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tensor-parallel-size "$TP" \
    --kv_cache_dtype fp8 \
    --gpu-memory-utilization 0.90 \
    --max-model-len "$MAX_MODEL_LEN" \
    --max-num-seqs "$MAX_NUM_SEQS" \
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
