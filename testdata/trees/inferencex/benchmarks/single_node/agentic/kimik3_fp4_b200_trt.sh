#!/usr/bin/env bash
set -euo pipefail

# Kimi-K3 NVFP4 on 8x B200 with TensorRT-LLM (PyTorch backend), agentic-coding
# trace replay. TP8 or DEP8; no speculative decoding (TRT-LLM has no DSpark
# drafter, and the golden Kimi-K3 curve is DSpark-only).

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC DP_ATTENTION RESULT_DIR
require_agentic_kv_offload_backend native none

PORT="${PORT:-8000}"
SERVER_LOG="$RESULT_DIR/server.log"
EXTRA_CONFIG="$RESULT_DIR/extra-llm-api-config.yml"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

SERVED_MODEL="$MODEL"
if [[ -n "${MODEL_PATH:-}" ]]; then
    SERVED_MODEL="$MODEL_PATH"
fi

# Per-rank batch under attention DP, as in the other TRT-LLM recipes.
if [ "$DP_ATTENTION" = "true" ]; then
    ENABLE_ATTENTION_DP=true
    MAX_BATCH_SIZE=$(( (2 * CONC + TP - 1) / TP ))
else
    ENABLE_ATTENTION_DP=false
    MAX_BATCH_SIZE=$((2 * CONC))
fi

HOST_CACHE_BYTES=0
case "${KV_OFFLOAD_BACKEND:-}" in
    native)
        check_env_vars TOTAL_CPU_DRAM_GB
        HOST_CACHE_BYTES=$(( $(kv_offload_cpu_bytes "$TOTAL_CPU_DRAM_GB") / TP ))
        ;;
    none|"")
        ;;
esac

cat > "$EXTRA_CONFIG" <<EOF
enable_attention_dp: ${ENABLE_ATTENTION_DP}
cuda_graph_config:
  enable_padding: true
  max_batch_size: ${MAX_BATCH_SIZE}
kv_cache_config:
  dtype: fp8
  enable_block_reuse: true
  free_gpu_memory_fraction: 0.85
  host_cache_size: ${HOST_CACHE_BYTES}
moe_config:
  backend: TRTLLM
print_iter_log: false
EOF

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

trtllm-serve "$SERVED_MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --backend pytorch \
    --tp_size "$TP" \
    --ep_size "${EP_SIZE:-1}" \
    --max_batch_size "$MAX_BATCH_SIZE" \
    --max_num_tokens 16384 \
    --max_seq_len 262144 \
    --trust_remote_code \
    --tool_parser kimi_k3 \
    --reasoning_parser kimi_k3 \
    --extra_llm_api_options "$EXTRA_CONFIG" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_agentic_benchmark \
    --model "$MODEL" \
    --port "$PORT" \
    --concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
