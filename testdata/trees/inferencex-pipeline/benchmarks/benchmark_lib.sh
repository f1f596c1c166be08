#!/usr/bin/env bash
# Helpers the benchmark scripts source.

# check_env_vars NAME...: stop when a variable the script needs is unset.
check_env_vars() {
    local missing=0
    for name in "$@"; do
        if [[ -z "${!name:-}" ]]; then
            echo "error: $name is not set" >&2
            missing=1
        fi
    done
    if [[ $missing -ne 0 ]]; then
        exit 1
    fi
}

# wait_for_server PORT LOG: poll the health endpoint until it answers.
wait_for_server() {
    local port="$1" log="$2"
    until curl -sf "http://localhost:${port}/health" >/dev/null; do
        sleep 5
        tail -n 5 "$log"
    done
}

# run_client: the fixed-sequence-length benchmark client.
run_client() {
    python3 utils/bench_serving/benchmark_serving.py \
        --model "$MODEL" --port "${PORT:-8888}" \
        --random-input-len "$ISL" --random-output-len "$OSL" \
        --random-range-ratio "$RANDOM_RANGE_RATIO" \
        --max-concurrency "$CONC" --num-prompts $((CONC * 10)) \
        --result-filename "$RESULT_FILENAME" "$@"
}
