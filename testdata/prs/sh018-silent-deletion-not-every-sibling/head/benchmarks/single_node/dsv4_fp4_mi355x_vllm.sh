#!/usr/bin/env bash
set -eo pipefail

# DeepSeek-V4-Pro FP4 on 8x MI355X with vLLM (ROCm), fixed sequence length.
# Config: dsv4-fp4-mi355x-vllm (configs/amd-master.yaml).
#
# The MoE experts run through the unfused Triton path: the fused ROCm MoE
# kernels do not read this checkpoint's per-expert scales yet. Full CUDA
# graph capture (compilation mode 3) for the decode batches.

source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME RESULT_DIR

export VLLM_ROCM_USE_AITER=1

SERVER_LOG=/workspace/server.log
PORT=${PORT:-8888}
MAX_MODEL_LEN=$((ISL + OSL + 256))

PARALLEL_ARGS=(--tensor-parallel-size "$TP")
EP_ARGS=()
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    EP_ARGS=(--enable-expert-parallel)
fi

set -x
vllm serve $MODEL --port $PORT \
    "${PARALLEL_ARGS[@]}" \
    "${EP_ARGS[@]}" \
    --distributed-executor-backend mp \
    --gpu-memory-utilization 0.8 \
    --kv-cache-dtype fp8 \
    --trust-remote-code \
    --async-scheduling \
    --moe-backend triton_unfused \
    --no-enable-prefix-caching \
    --tokenizer-mode deepseek_v4 \
    --compilation-config '{"mode":3,"cudagraph_mode":"FULL_AND_PIECEWISE"}' > $SERVER_LOG 2>&1 &

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
    --result-dir "$RESULT_DIR"
