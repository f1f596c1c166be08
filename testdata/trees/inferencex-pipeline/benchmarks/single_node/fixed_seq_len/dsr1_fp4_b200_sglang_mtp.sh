#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-R1-0528 FP4 on B200 with SGLang and MTP (EAGLE, 3 steps).
# Config: dsr1-fp4-b200-sglang-mtp.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME

PORT="${PORT:-8888}"
SERVER_LOG=/workspace/server.log

python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tp-size "$TP" \
    --quantization modelopt_fp4 \
    --speculative-algorithm EAGLE \
    --speculative-num-steps 3 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 4 \
    --context-length $((ISL + OSL + 256)) > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server "$PORT" "$SERVER_LOG"
run_client --use-chat-template
kill "$SERVER_PID"
