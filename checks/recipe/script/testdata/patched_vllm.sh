#!/usr/bin/env bash
set -euo pipefail

source "$(dirname "$0")/../benchmark_lib.sh"
check_env_vars MODEL TP

VLLM_DIR=$(python3 -c 'import vllm, os; print(os.path.dirname(vllm.__file__))')
SITE=/usr/local/lib/python3.12/dist-packages

pip install --no-deps /wheels/vllm-0.11.0+cu130-cp312-cp312-linux_x86_64.whl
pip install lmcache==0.5.1
pip install "git+https://github.com/vllm-project/vllm.git@main"
pip install /wheels/flashinfer_python-0.4.0-py3-none-any.whl

git -C "$VLLM_DIR" apply "$(dirname "$0")/fixes/moe_align.patch"
patch -p1 -d "$SITE" < fix_rope.diff

sed -i 's/assert num_tokens > 0/pass/' "$VLLM_DIR/v1/core/kv_cache_manager.py"
sed -i.bak -e 's/x/y/' "$SITE/sglang/srt/server_args.py"
sed -i 's/a/b/' "$RESULT_DIR/notes.txt"

cat > "$VLLM_DIR/model_executor/layers/fused_moe/patch_me.py" <<'PY'
print("patched")
PY

python3 - <<PY
import vllm, os
p = os.path.join(os.path.dirname(vllm.__file__), "config.py")
src = open(p).read().replace("a", "b")
open(p, "w").write(src)
PY

jq '.architectures = ["DeepseekV3ForCausalLM"]' "$MODEL/config.json" > /tmp/config.json
cp /tmp/config.json "$MODEL/config.json"

vllm serve "$MODEL" --tensor-parallel-size "$TP" \
    --hf-overrides '{"architectures": ["DeepseekV3ForCausalLM"]}'
