#!/usr/bin/env bash
set -euo pipefail

# MI300X Slurm runner: allocate a node, import the image once per node into a
# shared squashfs (under flock, so parallel jobs wait for one import), then run
# the recipe in that squashfs.

SQUASH_DIR="/raid/hf-hub-cache/runtime-cache/enroot"
SQUASH_FILE="$SQUASH_DIR/$(echo "$IMAGE" | sed 's/[\/:@#]/_/g').sqsh"
LOCK_FILE="${SQUASH_FILE}.lock"

JOB_ID=$(salloc --partition="$PARTITION" --gres=gpu:8 --no-shell --parsable)
trap 'scancel "$JOB_ID"' EXIT

srun --jobid="$JOB_ID" --job-name="$RUNNER_NAME" bash -c "
    set -euo pipefail
    mkdir -p '$SQUASH_DIR'
    exec 9>'$LOCK_FILE'
    flock -w 600 9 || { echo 'Failed to acquire lock for $SQUASH_FILE'; exit 1; }
    if ! unsquashfs -l \"$SQUASH_FILE\" > /dev/null 2>&1; then
        rm -f \"$SQUASH_FILE\"
        enroot import -o \"$SQUASH_FILE\" docker://$IMAGE
    fi
"

srun --jobid="$JOB_ID" \
    --container-image="$IMAGE" \
    --container-mounts="$GITHUB_WORKSPACE:/workspace" \
    bash "/workspace/benchmarks/$RECIPE"
