#!/usr/bin/env bash
# A launcher for the TreeFiles test: it sources the library next to the
# benchmarks, then runs the script the job's env names.
source "$(dirname "$0")/../benchmarks/benchmark_lib.sh"
SCRIPT="benchmarks/single_node/${EXP_NAME%%_*}_${PRECISION}_h100.sh"
if [[ ! -f "$SCRIPT" ]]; then
    echo "no script $SCRIPT" >&2
    exit 1
fi
check_env_vars MODEL
bash "$SCRIPT"
