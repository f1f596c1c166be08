#!/usr/bin/env bash
set -euo pipefail

source "$(dirname "$0")/../benchmark_lib.sh"
check_env_vars MODEL TP CONC EP_SIZE RESULT_DIR

cat > /tmp/extra_llm_api_options.yaml <<YAML
enable_attention_dp: ${DP_ATTENTION:-false}
speculative_config:
  decoding_type: MTP
  num_nextn_predict_layers: 3
YAML

# Acceptance length 2.9 on the golden curve: force AL - 1 accepted tokens.
export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2

mpirun -n 1 --oversubscribe --allow-run-as-root \
    trtllm-serve "$MODEL" \
    --backend pytorch \
    --tp_size "$TP" \
    --ep_size "$EP_SIZE" \
    --extra_llm_api_options /tmp/extra_llm_api_options.yaml \
    > "$RESULT_DIR/server.log" 2>&1 &

python3 utils/bench_serving/benchmark_serving.py \
    --model "$MODEL" --backend openai \
    --use-chat-template \
    --max-concurrency "$CONC"
