#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-V4-Pro FP4 on 8x B200 with vLLM and MTP speculative decoding,
# fixed sequence length (8k/1k). The launcher routes spec-decoding=mtp points
# of dsv4-fp4-b200-vllm here through the _mtp suffix.

source "$(dirname "$0")/../../benchmark_lib.sh"

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
export VLLM_ENGINE_READY_TIMEOUT_S=3600

# Fixed-sequence runs verify drafts for real (no synthetic acceptance), so
# the measured acceptance depends on the prompts looking like chat turns.
NUM_SPEC_TOKENS=3
MAX_MODEL_LEN=$((ISL + OSL + 256))

if [ "${DP_ATTENTION:-false}" = "true" ]; then
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
    MAX_NUM_SEQS=$(( (CONC + TP - 1) / TP ))
else
    PARALLEL_ARGS=(--tensor-parallel-size "$TP")
    MAX_NUM_SEQS="$CONC"
fi
# Each sequence verifies 1 + NUM_SPEC_TOKENS positions per step.
CAPTURE_SIZE=$((MAX_NUM_SEQS * (1 + NUM_SPEC_TOKENS)))

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
    "${PARALLEL_ARGS[@]}" \
    --kv-cache-dtype fp8 \
    --block-size 256 \
    --attention-backend FLASHINFER_MLA_SPARSE_DSV4 \
    --gpu-memory-utilization 0.90 \
    --max-model-len "$MAX_MODEL_LEN" \
    --max-num-batched-tokens 16384 \
    --max-num-seqs "$MAX_NUM_SEQS" \
    --max-cudagraph-capture-size "$CAPTURE_SIZE" \
    --no-enable-prefix-caching \
    --tokenizer-mode deepseek_v4 \
    --speculative-config "{\"method\": \"mtp\", \"num_speculative_tokens\": ${NUM_SPEC_TOKENS}}" \
    "${EXTRA_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

# The MTP head is trained on chat-formatted text; raw random tokens would
# understate acceptance, so prompts go through the chat template.
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
    --result-dir "$RESULT_DIR" \
    --use-chat-template

run_eval_if_requested "$MODEL" "$PORT"
