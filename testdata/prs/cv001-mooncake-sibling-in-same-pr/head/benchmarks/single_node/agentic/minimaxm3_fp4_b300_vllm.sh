#!/usr/bin/env bash
set -euo pipefail

# MiniMax-M3 NVFP4 on B300 with vLLM and the EAGLE3 draft head, agentic-coding
# trace replay. TP4/TP8 or DEP8, optional host-DRAM KV offload through the
# native offloading backend (OffloadingConnector or, with the switch set,
# SimpleCPUOffloadConnector).

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC DP_ATTENTION RESULT_DIR
require_agentic_kv_offload_backend vllm-simple native mooncake none

PORT="${PORT:-8888}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

export PYTORCH_ALLOC_CONF=expandable_segments:True
export VLLM_ENGINE_READY_TIMEOUT_S=3600

# EAGLE3 with three draft tokens. The acceptance length is the golden value
# from golden_al_distribution/minimaxm3_eagle3.yaml (minimax-m3, thinking_on,
# 3 tokens); the agentic traces run with thinking enabled.
NUM_SPEC_TOKENS=3
SYNTHETIC_AL=2.74
SPEC_CONFIG="{\"method\":\"eagle3\",\"model\":\"nvidia/MiniMax-M3-EAGLE3\",\"num_speculative_tokens\":${NUM_SPEC_TOKENS},\"rejection_sample_method\":\"synthetic\",\"synthetic_acceptance_length\":${SYNTHETIC_AL}}"

if [ "$DP_ATTENTION" = "true" ]; then
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC / TP))
else
    PARALLEL_ARGS=(--tensor-parallel-size "$TP")
    MAX_NUM_SEQS=$((2 * CONC))
fi
CAPTURE_SIZE=$((MAX_NUM_SEQS * (1 + NUM_SPEC_TOKENS)))

OFFLOAD_ARGS=()
MOONCAKE_PID=""
case "${KV_OFFLOAD_BACKEND:-}" in
    vllm-simple)
        check_env_vars TOTAL_CPU_DRAM_GB
        # Shortcut form: the native backend with the switch set builds a
        # SimpleCPUOffloadConnector with its default extra config. This arm
        # only runs at conc >= 32, above the range where eager offload trips
        # (see kimik3_fp4_h200_vllm.sh), so the JSON form is not needed here.
        export VLLM_USE_SIMPLE_KV_OFFLOAD=1
        OFFLOAD_ARGS=(--kv_offloading_backend native --kv_offloading_size "$TOTAL_CPU_DRAM_GB")
        ;;
    native)
        check_env_vars TOTAL_CPU_DRAM_GB
        # Same flags as above, but this arm wants the default resolution to
        # OffloadingConnector; VLLM_USE_SIMPLE_KV_OFFLOAD=1 would switch it to
        # SimpleCPUOffloadConnector, so it is explicitly unset.
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        OFFLOAD_ARGS=(--kv_offloading_backend native --kv_offloading_size "$TOTAL_CPU_DRAM_GB")
        ;;
    mooncake)
        check_env_vars TOTAL_CPU_DRAM_GB
        # Mooncake's store serves the offloaded KV from host DRAM; the
        # simple-offload switch must stay off so only Mooncake is measured.
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
        mooncake_master --rpc_port 50051 > "$RESULT_DIR/mooncake_master.log" 2>&1 &
        MOONCAKE_PID=$!
        OFFLOAD_ARGS=(--kv-transfer-config '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}')
        ;;
    none|"")
        ;;
esac

VLLM_CMD=(
    vllm serve "$MODEL"
    --host 0.0.0.0
    --port "$PORT"
    "${PARALLEL_ARGS[@]}"
    --block-size 128
    --language-model-only
    --kv-cache-dtype fp8
    --gpu-memory-utilization 0.90
    --max-model-len 262144
    --max-num-batched-tokens 16384
    --max-num-seqs "$MAX_NUM_SEQS"
    --max-cudagraph-capture-size "$CAPTURE_SIZE"
    --enable-prefix-caching
    --tool-call-parser minimax_m3
    --enable-auto-tool-choice
    --reasoning-parser minimax_m3
    "${OFFLOAD_ARGS[@]}"
)
VLLM_CMD+=(--speculative-config "$SPEC_CONFIG")

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
