#!/usr/bin/env bash
set -euo pipefail

# GLM-5.2 FP4 on 8x B200 with vLLM and the DSpark draft head, agentic-coding
# trace replay. Config: glm5.2-fp4-b300-vllm-agentic-dspark
# (configs/nvidia-master.yaml). TP8 or DEP8, optional host-DRAM KV offload.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC DP_ATTENTION RESULT_DIR
KV_OFFLOAD_BACKEND="${KV_OFFLOAD_BACKEND:-none}"
require_agentic_kv_offload_backend vllm-simple mooncake none

PORT="${PORT:-8888}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

export PYTORCH_ALLOC_CONF=expandable_segments:True
export VLLM_ENGINE_READY_TIMEOUT_S=3600

if [ "$DP_ATTENTION" = "true" ]; then
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
case "$KV_OFFLOAD_BACKEND" in
    vllm-simple)
        check_env_vars TOTAL_CPU_DRAM_GB
        # Per-engine budget: the whole node under TP, a rank's share under DP.
        CPU_BYTES=$(( $(kv_offload_cpu_bytes "$TOTAL_CPU_DRAM_GB") / OFFLOAD_RANKS ))
        export VLLM_USE_SIMPLE_KV_OFFLOAD=1
        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":'"${CPU_BYTES}"',"lazy_offload":true}}')
        ;;
    mooncake)
        check_env_vars TOTAL_CPU_DRAM_GB
        # The offloading backend resolves to OffloadingConnector by default and
        # VLLM_USE_SIMPLE_KV_OFFLOAD=1 would turn it into
        # SimpleCPUOffloadConnector; keep it unset so only Mooncake is measured.
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
    none)
        ;;
esac

VLLM_CMD=(
    vllm serve "$MODEL"
    --host 0.0.0.0
    --port "$PORT"
    "${PARALLEL_ARGS[@]}"
    --trust-remote-code
    --kv-cache-dtype fp8
    --attention-backend FLASHINFER_MLA
    --gpu-memory-utilization 0.90
    --max-model-len 262144
    --max-num-batched-tokens 16384
    --max-num-seqs "$MAX_NUM_SEQS"
    --max-cudagraph-capture-size "$MAX_NUM_SEQS"
    --enable-prefix-caching
    --tool-call-parser glm47
    --enable-auto-tool-choice
    --reasoning-parser glm47
    "${OFFLOAD_ARGS[@]}"
)

if [ "${EP_SIZE:-1}" -gt 1 ]; then
    VLLM_CMD+=(--enable-expert-parallel)
fi

cleanup() {
    stop_pids "${SERVER_PID:-}" "${MOONCAKE_PID:-}"
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
