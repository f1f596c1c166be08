#!/usr/bin/env bash
set -euo pipefail
source "$(dirname "$0")/../benchmark_lib.sh"

SERVER_LOG=/workspace/server.log
CONTEXT_ARGS=()
if [ "${EVAL_ONLY}" = "true" ]; then
    setup_eval_context
    CONTEXT_ARGS=(--context-length "$EVAL_MAX_MODEL_LEN")
fi

python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    --port "$PORT" \
    --tp-size "$TP" \
    "${CONTEXT_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!
wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"
