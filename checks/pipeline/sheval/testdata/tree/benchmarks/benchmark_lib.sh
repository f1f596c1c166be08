#!/usr/bin/env bash
# Helpers shared by the benchmark scripts of the test tree.
check_env_vars() {
    for v in "$@"; do
        [ -n "${!v}" ] || exit 1
    done
}
