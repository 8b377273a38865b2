#!/usr/bin/env bash
# Sharded training state (train.shard) on this machine's CPUs: two ranks (threads of one process, Gloo) train a
# wide MLP (784 -> WIDTH -> WIDTH -> 10) with AdamW at batch 64 per rank, once per level, each in a process of
# its own. For each rank it prints the training state it holds, counted from its tensors — parameters,
# gradients, AdamW's moments — at its peak in the step (when the optimizer steps) and between steps, and its
# steps/s; then the process's peak RSS (both ranks and the rest of the process).
#
# usage: bench/sharding.sh [build/tests/test_train]
# environment: STEPS (default 30), WIDTH (default 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/tests/test_train}")
[[ -x "$bin" ]] || { echo "error: $bin not found or not executable (ninja -C build test_train)" >&2; exit 2; }
export WB_SHARD_STEPS=${STEPS:-30} WB_SHARD_WIDTH=${WIDTH:-1024}
echo "2 CPU ranks (Gloo), MLP 784-$WB_SHARD_WIDTH-$WB_SHARD_WIDTH-10, AdamW, batch 64 per rank," \
  "$WB_SHARD_STEPS steps; $(nproc) cores; MiB"
for level in none optimizer gradients; do
  WB_SHARD_LEVEL=$level "$bin" --gtest_also_run_disabled_tests \
    --gtest_filter='ShardingBench.DISABLED_TwoRanksStateAndThroughput' 2>&1 | grep -E '^shard=|FAILED' || {
    echo "error: the $level run failed" >&2
    exit 1
  }
done
