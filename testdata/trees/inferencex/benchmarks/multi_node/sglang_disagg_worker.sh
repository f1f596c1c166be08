#!/usr/bin/env bash
set -euo pipefail

# One SGLang disaggregation worker, started once per node by srun from
# dsr1_fp4_gb200_sglang_disagg.sh. $1 is the role: prefill or decode.

source "$(dirname "$0")/../benchmark_lib.sh"

ROLE="${1:?usage: sglang_disagg_worker.sh prefill|decode}"
check_env_vars MODEL PREFILL_NODES DECODE_NODES PREFILL_TP DECODE_TP PREFILL_HOST DECODE_HOST SLURM_PROCID

# Prefill runs plain TP for long-prompt latency; decode runs DP attention
# with wide expert parallelism, so each rank batches its share of CONC.
ROLE_ARGS=()
case "$ROLE" in
    prefill)
        WORKER_TP="$PREFILL_TP"
        NNODES="$PREFILL_NODES"
        DIST_HOST="$PREFILL_HOST"
        ;;
    decode)
        WORKER_TP="$DECODE_TP"
        NNODES="$DECODE_NODES"
        DIST_HOST="$DECODE_HOST"
        ROLE_ARGS=(
            --enable-dp-attention
            --dp-size "$DECODE_TP"
            --ep-size "$DECODE_TP"
            --cuda-graph-max-bs "$(( (2 * ${CONC:-256} + DECODE_TP - 1) / DECODE_TP ))"
        )
        ;;
    *)
        echo "error: unknown role $ROLE" >&2
        exit 1
        ;;
esac

# KV moves between roles over NIXL (UCX on the NVLink/IB fabric).
python3 -m sglang.launch_server \
    --model-path "$MODEL" \
    --host 0.0.0.0 \
    --port 30000 \
    --trust-remote-code \
    --disaggregation-mode "$ROLE" \
    --disaggregation-transfer-backend nixl \
    --tp-size "$WORKER_TP" \
    --dist-init-addr "${DIST_HOST}:5757" \
    --nnodes "$NNODES" \
    --node-rank "$SLURM_PROCID" \
    --quantization modelopt_fp4 \
    --kv-cache-dtype fp8_e4m3 \
    --attention-backend trtllm_mla \
    --moe-runner-backend flashinfer_trtllm \
    --mem-fraction-static 0.84 \
    --chunked-prefill-size 16384 \
    --disable-radix-cache \
    "${ROLE_ARGS[@]}"
