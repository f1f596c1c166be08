#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-V4.1-Flash FP4 on a 4-GPU GB200 tray with vLLM and the DSpark draft
# head, agentic-coding trace replay.
# Config: dsv41flash-fp4-gb200-vllm-agentic-dspark (configs/nvidia-master.yaml).
# TP4 across the tray; host-DRAM offload over NVLink-C2C is optional.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC RESULT_DIR
require_agentic_kv_offload_backend vllm-simple none

PORT="${PORT:-8888}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

export PYTORCH_ALLOC_CONF=expandable_segments:True
export VLLM_ENGINE_READY_TIMEOUT_S=3600

# One engine across the tray: the batch cap follows CONC, and the capture
# size covers every sequence verifying the full draft (1 + 3 positions).
MAX_NUM_SEQS=$((2 * CONC))
CAPTURE_SIZE=$((MAX_NUM_SEQS * 4))

EXTRA_ARGS=()
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    EXTRA_ARGS+=(--enable-expert-parallel)
fi

OFFLOAD_ARGS=()
case "${KV_OFFLOAD_BACKEND:-}" in
    vllm-simple)
        check_env_vars TOTAL_CPU_DRAM_GB
        CPU_BYTES=$(kv_offload_cpu_bytes "$TOTAL_CPU_DRAM_GB")
        export VLLM_USE_SIMPLE_KV_OFFLOAD=1
        OFFLOAD_CONFIG=$(cat <<EOF
{"kv_connector": "SimpleCPUOffloadConnector", "kv_role": "kv_both", "kv_connector_extra_config": {"cpu_bytes_to_use": ${CPU_BYTES}, "lazy_offload": true}}
EOF
)
        OFFLOAD_ARGS=(--kv-transfer-config "$OFFLOAD_CONFIG")
        ;;
    none|"")
        ;;
esac

cleanup() {
    stop_pids "${SERVER_PID:-}"
}
trap cleanup EXIT

# Speculative decoding: DSpark, 3 draft tokens, synthetic acceptance at the
# golden AL from golden_al_distribution/dsv41flash_dspark.yaml
# (deepseek-v4.1-flash, thinking_on, 3 tokens -> 2.91).
vllm serve "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tensor-parallel-size "$TP" \
    --kv-cache-dtype fp8 \
    --block-size 256 \
    --attention-backend FLASHINFER_MLA_SPARSE_DSV4 \
    --gpu-memory-utilization 0.90 \
    --max-model-len 262144 \
    --max-num-batched-tokens 16384 \
    --max-num-seqs "$MAX_NUM_SEQS" \
    --max-cudagraph-capture-size "$CAPTURE_SIZE" \
    --enable-prefix-caching \
    --tokenizer-mode deepseek_v4 \
    --tool-call-parser deepseek_v4 \
    --enable-auto-tool-choice \
    --reasoning-parser deepseek_v4 \
    --speculative-config '{"method": "dspark", "model": "deepseek-ai/DeepSeek-V4.1-Flash-DSpark", "num_speculative_tokens": 3, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.91}' \
    "${EXTRA_ARGS[@]}" \
    "${OFFLOAD_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_agentic_benchmark \
    --model "$MODEL" \
    --port "$PORT" \
    --concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
