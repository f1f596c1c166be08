#!/usr/bin/env bash
set -euo pipefail

# Runs one sweep point on the NVIDIA B300 Slurm cluster (runner
# cluster:b300-nv): resolve the recipe, import the container image once,
# run the recipe on one exclusive 8-GPU node inside it.

: "${IMAGE:?}" "${MODEL:?}" "${MODEL_PREFIX:?}" "${PRECISION:?}" "${FRAMEWORK:?}" "${SCENARIO_TYPE:?}"
: "${GITHUB_WORKSPACE:?}" "${RESULT_DIR:?}"

SKU=b300
SQSH_DIR="${SQSH_DIR:-/shared/enroot}"

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

# nvcr.io references use '#' between registry and path for enroot.
SQSH="$SQSH_DIR/$(echo "$IMAGE" | tr '/:#@' '____').sqsh"
mkdir -p "$SQSH_DIR"
(
    flock -w 3600 9
    if [ ! -f "$SQSH" ]; then
        enroot import -o "$SQSH" "docker://${IMAGE}"
    fi
) 9> "$SQSH.lock"

mkdir -p "$RESULT_DIR"
srun \
    --nodes=1 \
    --exclusive \
    --gpus-per-node=8 \
    --container-image="$SQSH" \
    --container-mounts="$GITHUB_WORKSPACE:/workspace,${HF_HOME:-/shared/hf}:/root/.cache/huggingface,$RESULT_DIR:$RESULT_DIR" \
    --container-workdir=/workspace \
    --export=ALL \
    bash "/workspace/$RECIPE"
