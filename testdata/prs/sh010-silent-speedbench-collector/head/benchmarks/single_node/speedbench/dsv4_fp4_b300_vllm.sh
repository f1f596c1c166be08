#!/usr/bin/env bash
set -euo pipefail

# Acceptance-length collector for DeepSeek-V4-Pro MTP on B300: replays the
# SPEED-Bench coding split at each draft length and records the measured AL
# into golden_al_distribution/dsv4_mtp.yaml. Not a throughput benchmark:
# the prompts are SPEED-Bench's own chat conversations.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL SPEEDBENCH_DIR RESULT_DIR

PORT="${PORT:-8888}"
CATEGORY="${CATEGORY:-coding}"
mkdir -p "$RESULT_DIR"

for mtp in 1 2 3; do
    SERVER_LOG="$RESULT_DIR/server_mtp${mtp}.log"
    vllm serve "$MODEL" \
        --port "$PORT" \
        --tensor-parallel-size 8 \
        --tokenizer-mode deepseek_v4 \
        --speculative-config "{\"method\": \"mtp\", \"num_speculative_tokens\": ${mtp}}" \
        > "$SERVER_LOG" 2>&1 &
    SERVER_PID=$!
    wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

    vllm bench serve \
        --model "$MODEL" \
        --port "$PORT" \
        --dataset-name speed_bench \
        --dataset-path "$SPEEDBENCH_DIR" \
        --speed-bench-category "$CATEGORY" \
        --num-prompts -1 \
        --max-concurrency 1 \
        --save-result \
        --result-dir "$RESULT_DIR" \
        --result-filename "speedbench_mtp${mtp}"

    stop_pids "$SERVER_PID"
done
