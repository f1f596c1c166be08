#!/usr/bin/env bash
set -euo pipefail

# GLM-5.2 NVFP4 on B200 with SGLang, fixed sequence length.
# Config: glm5.2-fp4-b200-sglang.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME

PORT="${PORT:-8888}"
SERVER_LOG=/workspace/server.log

PARALLEL_ARGS=(--tp-size "$TP")
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    PARALLEL_ARGS+=(--ep-size "$EP_SIZE")
fi
if [ "${DP_ATTENTION:-false}" = "true" ]; then
    PARALLEL_ARGS+=(--dp-size "$TP" --enable-dp-attention)
fi

python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    "${PARALLEL_ARGS[@]}" \
    --quantization modelopt_fp4 \
    --mem-fraction-static 0.85 \
    --context-length $((ISL + OSL + 256)) > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server "$PORT" "$SERVER_LOG"
run_client
kill "$SERVER_PID"
