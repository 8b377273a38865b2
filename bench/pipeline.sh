#!/usr/bin/env bash
# Pipeline model parallelism on this machine's CPU (train.pipeline, stages on threads): the bubble and the
# throughput. An MLP of four 1024-wide layers (two per stage, balanced) on synthetic 1x32x32 samples, batch
# 256, timed by `workbench-cli bench`: first on one device with every core, then cut into 2 stages (each
# stage gets half the cores) for several micro-batch counts, GPipe and 1F1B. For each: samples/s, and each
# stage's measured idle share (1 − its compute time ÷ the schedule's wall time; waits for hand-offs count as
# idle) beside the ideal bubble (stages − 1)/(micro_batches + stages − 1).
#
# usage: bench/pipeline.sh [build/cli/workbench-cli]
# environment: STEPS (timed steps, default 30), BATCH (default 256), WIDTH (default 1024)
set -euo pipefail
cd "$(dirname "$0")/.."
cli=$(realpath "${1:-build/cli/workbench-cli}")
[[ -x "$cli" ]] || { echo "error: $cli not found or not executable (build it first)" >&2; exit 2; }
steps=${STEPS:-30}
batch=${BATCH:-256}
width=${WIDTH:-1024}
work=$(mktemp -d /tmp/wb-pipeline-bench.XXXX)
trap 'rm -rf "$work"' EXIT

experiment() {  # pipeline JSON ("null" = one device) -> experiment file
  local file="$work/exp-$RANDOM.json"
  python3 - "$1" "$batch" "$width" "$(nproc)" >"$file" <<'PY'
import json, sys
pipeline, batch, width, cores = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
linear = lambda n: {"type": "linear", "out_features": n}
layers = [{"type": "flatten"}, linear(width), {"type": "relu"}, linear(width), {"type": "relu"},
          linear(width), {"type": "relu"}, linear(width), {"type": "relu"}, linear(10)]
train = {"batch_size": batch, "epochs": 1000, "threads": cores, "devices": ["cpu"],
         "checkpoint_every_minutes": 0}
if pipeline is not None:
    train["pipeline"] = pipeline
print(json.dumps({"seed": 1, "data": {"dataset": "synthetic", "augment": False, "val_fraction": 0,
                                      "synthetic": {"samples": 8192, "classes": 10, "shape": [1, 32, 32]}},
                  "model": {"layers": layers}, "optimizer": {"name": "sgd", "lr": 0.01}, "train": train}))
PY
  echo "$file"
}

bench() {  # experiment file -> "samples/s|idle line"
  local out
  out=$("$cli" bench "$1" --steps "$steps" --warmup 5 2>&1) || { echo "$out" >&2; exit 1; }
  local rate idle
  rate=$(echo "$out" | sed -n 's/^\([0-9.]*\) samples\/s.*/\1/p' | tail -1)
  idle=$(echo "$out" | sed -n 's/^pipeline idle per stage: \([^(]*\) (.*/\1/p' | tail -1)
  echo "$rate|$idle"
}

echo "Pipeline on $(nproc) CPU cores: MLP 4 x $width (2 layers a stage), batch $batch, $steps timed steps"
printf "%-34s %10s %9s  %-18s %s\n" layout "samples/s" "vs one" "idle per stage" "ideal bubble"
one=$(bench "$(experiment null)")
one_rate=${one%%|*}
printf "%-34s %10.0f %9s  %-18s %s\n" "one device, $(nproc) threads" "$one_rate" "1.00x" "-" "-"
for schedule in gpipe 1f1b; do
  for micro in 1 2 4 8 16; do
    pipeline="{\"stages\": [[\"cpu\", \"0..4\"], [\"cpu\", \"5..9\"]], \"micro_batches\": $micro, \"schedule\": \"$schedule\"}"
    result=$(bench "$(experiment "$pipeline")")
    rate=${result%%|*}
    idle=${result#*|}
    ideal=$(python3 -c "print(f'{100 * 1 / ($micro + 1):.1f}%')")
    printf "%-34s %10.0f %8.2fx  %-18s %s\n" "2 stages, $schedule, $micro micro-batches" "$rate" \
      "$(python3 -c "print($rate / $one_rate)")" "$idle" "$ideal"
  done
done
