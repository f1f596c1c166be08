#!/usr/bin/bash

# H100 docker host: the container sees only the variables passed with -e.
HF_HUB_CACHE_MOUNT="/home/ubuntu/hf_hub_cache/"
PORT=8888

SPEC_SUFFIX=$([[ "$SPEC_DECODING" == "mtp" ]] && printf '_mtp' || printf '')

docker run --rm --network=host --gpus=all --ipc=host \
-v $HF_HUB_CACHE_MOUNT:/root/.cache/huggingface \
-v $GITHUB_WORKSPACE:/workspace/ -w /workspace/ \
-e HF_TOKEN -e MODEL -e TP -e CONC -e ISL -e OSL -e MAX_MODEL_LEN -e RANDOM_RANGE_RATIO -e RESULT_FILENAME -e PORT=$PORT \
--entrypoint=/bin/bash \
$IMAGE \
benchmarks/single_node/${SCENARIO_SUBDIR}"${EXP_NAME%%_*}_${PRECISION}_h100${SPEC_SUFFIX}.sh"
