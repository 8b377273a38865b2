#!/usr/bin/env bash
# The compression figures of the issue, measured the same way for the original and every artifact
# (workbench-cli compress: test accuracy on all 10,000 Fashion-MNIST test images, size of the weight file on
# disk, CPU latency at batch 1 and 64 as the median of timed forward passes after warm-up, threads fixed):
#   - the CNN pruned 50% structured, fine-tuned                     (latency speedup, accuracy kept)
#   - the CNN pruned 90% unstructured (global), fine-tuned          (accuracy)
#   - the CNN quantized to static int8                              (size, accuracy, speedup)
#   - an MLP distilled from the CNN against the same MLP trained alone for the same epochs
#   - the CNN pruned 50% structured, fine-tuned, then static int8, as one pipeline
#   - the MLP quantized to dynamic int8                             (speedup)
# Then measures every model of each run again in one session (`compress --measure`: latency in rounds
# interleaved with the original's) and prints the tables, and the MLP trained alone's test accuracy.
#
# usage: bench/compression_figures.sh [build/cli/workbench-cli] [work folder]
# environment:
#   EPOCHS       the CNN's training epochs            (default: 15, the default experiment)
#   FT_EPOCHS    fine-tuning epochs after structured pruning (default: 4, at lr 5e-4; 2 after unstructured)
#   MLP_EPOCHS   epochs of the MLP, alone and distilled (default: 5)
#   CNN_RUN      an already trained CNN run folder to start from (skips its training)
#   THREADS      threads for everything, timing included (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
cli=$(realpath "${1:-build/cli/workbench-cli}")
work=${2:-$(mktemp -d)}
epochs=${EPOCHS:-15}
ft=${FT_EPOCHS:-4}
mlp_epochs=${MLP_EPOCHS:-5}
threads=${THREADS:-$(nproc)}
runs="$work/runs"
mkdir -p "$runs"
common=(--set "output.runs_dir=$runs" --set "train.threads=$threads" --set "compress.latency_threads=$threads"
        --set compress.latency_runs=30)

run_dir_of() { /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["run_dir"])'; }

if [[ -n "${CNN_RUN:-}" ]]; then
  cnn=$CNN_RUN
else
  echo "== training the CNN ($epochs epochs)"
  cnn=$("$cli" train --set name=cnn --set "train.epochs=$epochs" "${common[@]}" --quiet --json | run_dir_of)
fi
compress() {  # run_dir passes-json
  "$cli" compress "$1" --set "compress.passes=$2" --set "compress.latency_threads=$threads" \
    --set compress.latency_runs=30 --quiet >/dev/null
}
structured="{\"type\":\"prune\",\"method\":\"structured\",\"amount\":0.5,\"epochs\":$ft,\"lr\":0.0005}"
echo "== CNN: 50% structured + $ft epoch(s) fine-tuning"
compress "$cnn" "[$structured]"
echo "== CNN: 90% unstructured (global) + 2 epochs fine-tuning"
compress "$cnn" '[{"type":"prune","amount":0.9,"epochs":2}]' 
echo "== CNN: static int8"
compress "$cnn" '[{"type":"quantize","mode":"static"}]'
echo "== MLP student distilled from the CNN ($mlp_epochs epochs)"
compress "$cnn" "[{\"type\":\"distill\",\"student\":{\"preset\":\"mlp\"},\"epochs\":$mlp_epochs,\"lr\":0.001,\"temperature\":2,\"alpha\":0.5}]"
echo "== CNN: 50% structured + fine-tuning, then static int8"
compress "$cnn" "[$structured,{\"type\":\"quantize\",\"mode\":\"static\"}]"
echo "== MLP alone ($mlp_epochs epochs: the same data, optimizer, learning rate and schedule as the distill pass)"
mlp=$("$cli" train --set name=mlp --set model.preset=mlp --set "train.epochs=$mlp_epochs" "${common[@]}" \
      --quiet --json | run_dir_of)
echo "== MLP: dynamic int8"
compress "$mlp" '[{"type":"quantize","mode":"dynamic"}]'

echo
echo "CNN run $cnn:"
"$cli" compress "$cnn" --measure --quiet >/dev/null
"$cli" compress "$cnn" --list
echo
echo "MLP run $mlp:"
"$cli" compress "$mlp" --measure --quiet >/dev/null
"$cli" compress "$mlp" --list
echo
echo "MLP trained alone: test accuracy $("$cli" eval "$mlp" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["test_accuracy"])')"
