#!/usr/bin/bash

# GB300 NVL72: multi-node jobs go through srt-slurm (srtctl), which runs
# the recipe named by CONFIG_FILE in additional-settings.
export SLURM_PARTITION="batch"

if [[ "$IS_MULTINODE" != "true" ]]; then
    echo "launch_gb300-nv.sh runs multi-node jobs only" >&2
    exit 1
fi

if [[ -z "$CONFIG_FILE" ]]; then
    echo "Error: CONFIG_FILE is not set. The srt-slurm path requires a CONFIG_FILE in additional-settings." >&2
    exit 1
fi

SRT_REPO_DIR="srt-slurm"
git clone https://github.com/NVIDIA/srt-slurm.git "$SRT_REPO_DIR"
cd "$SRT_REPO_DIR" || exit 1
if [[ $FRAMEWORK == "dynamo-sglang" && $MODEL_PREFIX == "dsr1" ]]; then
    mkdir -p recipes/sglang/dsr1
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1" recipes/sglang/dsr1
elif [[ $FRAMEWORK == "dynamo-trt" ]]; then
    mkdir -p benchmarks/multi_node/srt-slurm-recipes
    cp -rT "$GITHUB_WORKSPACE/benchmarks/multi_node/srt-slurm-recipes" benchmarks/multi_node/srt-slurm-recipes
fi

# Rename the job after the runner so the cleanup step can find it.
sed -i "s/^name:.*/name: \"${RUNNER_NAME}\"/" "${CONFIG_FILE%%:*}"
srtctl apply -f "$CONFIG_FILE" --tags "gb300,${MODEL_PREFIX},${PRECISION}"
