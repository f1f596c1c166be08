#!/usr/bin/bash

# B200 DGX Cloud Slurm cluster: one exclusive node per sweep point.
SLURM_PARTITION="${SLURM_PARTITION:-gpu-2}"

# Weights are pre-staged on the cluster's Lustre; the recipes get the path.
if [[ $MODEL_PREFIX == "dsr1" && $PRECISION == "fp4" ]]; then
    export MODEL_PATH="/lustre/models/DeepSeek-R1-0528-NVFP4"
elif [[ $MODEL_PREFIX == "glm5.2" && $PRECISION == "fp4" ]]; then
    export MODEL_PATH="/lustre/models/GLM-5.2-NVFP4"
else
    echo "Unsupported model prefix/precision: $MODEL_PREFIX/$PRECISION"
    exit 1
fi

SQUASH_FILE="/lustre/containers/$(echo "$IMAGE" | sed 's/[\/:@#]/_/g').sqsh"
FRAMEWORK_SUFFIX=$([[ "$FRAMEWORK" == "trt" ]] && printf '_trt' || printf '')
SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' || printf '')
# Prefer a framework-tagged script (dsr1_fp4_b200_sglang.sh); fall back to
# the older name without the engine.
BENCH_BASE="benchmarks/single_node/${SCENARIO_SUBDIR}${EXP_NAME%%_*}_${PRECISION}_b200"
BENCH_SCRIPT="${BENCH_BASE}_${FRAMEWORK}${SPEC_SUFFIX}.sh"
if [[ ! -f "$BENCH_SCRIPT" ]]; then
    BENCH_SCRIPT="${BENCH_BASE}${FRAMEWORK_SUFFIX}${SPEC_SUFFIX}.sh"
fi

export GPU_COUNT="${GPU_COUNT:-${TP:?TP must be set}}"
salloc --partition="$SLURM_PARTITION" --gres=gpu:$GPU_COUNT --exclusive --no-shell --job-name="$RUNNER_NAME"
JOB_ID=$(squeue --name="$RUNNER_NAME" -h -o %A | head -n1)

srun --jobid=$JOB_ID bash -c "enroot import -o $SQUASH_FILE docker://$IMAGE"

export MODEL="$MODEL_PATH"
srun --jobid=$JOB_ID \
    --container-image=$SQUASH_FILE \
    --container-mounts=$GITHUB_WORKSPACE:/workspace,$MODEL_PATH:$MODEL_PATH \
    --container-workdir=/workspace \
    --export=ALL,PORT=8888 \
    bash "$BENCH_SCRIPT"
