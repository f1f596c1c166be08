#!/usr/bin/env bash
set -euo pipefail

# Runs one sweep point on the B200 DGX Cloud Slurm cluster (runner
# cluster:b200-dgxc). The workflow exports the matrix row as env vars; this
# script picks the recipe, imports the container once per image, and runs
# the recipe on one exclusive 8-GPU node inside that container.

: "${IMAGE:?}" "${MODEL:?}" "${MODEL_PREFIX:?}" "${PRECISION:?}" "${FRAMEWORK:?}" "${SCENARIO_TYPE:?}"
: "${GITHUB_WORKSPACE:?}" "${RESULT_DIR:?}"

SKU=b200
PARTITION="${SLURM_PARTITION:-batch}"
SQSH_DIR="${SQSH_DIR:-/lustre/fsw/inferencex/enroot}"

# Agentic recipes carry spec decoding inside the script; fixed-seq-len MTP
# points have their own _mtp recipe.
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

# One squashfs per image reference; '/', ':', '#' and '@' are not safe in
# file names. The lock keeps parallel jobs from importing the same image.
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
    --partition="$PARTITION" \
    --nodes=1 \
    --exclusive \
    --gres=gpu:8 \
    --time="${SLURM_TIME_LIMIT:-04:00:00}" \
    --container-image="$SQSH" \
    --container-mounts="$GITHUB_WORKSPACE:/workspace,${HF_HOME:-/lustre/fsw/inferencex/hf}:/root/.cache/huggingface,$RESULT_DIR:$RESULT_DIR" \
    --container-workdir=/workspace \
    --export=ALL \
    bash "/workspace/$RECIPE"
