#!/usr/bin/env bash
set -euo pipefail

# DeepSeek-R1-0528 NVFP4 prefill/decode disaggregation on GB200 trays with
# SGLang. Runs on the first node of the allocation: starts the prefill and
# decode workers (sglang_disagg_worker.sh, one task per node), the PD router
# in front of them, then the fixed-sequence-length client against the router.

source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL SQSH PREFILL_NODES DECODE_NODES PREFILL_TP DECODE_TP \
    CONC ISL OSL RANDOM_RANGE_RATIO RESULT_FILENAME RESULT_DIR SLURM_JOB_NODELIST

ROUTER_PORT="${ROUTER_PORT:-8000}"
WORKER_PORT=30000
mkdir -p "$RESULT_DIR"

mapfile -t NODES < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
if (( ${#NODES[@]} < PREFILL_NODES + DECODE_NODES )); then
    echo "error: need $((PREFILL_NODES + DECODE_NODES)) nodes, got ${#NODES[@]}" >&2
    exit 1
fi
PREFILL_LIST=$(IFS=,; echo "${NODES[*]:0:PREFILL_NODES}")
DECODE_LIST=$(IFS=,; echo "${NODES[*]:PREFILL_NODES:DECODE_NODES}")
export PREFILL_HOST="${NODES[0]}"
export DECODE_HOST="${NODES[PREFILL_NODES]}"

# Every worker sees the same model cache and writes its log into RESULT_DIR.
CONTAINER_ARGS=(
    --container-image="$SQSH"
    --container-mounts="${HF_HOME:-/mnt/hf}:/root/.cache/huggingface,$RESULT_DIR:$RESULT_DIR"
    --container-workdir=/workspace
    --export=ALL
)

srun --nodes="$PREFILL_NODES" --ntasks-per-node=1 --nodelist="$PREFILL_LIST" \
    "${CONTAINER_ARGS[@]}" \
    bash "$(dirname "$0")/sglang_disagg_worker.sh" prefill > "$RESULT_DIR/prefill.log" 2>&1 &
PREFILL_PID=$!

srun --nodes="$DECODE_NODES" --ntasks-per-node=1 --nodelist="$DECODE_LIST" \
    "${CONTAINER_ARGS[@]}" \
    bash "$(dirname "$0")/sglang_disagg_worker.sh" decode > "$RESULT_DIR/decode.log" 2>&1 &
DECODE_PID=$!

cleanup() {
    stop_pids "${ROUTER_PID:-}" "$DECODE_PID" "$PREFILL_PID"
}
trap cleanup EXIT

# The router only needs the rank-0 endpoint of each role.
python3 -m sglang_router.launch_router \
    --pd-disaggregation \
    --prefill "http://${PREFILL_HOST}:${WORKER_PORT}" \
    --decode "http://${DECODE_HOST}:${WORKER_PORT}" \
    --host 0.0.0.0 \
    --port "$ROUTER_PORT" > "$RESULT_DIR/router.log" 2>&1 &
ROUTER_PID=$!

wait_for_server_ready --port "$ROUTER_PORT" --server-log "$RESULT_DIR/decode.log" --server-pid "$DECODE_PID"

run_benchmark_serving \
    --model "$MODEL" \
    --port "$ROUTER_PORT" \
    --backend sglang \
    --input-len "$ISL" \
    --output-len "$OSL" \
    --random-range-ratio "$RANDOM_RANGE_RATIO" \
    --num-prompts "$((CONC * 10))" \
    --max-concurrency "$CONC" \
    --result-filename "$RESULT_FILENAME" \
    --result-dir "$RESULT_DIR"
