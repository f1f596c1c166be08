#!/usr/bin/env bash
set -euo pipefail

# GLM-5.2 NVFP4 on B200 with SGLang, fixed sequence length.
# Config: glm5.2-fp4-b200-sglang.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME

PORT="${PORT:-8888}"
SERVER_LOG=/workspace/server.log

echo "TP: $TP, EP_SIZE: ${EP_SIZE:-1}, CONC: $CONC"

python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tp-size "$TP" \
    --mem-fraction-static 0.85 \
    --context-length $((ISL + OSL + 256)) > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server "$PORT" "$SERVER_LOG"
run_client
kill "$SERVER_PID"
