#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-V4 FP4 on B300, vLLM, agentic-coding trace replay.
# Matrix env: MODEL TP CONC EP_SIZE DP_ATTENTION KV_OFFLOADING RESULT_DIR

source "$(dirname "$0")/../../benchmark_lib.sh"

check_env_vars MODEL TP CONC EP_SIZE DP_ATTENTION RESULT_DIR TOTAL_CPU_DRAM_GB

PORT=${PORT:-8888}
SERVER_LOG="$RESULT_DIR/server.log"

if [[ -n "${SLURM_JOB_ID:-}" ]]; then
    echo "running under slurm job ${SLURM_JOB_ID}"
fi

if [ "$DP_ATTENTION" = "true" ]; then
    # The DEP recipe sizes the batch per DP rank.
    MAX_NUM_SEQS=$((2 * CONC / TP))
    PARALLEL_ARGS=(--tensor-parallel-size 1 --data-parallel-size "$TP")
else
    MAX_NUM_SEQS=$((2 * CONC))
    PARALLEL_ARGS=(--tensor-parallel-size "$TP")
fi

if [ "$EP_SIZE" -gt 1 ]; then
    PARALLEL_ARGS+=(--enable-expert-parallel)
fi

CPU_BYTES_PER_RANK=$((TOTAL_CPU_DRAM_GB * 1024 * 1024 * 1024 / TP))
OFFLOAD_ARGS=()
case "${KV_OFFLOAD_BACKEND:-}" in
    vllm-simple)
        # JSON form so lazy_offload can be passed explicitly.
        # Eager mode hits a popleft_n AssertionError at low/mid CONC on
        # DSv4 + SimpleCPUOffloadConnector.
        export VLLM_USE_SIMPLE_KV_OFFLOAD=1
        export PYTHONHASHSEED=42
        OFFLOAD_CONFIG=$(cat <<EOF
{
  "kv_connector": "SimpleCPUOffloadConnector",
  "kv_role": "kv_both",
  "kv_connector_extra_config": {
    "cpu_bytes_to_use": ${CPU_BYTES_PER_RANK},
    "lazy_offload": true
  }
}
EOF
)
        OFFLOAD_ARGS=(--kv-transfer-config "$OFFLOAD_CONFIG")
        ;;
    mooncake)
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        OFFLOAD_ARGS=(--kv-transfer-config "{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"global_segment_size\":$CPU_BYTES_PER_RANK}}")
        ;;
    lmcache)
        unset VLLM_USE_SIMPLE_KV_OFFLOAD
        LMCACHE_L1_SIZE_GB=$((TOTAL_CPU_DRAM_GB * 3 / 4))
        OFFLOAD_ARGS=(
            --kv-transfer-config
            '{"kv_connector":"LMCacheMPConnector","kv_connector_module_path":"lmcache.integration.vllm.lmcache_mp_connector","kv_role":"kv_both"}'
        )
        ;;
    ""|none)
        ;;
    *)
        echo "unknown KV_OFFLOAD_BACKEND=${KV_OFFLOAD_BACKEND}" >&2
        exit 1
        ;;
esac

VLLM_CMD=(
    vllm serve "$MODEL"
    --host 0.0.0.0
    --port "$PORT"
    "${PARALLEL_ARGS[@]}"
    --max-num-seqs "$MAX_NUM_SEQS"
    --max-cudagraph-capture-size "$MAX_NUM_SEQS"
    --gpu-memory-utilization 0.92
    --tokenizer-mode deepseek_v4
    --tool-call-parser deepseek_v4
    --enable-auto-tool-choice
    --reasoning-parser deepseek_v4
)
VLLM_CMD+=("${OFFLOAD_ARGS[@]}")
if [[ "${KV_OFFLOADING:-none}" == "dram" ]]; then
    VLLM_CMD+=(--kv-offloading-size "$TOTAL_CPU_DRAM_GB")
fi

"${VLLM_CMD[@]}" > "$SERVER_LOG" 2>&1 &
SERVER_PID=$!

wait_for_server_ready --port "$PORT" --server-log "$SERVER_LOG" --server-pid "$SERVER_PID"

run_benchmark_serving \
    --model "$MODEL" \
    --port "$PORT" \
    --backend vllm \
    --max-concurrency "$CONC" \
    --result-dir "$RESULT_DIR"
