#!/usr/bin/env bash
set -euo pipefail

# MI300X Slurm runner: allocate a node and run the recipe there.

JOB_ID=$(salloc --partition="$PARTITION" --gres=gpu:8 --no-shell --parsable)
trap 'scancel "$JOB_ID"' EXIT

srun --jobid="$JOB_ID" --job-name="$RUNNER_NAME" bash -c "
    set -euo pipefail
    srun --container-image=\"$IMAGE\" \
        --container-mounts=\"$GITHUB_WORKSPACE:/workspace\" \
        bash /workspace/benchmarks/$RECIPE
"
