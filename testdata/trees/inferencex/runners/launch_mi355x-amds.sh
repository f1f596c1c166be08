#!/usr/bin/env bash
set -euo pipefail

# Runs one sweep point on the AMD MI355X Slurm cluster (runner
# cluster:mi355x-amds): resolve the recipe, import the ROCm container once
# per image with enroot, run the recipe on one exclusive 8-GPU node via pyxis.

: "${IMAGE:?}" "${MODEL:?}" "${MODEL_PREFIX:?}" "${PRECISION:?}" "${FRAMEWORK:?}" "${SCENARIO_TYPE:?}"
: "${GITHUB_WORKSPACE:?}" "${RESULT_DIR:?}"

SKU=mi355x
SQSH_DIR="${SQSH_DIR:-/nfs/enroot}"

if [ "$SCENARIO_TYPE" = "agentic-coding" ]; then
    RECIPE="benchmarks/single_node/agentic/${MODEL_PREFIX}_${PRECISION}_${SKU}_${FRAMEWORK}.sh"
else
    SPEC_SUFFIX=""
    if [ "${SPEC_DECODING:-none}" != "none" ]; then
        SPEC_SUFFIX="_${SPEC_DECODING}"
    fi
    RECIPE="benchmarks/single_node/${MODEL_PREFIX}_${PRECISION}_${SKU}_${FRAMEWORK}${SPEC_SUFFIX}.sh"
fi
if [ ! -f "$GITHUB_WORKSPACE/$RECIPE" ]; then
    echo "error: no recipe $RECIPE for this config" >&2
    exit 1
fi

SQSH="$SQSH_DIR/$(echo "$IMAGE" | tr '/:#@' '____').sqsh"
mkdir -p "$SQSH_DIR"
(
    flock -w 3600 9
    if [ ! -f "$SQSH" ]; then
        enroot import -o "$SQSH" "docker://${IMAGE}"
    fi
) 9> "$SQSH.lock"

mkdir -p "$RESULT_DIR"
# ROCm needs the kfd/dri device nodes, which pyxis passes through with the
# GPUs; HSA_NO_SCRATCH_RECLAIM avoids scratch reallocation stalls in AITER.
srun \
    --nodes=1 \
    --exclusive \
    --gres=gpu:8 \
    --container-image="$SQSH" \
    --container-mounts="$GITHUB_WORKSPACE:/workspace,${HF_HOME:-/nfs/hf}:/root/.cache/huggingface,$RESULT_DIR:$RESULT_DIR" \
    --container-workdir=/workspace \
    --container-env=HSA_NO_SCRATCH_RECLAIM \
    --export=ALL,HSA_NO_SCRATCH_RECLAIM=1 \
    bash "/workspace/$RECIPE"
