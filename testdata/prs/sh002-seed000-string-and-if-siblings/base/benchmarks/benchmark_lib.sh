#!/usr/bin/env bash
# Shared helpers for the benchmark recipes (fixture stand-in).
require_agentic_kv_offload_backend() {
    [[ "${KV_OFFLOADING:-none}" == "dram" && "${KV_OFFLOAD_BACKEND:-}" == "$1" ]]
}
