#!/usr/bin/env bash
set -euo pipefail

# GLM-5.2 NVFP4 on a 4-GPU GB300 tray with TensorRT-LLM (PyTorch backend)
# and MTP speculative decoding, agentic-coding trace replay. TP4 only.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC RESULT_DIR
require_agentic_kv_offload_backend native none

PORT="${PORT:-8000}"
SERVER_LOG="$RESULT_DIR/server.log"
EXTRA_CONFIG="$RESULT_DIR/extra-llm-api-config.yml"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

# Two next-n draft tokens: the verify width stays small on a 4-GPU tray.
# Forced acceptance is the golden AL minus the bonus token, rounded to the
# nearest integer: golden_al_distribution/glm5.2_mtp.yaml, glm-5.2,
# thinking_on, 2 tokens -> AL 2.46 -> 1.46 -> 1.
NUM_NEXTN_LAYERS=2
export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=1

# Single engine across the tray.
MAX_BATCH_SIZE=$((2 * CONC))

HOST_CACHE_BYTES=0
case "${KV_OFFLOAD_BACKEND:-}" in
    native)
        check_env_vars TOTAL_CPU_DRAM_GB
        # Grace memory is reached over NVLink-C2C; split it per rank.
        HOST_CACHE_BYTES=$(( $(kv_offload_cpu_bytes "$TOTAL_CPU_DRAM_GB") / TP ))
        ;;
    none|"")
        ;;
esac

cat > "$EXTRA_CONFIG" <<EOF
enable_attention_dp: false
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
speculative_config:
  decoding_type: MTP
  num_nextn_predict_layers: ${NUM_NEXTN_LAYERS}
print_iter_log: false
EOF

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

trtllm-serve "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --backend pytorch \
    --tp_size "$TP" \
    --ep_size "${EP_SIZE:-1}" \
    --max_batch_size "$MAX_BATCH_SIZE" \
    --max_num_tokens 8192 \
    --max_seq_len 202752 \
    --trust_remote_code \
    --tool_parser glm47 \
    --reasoning_parser glm45 \
    --extra_llm_api_options "$EXTRA_CONFIG" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_agentic_benchmark \
    --model "$MODEL" \
    --port "$PORT" \
    --concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
