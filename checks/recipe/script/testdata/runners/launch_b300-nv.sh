#!/usr/bin/env bash
set -euo pipefail

SQUASH_FILE="/scratch/images/$(echo "$IMAGE" | tr '/:' '__').sqsh"
if [ ! -f "$SQUASH_FILE" ]; then
    enroot import -o "$SQUASH_FILE" "docker://$IMAGE"
fi

srun --jobid="$JOB_ID" --container-image="$SQUASH_FILE" --container-mounts="$PWD:/workspace" \
    bash "benchmarks/single_node/${EXP_NAME}.sh"
