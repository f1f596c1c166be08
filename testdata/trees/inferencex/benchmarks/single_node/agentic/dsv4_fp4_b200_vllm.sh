#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-V4-Pro FP4 on 8x B200 with vLLM, agentic-coding trace replay.
# Config: dsv4-fp4-b200-vllm-agentic (configs/nvidia-master.yaml).
# Arms: TP8 with GPU-resident KV, TP8 with host-DRAM KV offload through the
# simple CPU connector, Mooncake or LMCache, and DEP8 for the throughput end.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC DP_ATTENTION RESULT_DIR
require_agentic_kv_offload_backend vllm-simple mooncake lmcache none

PORT="${PORT:-8888}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

# A pre-staged checkpoint avoids every node hitting the hub at once.
SERVED_MODEL="$MODEL"
if [[ -n "${MODEL_PATH:-}" ]]; then
    SERVED_MODEL="$MODEL_PATH"
fi

# Long agentic contexts fragment the allocator; expandable segments keep the
# KV pool from losing several GiB to fragmentation over a two-hour replay.
export PYTORCH_ALLOC_CONF=expandable_segments:True
export VLLM_ENGINE_READY_TIMEOUT_S=3600

if [ "$DP_ATTENTION" = "true" ]; then
    # Each DP rank is an independent engine that sees about CONC/TP of the
    # sessions, so the per-engine caps scale down by the DP world size.
    if (( (2 * CONC) % TP != 0 )); then
        echo "error: 2*CONC=$((2 * CONC)) must be divisible by TP=$TP under DP attention" >&2
        exit 1
    fi
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC / TP))
    OFFLOAD_RANKS="$TP"
else
    PARALLEL_ARGS=(--tensor-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC))
    OFFLOAD_RANKS=1
fi

OFFLOAD_ARGS=()
MOONCAKE_PID=""
LMCACHE_PID=""
case "${KV_OFFLOAD_BACKEND:-}" in
    vllm-simple)
        check_env_vars TOTAL_CPU_DRAM_GB
        # The connector splits cpu_bytes_to_use over the engine's TP ranks;
        # a DP rank is an engine of world size 1, so it gets its share here.
        CPU_BYTES=$(( $(kv_offload_cpu_bytes "$TOTAL_CPU_DRAM_GB") / OFFLOAD_RANKS ))
        export VLLM_USE_SIMPLE_KV_OFFLOAD=1
        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"SimpleCPUOffloadConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"cpu_bytes_to_use\":${CPU_BYTES},\"lazy_offload\":true}}")
        ;;
    mooncake)
        check_env_vars TOTAL_CPU_DRAM_GB
        # vLLM's offloading backend resolves to OffloadingConnector unless
        # VLLM_USE_SIMPLE_KV_OFFLOAD is set, which would swap in
        # SimpleCPUOffloadConnector; this arm measures Mooncake, so the
        # variable is kept unset even if the launcher environment carries it.
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        MOONCAKE_CONFIG_PATH="$RESULT_DIR/mooncake.json"
        cat > "$MOONCAKE_CONFIG_PATH" <<EOF
{
  "local_hostname": "127.0.0.1",
  "metadata_server": "P2PHANDSHAKE",
  "master_server_address": "127.0.0.1:50051",
  "protocol": "tcp",
  "global_segment_size": "${TOTAL_CPU_DRAM_GB}GB"
}
EOF
        export MOONCAKE_CONFIG_PATH
        mooncake_master --rpc_port 50051 > "$RESULT_DIR/mooncake_master.log" 2>&1 &
        MOONCAKE_PID=$!
        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}')
        ;;
    lmcache)
        check_env_vars TOTAL_CPU_DRAM_GB
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        # The LMCache server maps the KV buffers over legacy CUDA IPC, which
        # cannot export VMM (expandable-segment) allocations.
        unset PYTORCH_ALLOC_CONF
        LMCACHE_PORT="${LMCACHE_PORT:-6555}"
        # Leave a quarter of the budget to pinned staging buffers.
        LMCACHE_L1_SIZE_GB=$((TOTAL_CPU_DRAM_GB * 3 / 4))
        lmcache server --l1-size-gb "$LMCACHE_L1_SIZE_GB" --port "$LMCACHE_PORT" > "$RESULT_DIR/lmcache.log" 2>&1 &
        LMCACHE_PID=$!
        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"LMCacheMPConnector\",\"kv_connector_module_path\":\"lmcache.integration.vllm.lmcache_mp_connector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"lmcache.mp.port\":${LMCACHE_PORT}}}")
        ;;
    none|"")
        # GPU-resident KV only.
        ;;
esac

VLLM_CMD=(
    vllm serve "$SERVED_MODEL"
    --served-model-name "$MODEL"
    --host 0.0.0.0
    --port "$PORT"
    "${PARALLEL_ARGS[@]}"
    --kv-cache-dtype fp8
    --block-size 256
    --attention-backend FLASHINFER_MLA_SPARSE_DSV4
    --gpu-memory-utilization 0.92
    --max-model-len 262144
    --max-num-batched-tokens 16384
    --max-num-seqs "$MAX_NUM_SEQS"
    --max-cudagraph-capture-size "$MAX_NUM_SEQS"
    --enable-prefix-caching
    --tokenizer-mode deepseek_v4
    --tool-call-parser deepseek_v4
    --enable-auto-tool-choice
    --reasoning-parser deepseek_v4
    "${OFFLOAD_ARGS[@]}"
)

if [ "${EP_SIZE:-1}" -gt 1 ]; then
    VLLM_CMD+=(--enable-expert-parallel)
fi

cleanup() {
    stop_pids "${SERVER_PID:-}" "${MOONCAKE_PID:-}" "${LMCACHE_PID:-}"
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
