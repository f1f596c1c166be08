#!/usr/bin/env bash
set -euo pipefail

# GLM-5.2 NVFP4 on B300 with vLLM and MTP, fixed sequence length.

source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME RESULT_DIR

PORT="${PORT:-8888}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"
export VLLM_ENGINE_READY_TIMEOUT_S=3600

NUM_SPEC_TOKENS=3
SPEC_CONFIG='{"method": "mtp", "num_speculative_tokens": 3}'

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

vllm serve "${MODEL_PATH:-$MODEL}" \
    --served-model-name "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tensor-parallel-size "$TP" \
    --gpu-memory-utilization 0.90 \
    --max-model-len $((ISL + OSL + 256)) \
    --speculative-config "$SPEC_CONFIG" \
    --max-num-seqs "$CONC" > "$SERVER_LOG" 2>&1 &
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
    --result-dir "$RESULT_DIR" \
    --use-chat-template
