#!/usr/bin/env bash
set -euo pipefail

# Qwen3.5-397B-A17B FP8 on 8x H100 with SGLang, fixed sequence length.
# Config: qwen3.5-fp8-h100-sglang. Runs in docker on the H100 host.

source benchmarks/benchmark_lib.sh

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME

SERVER_LOG=/workspace/server.log

python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tp-size "$TP" \
    --mem-fraction-static 0.88 \
    --context-length "$MAX_MODEL_LEN" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server "$PORT" "$SERVER_LOG"
run_client
kill "$SERVER_PID"
