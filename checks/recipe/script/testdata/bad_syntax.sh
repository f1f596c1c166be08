#!/usr/bin/env bash
set -euo pipefail

if [ "$TP" -gt 1 ]; then
    echo "tensor parallel"

vllm serve "$MODEL"
