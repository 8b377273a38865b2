#!/usr/bin/env bash
# Images/s of the workbench's image-folder loader (`workbench-cli bench --loader`, one epoch of the training
# split: read, decode, RandomResizedCrop, flip, ToTensor + Normalize, collate) against torchvision's ImageFolder +
# DataLoader(num_workers=N) with the same transforms on the same files (bench/image_loader.py), side by side for
# each worker count, each pair run alternately `rounds` times and the best of each kept; then the decode anchor
# (Pillow's libjpeg-turbo decode alone, one core) and the peak memory of each side.
#
# usage: bench/image_loader.sh [build/cli/workbench-cli] [rounds]
# environment:
#   FOLDER    the image folder (default: /tmp/wb-bench-images, made on first use: 10 classes x PER_CLASS colour
#             JPEGs from Fashion-MNIST, 256-383 px per side, like a photo collection's)
#   PER_CLASS files per class when the folder is made (default 300)
#   WORKERS   worker counts (default: "0 1 2")
#   BATCH     batch size (default 64);  CROP  RandomResizedCrop's size (default 224)
#   SQUARE    then the same on a folder of 224 x 224 JPEGs with no crop and no flip, where decoding is the whole work
#             (default: /tmp/wb-bench-square, made on first use the same way; empty = skip): the loader against
#             the decode anchor
#   PY        the Python with torchvision (default: /usr/bin/python3, Debian's python3-torchvision)
#   TRAIN_STEPS  then a training run's images/s, both sides training the `resnet` preset (AdamW) on the same files,
#             RandomResizedCrop(TRAIN_CROP), TRAIN_STEPS timed steps after 3 warm-up steps (default 20; 0 = skip);
#   TRAIN_CROP    default 64 (2 cores: at 224 the ResNet's compute hides any loader)
set -uo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build/cli/workbench-cli}
rounds=${2:-2}
folder=${FOLDER:-/tmp/wb-bench-images}
per_class=${PER_CLASS:-300}
workers=${WORKERS:-0 1 2}
batch=${BATCH:-64}
crop=${CROP:-224}
square=${SQUARE-/tmp/wb-bench-square}
py=${PY:-/usr/bin/python3}
[[ -x "$cli" ]] || { echo "error: $cli not found or not executable (build it first)" >&2; exit 2; }
if [[ ! -d "$folder" ]]; then
  echo "making $folder: 10 classes x $per_class JPEG files ..." >&2
  "$py" tests/backend/data/make_image_folder.py "$folder" "$per_class" 10 256 jpeg || exit 1
fi
best() { sort -g | tail -1; }

# loader_table FOLDER CROP: each worker count's images/s and peak memory, ours against torchvision's, then the
# decode anchor on the same files. CROP 0: no crop and no flip, only ToTensor + Normalize.
loader_table() {
  local folder=$1 crop=$2 n r o t om tm a
  local files bytes
  files=$(find "$folder" -type f -iname '*.jp*g' | wc -l)
  bytes=$(du -sh "$folder" | cut -f1)
  local engine_set=(--set data.dataset=image_folder --set "data.path=$folder" --set data.val_fraction=0
    --set data.test_fraction=0 --set "data.images.crop=$crop" --set "train.batch_size=$batch")
  if ((crop > 0)); then
    engine_set+=(--set data.augment.enabled=true)
    echo "Image folder $folder: $files JPEG files ($bytes), batch $batch, RandomResizedCrop($crop) + flip + normalize; $(nproc) cores"
  else
    engine_set+=(--set data.augment.enabled=false)
    echo "Image folder $folder: $files JPEG files ($bytes), batch $batch, decode + normalize only (one size: no resize, no crop); $(nproc) cores"
  fi
  # Measures the training files' statistics once (kept beside the classes) so that no timed epoch pays for it.
  "$cli" bench --loader --steps 1 "${engine_set[@]}" >/dev/null || exit 1
  printf "%-8s %14s %14s %8s %12s %12s\n" workers "ours img/s" "torchvision" "ratio" "ours MiB" "theirs MiB"
  for n in $workers; do
    local ours=() theirs=() ours_mem=() theirs_mem=()
    for ((r = 0; r < rounds; r++)); do
      o=$("$cli" bench --loader --steps 0 --json --set "data.workers=$n" "${engine_set[@]}" 2>/dev/null) || exit 1
      t=$("$py" bench/image_loader.py "$folder" "$n" "$batch" "$crop") || exit 1
      ours+=("$(jq -r .samples_per_sec <<<"$o")") ours_mem+=("$(jq -r .peak_rss_mib <<<"$o")")
      theirs+=("$(jq -r .samples_per_sec <<<"$t")") theirs_mem+=("$(jq -r .peak_rss_mib <<<"$t")")
    done
    o=$(printf "%s\n" "${ours[@]}" | best) t=$(printf "%s\n" "${theirs[@]}" | best)
    om=$(printf "%s\n" "${ours_mem[@]}" | best) tm=$(printf "%s\n" "${theirs_mem[@]}" | best)
    printf "%-8s %14.1f %14.1f %7.2fx %12.0f %12.0f\n" "$n" "$o" "$t" "$(echo "$o / $t" | bc -l)" "$om" "$tm"
    [[ $n == 0 ]] && in_thread=$o
  done
  # The anchor's best of at least 5 runs (ours: of `rounds`): a noisy machine does not lower the bar.
  local anchor anchors=() anchor_rounds=$((rounds > 5 ? rounds : 5))
  for ((r = 0; r < anchor_rounds; r++)); do
    a=$("$py" bench/image_loader.py "$folder" 0 "$batch" "$crop" anchor) || exit 1
    anchors+=("$(jq -r '.decoded_per_sec' <<<"$a")")
  done
  anchor=$(printf "%s\n" "${anchors[@]}" | best)
  printf "decode anchor (Pillow %s, libjpeg-turbo %s, convert(\"RGB\") alone, one core, best of %d): %.0f images/s" \
    "$(jq -r .pillow <<<"$a")" "$(jq -r .libjpeg_turbo <<<"$a")" "$anchor_rounds" "$anchor"
  [[ -n ${in_thread:-} ]] && printf "; our loader on one core (0 workers): %.0f%% of it" "$(echo "100 * $in_thread / $anchor" | bc -l)"
  echo
  echo
}

loader_table "$folder" "$crop"
if [[ -n $square ]]; then
  if [[ ! -d "$square" ]]; then
    echo "making $square: 10 classes x $per_class JPEG files of 224 x 224 ..." >&2
    "$py" tests/backend/data/make_image_folder.py "$square" "$per_class" 10 224 jpeg-square || exit 1
  fi
  loader_table "$square" 0
fi
train_steps=${TRAIN_STEPS:-20}
train_crop=${TRAIN_CROP:-64}
if ((train_steps > 0)); then
  train_set=(--set data.dataset=image_folder --set "data.path=$folder" --set data.val_fraction=0 --set data.test_fraction=0
    --set "data.images.crop=$train_crop" --set data.augment.enabled=true --set "train.batch_size=$batch"
    --set model.preset=resnet --set "train.threads=$(nproc)")
  "$cli" bench --loader --steps 1 "${train_set[@]}" >/dev/null || exit 1
  echo
  echo "Training (resnet preset, AdamW, batch $batch, RandomResizedCrop($train_crop) + flip, $train_steps steps after 3 warm-up, $(nproc) threads):"
  printf "%-8s %14s %14s %8s\n" workers "ours img/s" "torchvision" "ratio"
  for n in $workers; do
    ours=() theirs=()
    for ((r = 0; r < rounds; r++)); do
      o=$("$cli" bench --steps "$train_steps" --warmup 3 --json --set "data.workers=$n" "${train_set[@]}" 2>/dev/null) || exit 1
      t=$("$py" bench/image_loader.py "$folder" "$n" "$batch" "$train_crop" train "$train_steps" "$(nproc)") || exit 1
      ours+=("$(jq -r .samples_per_sec <<<"$o")") theirs+=("$(jq -r .samples_per_sec <<<"$t")")
      theirs_parameters=$(jq -r .parameters <<<"$t")
    done
    o=$(printf "%s\n" "${ours[@]}" | best) t=$(printf "%s\n" "${theirs[@]}" | best)
    printf "%-8s %14.1f %14.1f %7.2fx\n" "$n" "$o" "$t" "$(echo "$o / $t" | bc -l)"
  done
  ours_parameters=$("$cli" bench --steps 1 --warmup 0 "${train_set[@]}" 2>&1 | sed -n 's/.*Model: \([0-9]*\) parameters.*/\1/p' | head -1)
  echo "parameters: ours $ours_parameters, torchvision side $theirs_parameters (the same ResNet)"
  echo
fi
echo "workers 0 = in the training thread (ours), in the main process (torchvision). Memory: ours the process's peak; torchvision's the main process's plus its largest worker's."
