#!/usr/bin/env bash
set -euo pipefail

# GLM-5 FP4 on B300 with SGLang and MTP (EAGLE) speculative decoding,
# fixed sequence length.

source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME RESULT_DIR

PORT="${PORT:-8888}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ "$MODEL" != /* ]]; then hf download "$MODEL"; fi

export SGLANG_ENABLE_SPEC_V2=1
export SGL_ENABLE_JIT_DEEPGEMM=0

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tp-size "$TP" \
    --tool-call-parser glm47 \
    --reasoning-parser glm45 \
    --mem-fraction-static 0.85 \
    --served-model-name glm-5 \
    --speculative-algorithm EAGLE \
    --speculative-num-steps 3 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 4 \
    --max-running-requests "$CONC" \
    --cuda-graph-max-bs "$CONC" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

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
