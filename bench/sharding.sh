#!/usr/bin/env bash
# Sharded training state (train.shard) on this machine's CPUs: RANKS ranks (threads of one process, Gloo) train
# a wide MLP (784 -> WIDTH -> ... -> 10, DEPTH hidden layers) with AdamW at batch 64 per rank, once per level (none, optimizer,
# gradients, parameters), each in a process of its own. For each rank it prints the training state it holds,
# counted from its tensors — parameters (the bytes their storages hold), gradients, AdamW's moments — at its
# peak in the step (as each gradient arrives in backward, and when the optimizer steps) and between steps, and
# its steps/s; then the process's peak RSS (every rank and the rest of the process).
#
# usage: bench/sharding.sh [build/tests/test_parallel]
# environment: STEPS (default 30), WIDTH (default 1024), DEPTH (default 2), RANKS (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-build/tests/test_parallel}")
[[ -x "$bin" ]] || { echo "error: $bin not found or not executable (ninja -C build test_parallel)" >&2; exit 2; }
export WB_SHARD_STEPS=${STEPS:-30} WB_SHARD_WIDTH=${WIDTH:-1024} WB_SHARD_RANKS=${RANKS:-2} WB_SHARD_DEPTH=${DEPTH:-2}
echo "$WB_SHARD_RANKS CPU ranks (Gloo), MLP 784-${WB_SHARD_DEPTH}x$WB_SHARD_WIDTH-10, AdamW, batch 64 per rank," \
  "$WB_SHARD_STEPS steps; $(nproc) cores; MiB"
for level in none optimizer gradients parameters; do
  WB_SHARD_LEVEL=$level "$bin" --gtest_also_run_disabled_tests \
    --gtest_filter='ShardingBench.DISABLED_TwoRanksStateAndThroughput' 2>&1 | grep -E '^shard=|FAILED' || {
    echo "error: the $level run failed" >&2
    exit 1
  }
done
