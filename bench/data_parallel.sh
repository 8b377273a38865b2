#!/usr/bin/env bash
# Data parallel on this machine's CPUs, side by side in one session: each model trained for the same steps
# (a) as one rank with all the cores (threads = nproc) and (b) as nproc ranks of one thread each (Gloo
# allreduce between them, train.devices "cpu:N"), with the same global batch. Prints global samples/s of each
# and, for (b), the allreduce time per step and the share of it that ran while backward was still computing.
#
# usage: bench/data_parallel.sh [build/cli/workbench-cli] [work folder]
# environment: STEPS (default 200), BATCH (global batch, default 256), LIMIT (data.limit, default 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
cli=$(realpath "${1:-build/cli/workbench-cli}")
work=${2:-$(mktemp -d)}
steps=${STEPS:-200}
batch=${BATCH:-256}
limit=${LIMIT:-20000}
ranks=$(nproc)
mkdir -p "$work/runs"

run() {  # model devices batch threads [bucket_mb] -> run folder
  "$cli" train --set model.preset="$1" --set "train.devices=$2" --set train.batch_size="$3" \
    --set train.bucket_mb="${5:-25}" \
    --set train.threads="$4" --set train.max_steps="$steps" --set train.epochs=100 --set data.limit="$limit" \
    --set data.val_fraction=0 --set data.augment=false --set train.log_every_steps=10 \
    --set train.checkpoint_every_minutes=0 --set output.runs_dir="$work/runs" --set name="dp-$1" --json --quiet |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["run_dir"])'
}

summarize() {  # run folder -> "samples/s allreduce_ms hidden%"
  python3 - "$1" <<'PY'
import json, sys
folder = sys.argv[1]
summary = json.load(open(folder + "/summary.json"))
steps = [json.loads(l) for l in open(folder + "/metrics.jsonl") if '"event":"step"' in l.replace(" ", "")]
steps = steps[2:] or steps  # the first windows include warm-up
rate = sum(s["samples_per_sec"] for s in steps) / len(steps)
ms = [s["allreduce_ms"] for s in steps if "allreduce_ms" in s]
hidden = [s["allreduce_hidden_fraction"] for s in steps if "allreduce_hidden_fraction" in s]
extra = f"{sum(ms)/len(ms):8.2f} ms {100*sum(hidden)/len(hidden):6.1f} %" if ms else f"{'-':>11} {'-':>8}"
print(f"{rate:10.0f} {extra}")
PY
}

echo "Data parallel on $(nproc) cores, $steps steps, global batch $batch, Fashion-MNIST ($limit samples)"
printf "%-5s %-28s %10s %11s %8s\n" model layout "samples/s" allreduce hidden
for model in mlp cnn; do
  one=$(run "$model" '["cpu"]' "$batch" "$ranks")
  many=$(run "$model" "\"cpu:$ranks\"" $((batch / ranks)) "$ranks")
  printf "%-5s %-28s %s\n" "$model" "1 rank x $ranks threads" "$(summarize "$one")"
  printf "%-5s %-28s %s\n" "$model" "$ranks ranks x 1 thread (Gloo)" "$(summarize "$many")"
  small=$(run "$model" "\"cpu:$ranks\"" $((batch / ranks)) "$ranks" 0.25)
  printf "%-5s %-28s %s\n" "$model" "  same, bucket_mb 0.25" "$(summarize "$small")"
done
