#!/usr/bin/env bash
set -euo pipefail

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC EP_SIZE DP_ATTENTION RESULT_DIR SPEC_DECODING

PORT=8888
SERVER_LOG="$RESULT_DIR/server.log"

if [[ "$SPEC_DECODING" == "mtp" ]]; then
    # AgentX replays fixed traces: simulate the golden acceptance length.
    export SGLANG_SIMULATE_ACC_LEN=2.8
    SPEC_ARGS="--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
else
    SPEC_ARGS=""
fi

DP_ARGS=""
if [ "$DP_ATTENTION" = "true" ]; then
    DP_ARGS="--enable-dp-attention --dp-size $TP"
fi

SGLANG_ENABLE_JIT_DEEPGEMM=0 nohup python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    --host 0.0.0.0 --port "$PORT" \
    --tp "$TP" --ep-size "$EP_SIZE" \
    $DP_ARGS \
    $SPEC_ARGS \
    --cuda-graph-bs 1 2 4 8 16 \
    --mem-fraction-static=0.85 \
    --tool-call-parser qwen25 \
    --reasoning-parser qwen3 \
    --trust-remote-code > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_benchmark_serving \
    --model "$MODEL" \
    --port "$PORT" \
    --backend sglang \
    --use-chat-template \
    --max-concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
