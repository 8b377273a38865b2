#!/usr/bin/env bash
# What the run queue costs between trials: N tiny trials (synthetic data, the MLP, under a second of training
# each) trained by `workbench-cli queue run --until-empty`, against the same N experiments trained by
# `workbench-cli train` one after another in a shell loop (the peer: what a user does by hand). Each trial runs
# in a process of its own either way, so the difference per trial is the queue's own cost: the claim, the
# child's start, the entry's end, the index reads. Best of `rounds` alternating rounds.
#
# usage: bench/queue_overhead.sh [build/cli/workbench-cli] [trials] [rounds]
set -uo pipefail
cd "$(dirname "$0")/.."
cli=$(realpath "${1:-build/cli/workbench-cli}")
trials=${2:-20}
rounds=${3:-2}
[[ -x "$cli" ]] || { echo "error: $cli not found or not executable (build it first)" >&2; exit 2; }
work=$(mktemp -d /tmp/wb-queue-bench.XXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/tiny.json" <<JSON
{"seed": 7, "data": {"dataset": "synthetic", "augment": false,
                     "synthetic": {"samples": 512, "classes": 4, "shape": [1, 8, 8]}},
 "model": {"preset": "mlp"}, "optimizer": {"name": "adamw", "lr": 0.003},
 "train": {"batch_size": 32, "epochs": 1, "threads": 1, "devices": ["cpu"]}, "output": {"runs_dir": "runs"}}
JSON
now() { date +%s.%N; }
best() { sort -g | head -1; }
queue_s=() loop_s=() train_s=()
for ((r = 0; r < rounds; r++)); do
  rm -rf "$work/runs"
  for ((i = 0; i < trials; i++)); do
    (cd "$work" && "$cli" queue add tiny.json --set "seed=$i" --label "t$i" >/dev/null) || exit 1
  done
  start=$(now)
  (cd "$work" && "$cli" queue run --until-empty >/dev/null) || exit 1
  queue_s+=("$(echo "$(now) - $start" | bc -l)")
  # The trials' own training time (the index's wall_s), the same work on both sides.
  train_s+=("$(cd "$work" && "$cli" runs --json | jq '[.[].wall_s] | add')")
  rm -rf "$work/runs"
  start=$(now)
  for ((i = 0; i < trials; i++)); do
    (cd "$work" && "$cli" train tiny.json --quiet --set "seed=$i" >/dev/null) || exit 1
  done
  loop_s+=("$(echo "$(now) - $start" | bc -l)")
done
q=$(printf "%s\n" "${queue_s[@]}" | best) l=$(printf "%s\n" "${loop_s[@]}" | best)
t=$(printf "%s\n" "${train_s[@]}" | best)
echo "$trials trials (synthetic 512 samples, MLP, 1 epoch), best of $rounds rounds, $(nproc) cores:"
printf "  queue run --until-empty : %6.2f s, %.3f s a trial\n" "$q" "$(echo "$q / $trials" | bc -l)"
printf "  train, one after another: %6.2f s, %.3f s a trial\n" "$l" "$(echo "$l / $trials" | bc -l)"
printf "  the queue's own cost: %+.3f s a trial; training itself: %.3f s a trial (the rest is each process's start)\n" \
  "$(echo "($q - $l) / $trials" | bc -l)" "$(echo "$t / $trials" | bc -l)"
