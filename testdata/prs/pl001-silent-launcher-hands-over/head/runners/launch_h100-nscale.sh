#!/usr/bin/bash

# H100 machines of a second provider: the same docker host set-up once the
# cache directory is prepared, so this launcher hands over to the CR one.
export HF_HUB_CACHE_DIR="/data/hf_hub_cache"
mkdir -p "$HF_HUB_CACHE_DIR" || {
    echo "Unable to prepare the cache directory" >&2
    exit 1
}

exec bash "$(dirname "${BASH_SOURCE[0]}")/launch_h100-cr.sh" "$@"
