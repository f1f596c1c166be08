#!/usr/bin/env bash
# Shared helpers for the benchmark recipes. Sourced, never executed directly:
# every recipe runs under `set -euo pipefail`, so everything here reads
# optional variables through ${VAR:-} and never relies on unset expansion.

# check_env_vars NAME... fails the run early when a variable the recipe needs
# from the sweep matrix is missing, instead of letting a server start with an
# empty flag value and fail minutes later.
check_env_vars() {
    local missing=()
    local name
    for name in "$@"; do
        if [[ -z "${!name:-}" ]]; then
            missing+=("$name")
        fi
    done
    if (( ${#missing[@]} > 0 )); then
        echo "error: required environment variables not set: ${missing[*]}" >&2
        exit 1
    fi
}

# require_agentic_kv_offload_backend ALLOWED... checks that the backend the
# matrix asked for is one the recipe implements. It validates the name only;
# each recipe's case arm is responsible for the env vars its connector needs.
require_agentic_kv_offload_backend() {
    local requested="${KV_OFFLOAD_BACKEND:-none}"
    local offloading="${KV_OFFLOADING:-none}"
    local allowed
    if [[ "$offloading" == "none" && "$requested" != "none" ]]; then
        echo "error: KV_OFFLOAD_BACKEND=$requested but KV_OFFLOADING=none" >&2
        exit 1
    fi
    if [[ "$offloading" != "none" && "$requested" == "none" ]]; then
        echo "error: KV_OFFLOADING=$offloading needs a KV_OFFLOAD_BACKEND" >&2
        exit 1
    fi
    for allowed in "$@"; do
        if [[ "$requested" == "$allowed" ]]; then
            return 0
        fi
    done
    echo "error: KV_OFFLOAD_BACKEND=$requested not supported here (allowed: $*)" >&2
    exit 1
}

# kv_offload_cpu_bytes GB converts the host DRAM budget the runner computed
# (TOTAL_CPU_DRAM_GB already has the config's dram-utilization applied) into
# the byte count the offload connectors take.
kv_offload_cpu_bytes() {
    local gb="${1:?kv_offload_cpu_bytes needs a size in GB}"
    echo $(( gb * 1024 * 1024 * 1024 ))
}

# wait_for_server_ready --port P --server-log F --server-pid PID polls the
# OpenAI-compatible /health endpoint. It stops early when the server process
# dies so a crash at load time shows its log instead of a 40-minute timeout.
wait_for_server_ready() {
    local port="" log="" pid="" timeout="${SERVER_READY_TIMEOUT:-2400}"
    while (( $# > 0 )); do
        case "$1" in
            --port) port="$2"; shift 2 ;;
            --server-log) log="$2"; shift 2 ;;
            --server-pid) pid="$2"; shift 2 ;;
            --timeout) timeout="$2"; shift 2 ;;
            *) echo "wait_for_server_ready: unknown flag $1" >&2; return 2 ;;
        esac
    done
    local waited=0
    until curl -sf "http://127.0.0.1:${port}/health" > /dev/null; do
        if [[ -n "$pid" ]] && ! kill -0 "$pid" 2> /dev/null; then
            echo "error: server exited before becoming ready; last log lines:" >&2
            tail -n 200 "$log" >&2 || true
            return 1
        fi
        if (( waited >= timeout )); then
            echo "error: server not ready after ${timeout}s" >&2
            tail -n 200 "$log" >&2 || true
            return 1
        fi
        sleep 10
        waited=$(( waited + 10 ))
    done
    echo "server on port ${port} ready after ${waited}s"
}

# run_benchmark_serving runs the fixed-sequence-length client. Flags mirror
# the client's own; --use-chat-template routes the random prompts through the
# model's chat template, which speculative decoding needs for a realistic
# acceptance rate (drafters are trained on chat-formatted text).
run_benchmark_serving() {
    local args=()
    local use_chat_template=0
    while (( $# > 0 )); do
        case "$1" in
            --use-chat-template) use_chat_template=1; shift ;;
            --model|--port|--backend|--input-len|--output-len|--random-range-ratio|\
            --num-prompts|--max-concurrency|--result-filename|--result-dir)
                args+=("$1" "$2"); shift 2 ;;
            *) echo "run_benchmark_serving: unknown flag $1" >&2; return 2 ;;
        esac
    done
    if (( use_chat_template )); then
        args+=(--apply-chat-template)
    fi
    python3 "${BENCH_CLIENT_DIR:-/workspace/utils/bench_serving}/benchmark_serving.py" \
        --dataset-name random \
        --ignore-eos \
        --save-result \
        --percentile-metrics ttft,tpot,itl,e2el \
        "${args[@]}"
}

# run_agentic_benchmark replays the agentic-coding traces (multi-turn,
# tool-calling sessions) against the server with aiperf.
run_agentic_benchmark() {
    local model="" port="" conc="" result_dir=""
    local dataset="${AGENTIC_TRACE_DATASET:-agentx/traces-256k}"
    while (( $# > 0 )); do
        case "$1" in
            --model) model="$2"; shift 2 ;;
            --port) port="$2"; shift 2 ;;
            --concurrency) conc="$2"; shift 2 ;;
            --result-dir) result_dir="$2"; shift 2 ;;
            --trace-dataset) dataset="$2"; shift 2 ;;
            *) echo "run_agentic_benchmark: unknown flag $1" >&2; return 2 ;;
        esac
    done
    aiperf profile \
        --model "$model" \
        --url "http://127.0.0.1:${port}" \
        --endpoint-type chat \
        --streaming \
        --custom-dataset-type multi_turn \
        --input-file "$dataset" \
        --concurrency "$conc" \
        --failed-request-threshold "${FAILED_REQUEST_THRESHOLD:-0.02}" \
        --artifact-dir "$result_dir/aiperf"
}

# stop_pids PID... terminates background helpers (server, offload daemons)
# started by a recipe; empty arguments are skipped so callers can pass
# "${OPTIONAL_PID:-}" unconditionally from an EXIT trap.
stop_pids() {
    local pid
    for pid in "$@"; do
        if [[ -n "$pid" ]] && kill -0 "$pid" 2> /dev/null; then
            kill "$pid" 2> /dev/null || true
            wait "$pid" 2> /dev/null || true
        fi
    done
}

# run_eval_if_requested MODEL PORT runs the accuracy smoke test when the
# sweep asks for it (RUN_EVAL=true), so a throughput number is never
# published for a server that answers wrongly.
run_eval_if_requested() {
    local model="${1:?model}" port="${2:?port}"
    if [[ "${RUN_EVAL:-false}" != "true" ]]; then
        return 0
    fi
    python3 -m lm_eval \
        --model local-chat-completions \
        --model_args "model=${model},base_url=http://127.0.0.1:${port}/v1/chat/completions,num_concurrent=64" \
        --tasks gsm8k \
        --apply_chat_template \
        --num_fewshot 5 \
        --output_path "${RESULT_DIR:-.}/eval"
}
