#!/usr/bin/env bash
set -euo pipefail

source "$(dirname "$0")/../benchmark_lib.sh"
check_env_vars MODEL TP CONC RESULT_DIR

start_server() {
    export ATOM_USE_TRITON_MOE=1
    python3 -m atom.entrypoints.openai_server --model "$MODEL" -tp "$TP" --kv_cache_dtype fp8 \
        --max-num-seqs "$CONC" &
}

start_server
run_benchmark_serving --model "$MODEL" --max-concurrency "$CONC" --dsv4
