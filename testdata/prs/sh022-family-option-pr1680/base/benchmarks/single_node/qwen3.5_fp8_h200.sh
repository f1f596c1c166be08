#!/usr/bin/env bash
set -euo pipefail

# Qwen3.5 FP8 on H200 with SGLang, fixed sequence length.

source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME

SERVER_LOG=/workspace/server.log
PORT=${PORT:-8888}

hf download "$MODEL"

python3 -m sglang.launch_server --model-path "$MODEL" --trust-remote-code \
    --host 0.0.0.0 --port "$PORT" \
    --tensor-parallel-size "$TP" \
    --attention-backend fa3 \
    --mem-fraction-static 0.8 \
    --tokenizer-worker-num 6 \
    --max-running-requests "$CONC" \
    --cuda-graph-max-bs "$CONC" \
    --disable-radix-cache > "$SERVER_LOG" 2>&1 &
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
    --result-dir /workspace/
