#!/usr/bin/env bash
set -euo pipefail

# Kimi-K3 W4A16 (FP4 weights, Marlin kernels) on 8x H200 with vLLM,
# agentic-coding trace replay. TP8 only: H200's 141 GB per GPU leaves little
# KV room next to the weights, so the interesting arms are the offload ones.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC RESULT_DIR
require_agentic_kv_offload_backend vllm-simple native none

PORT="${PORT:-8888}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

SERVED_MODEL="$MODEL"
if [[ -n "${MODEL_PATH:-}" ]]; then
    SERVED_MODEL="$MODEL_PATH"
fi

export PYTORCH_ALLOC_CONF=expandable_segments:True
export VLLM_ENGINE_READY_TIMEOUT_S=3600

MAX_NUM_SEQS=$((2 * CONC))

OFFLOAD_ARGS=()
case "${KV_OFFLOAD_BACKEND:-}" in
    vllm-simple)
        check_env_vars TOTAL_CPU_DRAM_GB
        # cpu_bytes_to_use is the engine-wide budget; the connector divides it
        # by the TP world size itself, so the node total is passed as is.
        CPU_BYTES=$(kv_offload_cpu_bytes "$TOTAL_CPU_DRAM_GB")
        # JSON form rather than the --kv_offloading_backend native shortcut, so
        # that lazy_offload=true can be passed. Eager mode (lazy_offload false)
        # hits a popleft_n AssertionError at low/mid concurrency with
        # SimpleCPUOffloadConnector, which is exactly where this sweep runs.
        export VLLM_USE_SIMPLE_KV_OFFLOAD=1
        OFFLOAD_CONFIG=$(cat <<EOF
{
  "kv_connector": "SimpleCPUOffloadConnector",
  "kv_role": "kv_both",
  "kv_connector_extra_config": {
    "cpu_bytes_to_use": ${CPU_BYTES},
    "lazy_offload": true
  }
}
EOF
)
        OFFLOAD_ARGS=(--kv-transfer-config "$OFFLOAD_CONFIG")
        ;;
    native)
        check_env_vars TOTAL_CPU_DRAM_GB
        # Deliberately unset: the native backend resolves to
        # OffloadingConnector unless VLLM_USE_SIMPLE_KV_OFFLOAD=1 switches it
        # to SimpleCPUOffloadConnector, and this arm is the OffloadingConnector
        # baseline.
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        OFFLOAD_ARGS=(--kv_offloading_backend native --kv_offloading_size "$TOTAL_CPU_DRAM_GB")
        ;;
    none|"")
        ;;
esac

VLLM_CMD=(
    vllm serve "$SERVED_MODEL"
    --served-model-name "$MODEL"
    --host 0.0.0.0
    --port "$PORT"
    --tensor-parallel-size "$TP"
    --trust-remote-code
    --kv-cache-dtype fp8
    --gpu-memory-utilization 0.93
    --max-model-len 196608
    --max-num-batched-tokens 8192
    --max-num-seqs "$MAX_NUM_SEQS"
    --max-cudagraph-capture-size "$MAX_NUM_SEQS"
    --enable-prefix-caching
    --tool-call-parser kimi_k3
    --enable-auto-tool-choice
    --reasoning-parser kimi_k3
    "${OFFLOAD_ARGS[@]}"
)

if [ "${EP_SIZE:-1}" -gt 1 ]; then
    VLLM_CMD+=(--enable-expert-parallel)
fi

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

echo "launching: ${VLLM_CMD[*]}"
"${VLLM_CMD[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_agentic_benchmark \
    --model "$MODEL" \
    --port "$PORT" \
    --concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
