#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-V4-Pro FP8 on 8x H200 with vLLM, fixed sequence length.
# Config: dsv4-fp8-h200-vllm (configs/nvidia-master.yaml): TP8 only, the
# FP8 checkpoint does not fit a smaller H200 slice.

source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME RESULT_DIR

PORT="${PORT:-8888}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

huggingface-cli download "$MODEL" > /dev/null
export HF_HUB_OFFLINE=1

MAX_MODEL_LEN=$((ISL + OSL + 256))

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

vllm serve "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tensor-parallel-size "$TP" \
    --kv-cache-dtype fp8 \
    --gpu-memory-utilization 0.9 \
    --no-enable-prefix-caching \
    --tokenizer-mode deepseek_v4 > "$SERVER_LOG" 2>&1 &
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
