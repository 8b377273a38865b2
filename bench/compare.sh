#!/usr/bin/env bash
# Throughput of the engine (`workbench-cli bench`) against the same model, data, batch, optimizer, threads and
# BLAS in Python torch, side by side in one run. Each pair runs alternately `rounds` times; the best of each is
# reported (the machine's noise only ever slows a run down).
# usage: bench/compare.sh [build/cli/workbench-cli] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build/cli/workbench-cli}
rounds=${2:-3}
threads=$(nproc)
steps=${STEPS:-60}
py=/usr/bin/python3
configs=("mlp 64" "mlp 256" "cnn 64" "cnn 128" "resnet 128" "vit 128")
[[ -n "${MODELS:-}" ]] && IFS=',' read -ra configs <<<"$MODELS"

printf "%-8s %6s %14s %14s %8s\n" model batch "engine [s/s]" "python [s/s]" ratio
for cfg in "${configs[@]}"; do
  read -r model batch <<<"$cfg"
  best_engine=0
  best_python=0
  for ((r = 0; r < rounds; r++)); do
    e=$("$cli" bench --json --steps "$steps" --warmup 10 --set model.preset="$model" --set train.batch_size="$batch" \
      --set data.augment=false --set train.threads="$threads" --set optimizer.name=adamw 2>/dev/null |
      $py -c 'import json,sys; print(json.load(sys.stdin)["samples_per_sec"])')
    p=$($py bench/python_reference.py --model "$model" --batch "$batch" --steps "$steps" --warmup 10 \
      --threads "$threads" | $py -c 'import json,sys; print(json.load(sys.stdin)["samples_per_sec"])')
    best_engine=$($py -c "print(max($best_engine, $e))")
    best_python=$($py -c "print(max($best_python, $p))")
  done
  printf "%-8s %6s %14.1f %14.1f %7.2fx\n" "$model" "$batch" "$best_engine" "$best_python" \
    "$($py -c "print($best_engine / $best_python)")"
done
echo "threads=$threads, steps=$steps (+10 warm-up), best of $rounds alternating rounds, $(date -u +%F)"
