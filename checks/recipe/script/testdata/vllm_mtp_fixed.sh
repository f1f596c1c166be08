#!/usr/bin/env bash
set -eo pipefail

source "$(dirname "$0")/../benchmark_lib.sh"

check_env_vars MODEL TP CONC ISL OSL RESULT_DIR

SPEC_CONFIG='{"method": "mtp", "num_speculative_tokens": 3, "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.5}'

if [[ -n "$MODEL_PATH" ]]; then
    MODEL="$MODEL_PATH"
fi

timeout 3h vllm serve $MODEL --tensor-parallel-size $TP --speculative-config "$SPEC_CONFIG" --max-model-len $((ISL + OSL + 256)) --compilation-config '{"cudagraph_mode": "FULL_AND_PIECEWISE", "max_capture_size": 512}' &

run_benchmark_serving --model "$MODEL" --input-len "$ISL" --output-len "$OSL" --max-concurrency "$CONC"
