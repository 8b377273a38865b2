#!/usr/bin/env bash
# ASHA against the full grid on one real sweep: optimizer x learning rate x warmup (24 trials) of the MLP on a
# Fashion-MNIST subset, each trial 9 epochs, run twice through the queue — once every trial to its end, once with
# early stopping (ASHA, eta 3: rungs at epochs 1 and 3) — printing side by side the best trial each found, its
# metric (best_val_accuracy), the training compute spent (the trials' summed training time, from `sweep show`)
# and the wall-clock time of the whole sweep, and where ASHA stopped the others.
#
# usage: bench/asha_vs_grid.sh [build/cli/workbench-cli] [data.limit] [epochs]
set -uo pipefail
cd "$(dirname "$0")/.."
cli=$(realpath "${1:-build/cli/workbench-cli}")
limit=${2:-6000}
epochs=${3:-9}
[[ -x "$cli" ]] || { echo "error: $cli not found or not executable (build it first)" >&2; exit 2; }
work=$(mktemp -d /tmp/wb-asha-bench.XXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/base.json" <<JSON
{"seed": 1, "data": {"dataset": "fashion-mnist", "limit": $limit, "val_fraction": 0.1, "augment": false},
 "model": {"preset": "mlp"}, "optimizer": {"name": "adam", "lr": 0.001},
 "train": {"batch_size": 64, "epochs": $epochs, "threads": 2, "devices": ["cpu"]}, "output": {"runs_dir": "runs"}}
JSON
keys='"optimizer.name": ["adam", "sgd", "adamw"], "optimizer.lr": [0.0001, 0.001, 0.01, 0.1],
      "schedule.warmup_steps": [0, 200]'
echo "{\"name\": \"grid\", \"keys\": {$keys}}" >"$work/grid.json"
echo "{\"name\": \"asha\", \"keys\": {$keys}, \"early_stopping\": {\"rule\": \"asha\", \"eta\": 3, \"grace_epochs\": 1}}" \
  >"$work/asha.json"
now() { date +%s.%N; }
declare -A wall
for sweep in grid asha; do
  start=$(now)
  (cd "$work" && "$cli" sweep start base.json --sweep "$sweep.json" --run >"$work/$sweep.out" 2>&1) || {
    cat "$work/$sweep.out"
    exit 1
  }
  wall[$sweep]=$(echo "$(now) - $start" | bc -l)
  (cd "$work" && "$cli" sweep show "$sweep" --json --runs-dir runs >"$work/$sweep.json.out") || exit 1
done
echo "Sweep: optimizer.name x optimizer.lr x schedule.warmup_steps = 24 trials of the MLP, Fashion-MNIST" \
  "data.limit=$limit (10% validation), $epochs epochs each, batch 64, 2 threads; $(nproc) cores"
printf "%-6s %-48s %10s %10s %10s %8s\n" "" "best trial (values)" "best acc" "compute s" "wall s" "stopped"
for sweep in grid asha; do
  f="$work/$sweep.json.out"
  best=$(jq -r '.trials[] | select(.best) | "\(.label) \(.values | to_entries | map("\(.key|split(".")|last)=\(.value)") | join(","))"' "$f")
  metric=$(jq -r '.trials[] | select(.best) | .metric' "$f")
  compute=$(jq -r '.compute_s' "$f")
  stopped=$(jq -r '[.trials[] | select(.message | startswith("stopped"))] | length' "$f")
  printf "%-6s %-48s %10.4f %10.1f %10.1f %8s\n" "$sweep" "$best" "$metric" "$compute" "${wall[$sweep]}" "$stopped"
done
echo
echo "ASHA's stops, by rung:"
jq -r '.trials[] | select(.message | startswith("stopped")) | .message' "$work/asha.json.out" |
  sed -E 's/.*rung at epoch ([0-9]+).*/epoch \1/' | sort | uniq -c
g=$(jq -r '.compute_s' "$work/grid.json.out") a=$(jq -r '.compute_s' "$work/asha.json.out")
printf "ASHA spent %.0f%% of the grid's training compute.\n" "$(echo "100 * $a / $g" | bc -l)"
