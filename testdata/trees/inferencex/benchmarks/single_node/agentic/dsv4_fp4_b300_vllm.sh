#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-V4-Pro FP4 on B300 with vLLM, agentic-coding trace replay.
# Config: dsv4-fp4-b300-vllm-agentic (configs/nvidia-master.yaml).
# Arms: TP4 (GPU KV or simple CPU offload), DEP4 and DEP8 behind vllm-router
# with a Mooncake host tier.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC DP_ATTENTION RESULT_DIR
require_agentic_kv_offload_backend vllm-simple mooncake none

PORT="${PORT:-8888}"
ROUTER_PORT="${ROUTER_PORT:-8000}"
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

if [ "$DP_ATTENTION" = "true" ]; then
    # DEP: every DP rank is its own engine and the router spreads sessions
    # over them, so the per-engine batch cap is the rank's share of 2*CONC.
    if (( (2 * CONC) % TP != 0 )); then
        echo "error: 2*CONC=$((2 * CONC)) must be divisible by TP=$TP under DP attention" >&2
        exit 1
    fi
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC / TP))
    OFFLOAD_RANKS="$TP"
    # Ranks must agree on prefix-block hashes for the router's affinity.
    export PYTHONHASHSEED=42
else
    PARALLEL_ARGS=(--tensor-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC))
    OFFLOAD_RANKS=1
fi
GPU_MEM_UTIL=0.94
if [ "$TP" -ge 8 ]; then
    # DEP8 leaves less headroom for DeepGEMM JIT and cuBLAS workspaces.
    GPU_MEM_UTIL=0.92
fi

OFFLOAD_ARGS=()
MOONCAKE_PID=""
case "${KV_OFFLOAD_BACKEND:-}" in
    vllm-simple)
        check_env_vars TOTAL_CPU_DRAM_GB
        # Under DP attention each engine has world size 1 and would claim the
        # whole budget, so it gets its rank's share up front.
        CPU_BYTES=$(( $(kv_offload_cpu_bytes "$TOTAL_CPU_DRAM_GB") / OFFLOAD_RANKS ))
        export VLLM_USE_SIMPLE_KV_OFFLOAD=1
        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":'"${CPU_BYTES}"',"lazy_offload":true}}')
        ;;
    mooncake)
        check_env_vars TOTAL_CPU_DRAM_GB
        # Left unset on purpose: without it the offloading backend resolves to
        # OffloadingConnector, and setting it would switch the engine to
        # SimpleCPUOffloadConnector underneath the Mooncake store.
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
    none|"")
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
    --gpu-memory-utilization "$GPU_MEM_UTIL"
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
    stop_pids "${ROUTER_PID:-}" "${SERVER_PID:-}" "${MOONCAKE_PID:-}"
}
trap cleanup EXIT

echo "launching: ${VLLM_CMD[*]}"
"${VLLM_CMD[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

CLIENT_PORT="$PORT"
if [ "${ROUTER:-}" = "vllm-router" ]; then
    # Consistent hashing keeps each session's turns on one DP rank so its
    # prefix stays warm.
    vllm-router \
        --port "$ROUTER_PORT" \
        --worker-urls "http://127.0.0.1:${PORT}" \
        --intra-node-data-parallel-size "$TP" \
        --policy consistent_hash > "$RESULT_DIR/router.log" 2>&1 &
    ROUTER_PID=$!
    wait_for_server_ready --port "$ROUTER_PORT" --server-log "$RESULT_DIR/router.log" --server-pid "$ROUTER_PID"
    CLIENT_PORT="$ROUTER_PORT"
fi

run_agentic_benchmark \
    --model "$MODEL" \
    --port "$CLIENT_PORT" \
    --concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
