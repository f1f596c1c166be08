#!/usr/bin/env bash
set -euo pipefail

# Single workstation runner: the recipe runs in a local docker container. The
# docker daemon caches pulled images on this machine, so only the first job
# after an image bump pulls it.

server_name="bmk-server-${RUNNER_NAME}"
docker rm -f "$server_name" >/dev/null 2>&1 || true

docker run \
    --rm \
    --name "$server_name" \
    --gpus all \
    --ipc host \
    -v "$GITHUB_WORKSPACE:/workspace" \
    -e MODEL -e TP -e CONC -e ISL -e OSL -e RESULT_DIR -e RESULT_FILENAME \
    "$IMAGE" \
    bash "/workspace/benchmarks/$RECIPE"
