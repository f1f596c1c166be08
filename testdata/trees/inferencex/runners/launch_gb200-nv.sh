#!/usr/bin/env bash
set -euo pipefail

# Runs one sweep point on the NVIDIA GB200 NVL72 cluster (runner
# cluster:gb200-nv). Single-node points take one 4-GPU tray; multinode
# (disaggregated) points hand the allocation to a benchmarks/multi_node/
# launcher, which starts its own srun steps inside the same container.

: "${IMAGE:?}" "${MODEL:?}" "${MODEL_PREFIX:?}" "${PRECISION:?}" "${FRAMEWORK:?}" "${SCENARIO_TYPE:?}"
: "${GITHUB_WORKSPACE:?}" "${RESULT_DIR:?}"

SKU=gb200
SQSH_DIR="${SQSH_DIR:-/lustre/enroot}"

# The trays are aarch64: the image must carry an arm64 manifest, which
# enroot picks on its own when importing on a Grace node.
SQSH="$SQSH_DIR/$(echo "$IMAGE" | tr '/:#@' '____')-arm64.sqsh"
mkdir -p "$SQSH_DIR"
(
    flock -w 3600 9
    if [ ! -f "$SQSH" ]; then
        srun --nodes=1 --ntasks=1 enroot import -o "$SQSH" "docker://${IMAGE}"
    fi
) 9> "$SQSH.lock"
export SQSH

mkdir -p "$RESULT_DIR"
MOUNTS="$GITHUB_WORKSPACE:/workspace,${HF_HOME:-/lustre/hf}:/root/.cache/huggingface,$RESULT_DIR:$RESULT_DIR"

if [ "${MULTINODE:-false}" = "true" ]; then
    # Disaggregated launchers run on the allocation's first node and srun
    # their workers themselves.
    RECIPE="benchmarks/multi_node/${MODEL_PREFIX}_${PRECISION}_${SKU}_${FRAMEWORK}_disagg.sh"
    exec srun --nodes=1 --ntasks=1 --overlap \
        --container-image="$SQSH" \
        --container-mounts="$MOUNTS" \
        --container-workdir=/workspace \
        --export=ALL \
        bash "/workspace/$RECIPE"
fi

if [ "$SCENARIO_TYPE" = "agentic-coding" ]; then
    RECIPE="benchmarks/single_node/agentic/${MODEL_PREFIX}_${PRECISION}_${SKU}_${FRAMEWORK}.sh"
else
    RECIPE="benchmarks/single_node/${MODEL_PREFIX}_${PRECISION}_${SKU}_${FRAMEWORK}.sh"
fi

srun \
    --nodes=1 \
    --exclusive \
    --gpus-per-node=4 \
    --container-image="$SQSH" \
    --container-mounts="$MOUNTS" \
    --container-workdir=/workspace \
    --export=ALL \
    bash "/workspace/$RECIPE"
