#!/usr/bin/env bash
set -euo pipefail

# GLM-5.2 NVFP4 on B200 with SGLang and MTP (EAGLE) speculative decoding,
# fixed sequence length (8k/1k).

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

# Three draft steps; acceptance is measured for real here (fixed-seq-len).
SPEC_ARGS=(
    --speculative_algorithm EAGLE
    --speculative_num_steps 3
    --speculative_eagle_topk 1
    --speculative_num_draft_tokens 4
)

MAX_RUNNING="$CONC"
DP_ARGS=()
if [ "${DP_ATTENTION:-false}" = "true" ]; then
    DP_ARGS=(--enable-dp-attention --dp "$TP")
    CUDA_GRAPH_MAX_BS=$(( (CONC + TP - 1) / TP ))
else
    CUDA_GRAPH_MAX_BS="$CONC"
fi

EP_ARGS=()
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    EP_ARGS=(--ep-size "$EP_SIZE")
fi

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

python3 -m sglang.launch_server \
    --model-path "${MODEL_PATH:-$MODEL}" \
    --served-model-name "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tp "$TP" \
    --trust-remote-code \
    --quantization modelopt_fp4 \
    --kv-cache-dtype fp8_e4m3 \
    --moe-runner-backend flashinfer_trtllm \
    --mem-fraction-static 0.82 \
    --chunked-prefill-size 16384 \
    --max-running-requests "$MAX_RUNNING" \
    --cuda-graph-max-bs "$CUDA_GRAPH_MAX_BS" \
    --disable-radix-cache \
    "${SPEC_ARGS[@]}" \
    "${DP_ARGS[@]}" \
    "${EP_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

# EAGLE/MTP heads are trained on chat-formatted text; random raw tokens
# understate acceptance, so the prompts go through the chat template.
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
    --result-dir "$RESULT_DIR" \
    --use-chat-template

run_eval_if_requested "$MODEL" "$PORT"
