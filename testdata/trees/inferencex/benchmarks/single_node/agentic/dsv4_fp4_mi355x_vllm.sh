#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-V4-Pro FP4 on 8x MI355X with vLLM (ROCm), agentic-coding trace replay.
# Config: dsv4-fp4-mi355x-vllm-agentic (configs/amd-master.yaml).
# TP8 only; host-DRAM KV offload through vLLM's native offloading backend,
# the explicit OffloadingConnector, or LMCache.

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC RESULT_DIR
require_agentic_kv_offload_backend native offloading lmcache none

PORT="${PORT:-8888}"
SERVER_LOG="$RESULT_DIR/server.log"
mkdir -p "$RESULT_DIR"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "slurm job ${SLURM_JOB_ID} on ${SLURMD_NODENAME:-unknown}"
fi

# AITER kernels for MLA and the fused MoE; the Triton fallbacks are far
# slower on gfx950.
export VLLM_ROCM_USE_AITER=1
export VLLM_ROCM_USE_AITER_MLA=1
export VLLM_ENGINE_READY_TIMEOUT_S=3600

# No DP attention on this SKU yet: one engine, so the batch cap follows CONC.
MAX_NUM_SEQS=$((2 * CONC))

EXTRA_ARGS=()
if [ "${EP_SIZE:-1}" -gt 1 ]; then
    EXTRA_ARGS+=(--enable-expert-parallel)
fi

OFFLOAD_ARGS=()
LMCACHE_PID=""
case "${KV_OFFLOAD_BACKEND:-}" in
    native)
        check_env_vars TOTAL_CPU_DRAM_GB
        # The native backend resolves to OffloadingConnector by default;
        # setting VLLM_USE_SIMPLE_KV_OFFLOAD=1 would switch it to
        # SimpleCPUOffloadConnector. This arm measures the regular
        # OffloadingConnector path, so the variable is deliberately unset.
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        OFFLOAD_ARGS=(--kv_offloading_backend native --kv_offloading_size "$TOTAL_CPU_DRAM_GB")
        ;;
    offloading)
        check_env_vars TOTAL_CPU_DRAM_GB
        # Same connector as the native arm, named explicitly so the CPU
        # budget is given in bytes; the simple-offload switch must stay off.
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        CPU_BYTES=$(kv_offload_cpu_bytes "$TOTAL_CPU_DRAM_GB")
        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"OffloadingConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"cpu_bytes_to_use\":${CPU_BYTES}}}")
        ;;
    lmcache)
        check_env_vars TOTAL_CPU_DRAM_GB
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        LMCACHE_PORT="${LMCACHE_PORT:-6555}"
        LMCACHE_L1_SIZE_GB=$((TOTAL_CPU_DRAM_GB * 3 / 4))
        lmcache server --l1-size-gb "$LMCACHE_L1_SIZE_GB" --port "$LMCACHE_PORT" > "$RESULT_DIR/lmcache.log" 2>&1 &
        LMCACHE_PID=$!
        # LMCacheMPConnector lives in the lmcache package, not in vLLM's
        # connector registry, so vLLM needs the module path to import it.
        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"LMCacheMPConnector\",\"kv_connector_module_path\":\"lmcache.integration.vllm.lmcache_mp_connector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"lmcache.mp.port\":${LMCACHE_PORT}}}")
        ;;
    none|"")
        ;;
esac

cleanup() {
    stop_pids "${SERVER_PID:-}" "${LMCACHE_PID:-}"
}
trap cleanup EXIT

vllm serve "$MODEL" \
    --host 0.0.0.0 \
    --port "$PORT" \
    --tensor-parallel-size "$TP" \
    --kv-cache-dtype fp8 \
    --block-size 64 \
    --gpu-memory-utilization 0.90 \
    --max-model-len 262144 \
    --max-num-batched-tokens 16384 \
    --max-num-seqs "$MAX_NUM_SEQS" \
    --enable-prefix-caching \
    --tokenizer-mode deepseek_v4 \
    --tool-call-parser deepseek_v4 \
    --enable-auto-tool-choice \
    --reasoning-parser deepseek_v4 \
    "${EXTRA_ARGS[@]}" \
    "${OFFLOAD_ARGS[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_agentic_benchmark \
    --model "$MODEL" \
    --port "$PORT" \
    --concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
