#!/usr/bin/env bash
# Fine-tuning from a trained model, against PyTorch: on an image folder of real photographs, resnet18 is pretrained
# on one half of the classes (A), saved, then trained on the other half (B) three ways — (a) frozen body + new
# head (model.freeze "body"), (b) everything trained with the body at LR_SCALE x the head's rate
# (optimizer.param_groups lr_scale), (c) from scratch — with the test accuracy after the same number of epochs and
# the seconds per epoch, each beside the same recipe in torch + torchvision (bench/finetune_reference.py: resnet18,
# the same weights file, the same folders, transforms, optimizer, rates, epochs, batch and seeds).
#
# The photographs: the sample images of Debian's python3-skimage package (downloaded with `apt-get download` and
# unpacked, not installed), each photo one class, its samples crops of it; test crops from a strip of each photo
# no training crop touches. bench/finetune_photos.py says why this source and how the classes are made.
#
# The recipe (both sides): 64 x 64 input (RandomResizedCrop(64) + flip for training, CenterCrop(64) for the test, of
# 80 px files), ImageNet's normalization, AdamW lr LR weight decay 0.01, the rate along a half cosine to 0 over the
# run's steps (schedule cosine; torch's CosineAnnealingLR stepped per step), batch BATCH, 2 loader
# workers, nproc intra-op threads, OMP_WAIT_POLICY=PASSIVE for Python (what workbench-cli sets for itself). The
# fine-tunes start from the workbench's pretrained model exported as safetensors under torchvision's names, read by
# PyTorch (FROM=torch: from PyTorch's pretrained torch.save file instead, read by the workbench). A's and B's class
# counts differ (9 and 7), so both sides make a new head. Before the fine-tunes PyTorch scores the workbench's
# pretrained model on A's test files: the same figure as the workbench's shows that both measure alike. Accuracy differs between the sides by random init, data
# order and augmentation draws, not only by arithmetic: each fine-tune runs once per seed in SEEDS, the table shows
# the mean and each seed's. The runs of the two sides alternate (who goes first changes each seed), so a busy
# machine slows both alike. s/epoch: the training pass alone (the workbench's epoch_s in metrics.jsonl; Python's
# from the loader's iterator to the last step), the mean over epochs and seeds; speed = PyTorch's s/epoch / ours
# (above 1.0x: ours is faster). bench/finetune_step_check.py compares the recipes' arithmetic step for step on one
# batch, where this script's figures carry the seeds' noise. Accuracy: the mean over seeds ± the seeds' standard
# deviation (n - 1), then each seed's; diff: the mean of the seeds' differences (ours - PyTorch, seed by seed,
# both sides drawing from the same seed) ± its standard error.
#
# usage: bench/finetune.sh [build/cli/workbench-cli]
# environment:
#   SEEDS            seeds of the fine-tunes (default "1 2 3"); the pretraining uses the first
#   PRETRAIN_EPOCHS  epochs on A (default 6);  EPOCHS  epochs on B (default 5)
#   LR               the rate (default 0.001);  LR_SCALE  the body's share in (b) (default 0.1);  BATCH (default 64)
#   FROM             ours | torch: whose pretrained file the fine-tunes start from (default ours)
#   FOLDER           the image folder (default /tmp/wb-finetune, made on first use; a folder made by an older
#                    version of bench/finetune_photos.py is made anew)
#   SKIMAGE_DIR      where python3-skimage's package is unpacked (default /tmp/wb-finetune-skimage); it needs
#                    Debian's package lists: run `apt-get update` once if `apt-get download` finds nothing
#   WORK             run folders and weights files (default /tmp/wb-finetune-runs, emptied first)
#   PY               the Python with torch and torchvision (default /usr/bin/python3)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
cli=${1:-build/cli/workbench-cli}
seeds=${SEEDS:-1 2 3}
pre_epochs=${PRETRAIN_EPOCHS:-6}
epochs=${EPOCHS:-5}
lr=${LR:-0.001}
lr_scale=${LR_SCALE:-0.1}
batch=${BATCH:-64}
from=${FROM:-ours}
folder=${FOLDER:-/tmp/wb-finetune}
skimage_dir=${SKIMAGE_DIR:-/tmp/wb-finetune-skimage}
work=${WORK:-/tmp/wb-finetune-runs}
py=${PY:-/usr/bin/python3}
crop=64 workers=2 threads=$(nproc)
export OMP_WAIT_POLICY=PASSIVE
die() { echo "error: $*" >&2; exit 1; }
[[ -x "$cli" ]] || die "$cli not found or not executable (build it first: ninja -C build workbench-cli)"
[[ $from == ours || $from == torch ]] || die "FROM=$from: ours or torch"
command -v jq >/dev/null || die "jq is needed (apt-get install jq)"

photos=$skimage_dir/usr/lib/python3/dist-packages/skimage/data
if [[ ! -f $photos/astronaut.png ]]; then
  echo "fetching Debian's python3-skimage (about 20 MB) into $skimage_dir ..." >&2
  mkdir -p "$skimage_dir" || exit 1
  (cd "$skimage_dir" && apt-get download python3-skimage >/dev/null && dpkg-deb -x python3-skimage_*.deb .) ||
    die "could not fetch python3-skimage: run 'apt-get update' once (as root), then again"
fi
stamp="bench/finetune_photos.py $(md5sum <bench/finetune_photos.py | cut -c1-12)"
if [[ -d $folder && "$(cat "$folder/.made-by" 2>/dev/null)" != "$stamp" ]]; then
  [[ -f $folder/.made-by ]] || die "$folder exists and was not made by bench/finetune_photos.py: set FOLDER"
  rm -rf "$folder"
fi
if [[ ! -d $folder ]]; then
  "$py" bench/finetune_photos.py "$photos" "$folder" && echo "$stamp" >"$folder/.made-by" || exit 1
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
results=$work/results.tsv # variant side seed accuracy mean_epoch_s

# ours VARIANT TRAIN TEST SEED EPOCHS [WEIGHTS]: one workbench run; appends its row; prints the run folder.
ours() {
  local variant=$1 train=$2 test=$3 seed=$4 n=$5 weights=${6:-} summary run acc s
  local set=(--set model.preset=resnet18 --set data.dataset=image_folder --set "data.path=$train"
    --set "data.test_path=$test" --set data.val_fraction=0 --set "data.images.crop=$crop"
    --set data.augment.enabled=true --set data.images.normalize=imagenet --set "data.workers=$workers"
    --set "train.batch_size=$batch" --set "train.epochs=$n" --set "train.threads=$threads"
    --set optimizer.name=adamw --set "optimizer.lr=$lr" --set optimizer.weight_decay=0.01
    --set schedule.name=cosine --set "seed=$seed" --set "output.runs_dir=$work/runs")
  case $variant in
    frozen) set+=(--set "model.weights=$weights" --set model.freeze=body) ;;
    full) set+=(--set "model.weights=$weights"
      --set "optimizer.param_groups=[{\"params\":[\"conv1.*\",\"bn1.*\",\"layer*\"],\"lr_scale\":$lr_scale}]") ;;
  esac
  summary=$("$cli" train --json -q "${set[@]}") || die "workbench-cli train ($variant, seed $seed) failed"
  run=$(jq -r .run_dir <<<"$summary") acc=$(jq -r .test_accuracy <<<"$summary")
  s=$(jq -s '[.[] | select(.event == "epoch") | .epoch_s] | add / length' "$run/metrics.jsonl")
  printf "%s\tours\t%s\t%s\t%s\n" "$variant" "$seed" "$acc" "$s" >>"$results"
  echo "$run"
}

# theirs VARIANT TRAIN TEST SEED EPOCHS WEIGHTS: the same run in PyTorch; appends its row.
theirs() {
  local variant=$1 out acc s
  out=$("$py" bench/finetune_reference.py "$variant" "$2" "$3" "$6" "$5" "$4" "$batch" "$crop" "$lr" "$lr_scale" \
    "$workers" "$threads") || die "finetune_reference.py ($variant, seed $4) failed"
  acc=$(jq -r .test_accuracy <<<"$out") s=$(jq '.epoch_s | add / length' <<<"$out")
  printf "%s\tPyTorch\t%s\t%s\t%s\n" "$variant" "$4" "$acc" "$s" >>"$results"
}

first_seed=${seeds%% *}
started=$(date +%s)
echo "pretraining resnet18 on A ($pre_epochs epochs, seed $first_seed): ours, then PyTorch ..." >&2
run=$(ours pretrain "$folder/A/train" "$folder/A/test" "$first_seed" "$pre_epochs") || exit 1
"$cli" export "$run" --format safetensors --out "$work/ours_A.safetensors" >/dev/null || die "export failed"
theirs pretrain "$folder/A/train" "$folder/A/test" "$first_seed" "$pre_epochs" "$work/torch_A.pt" || exit 1
scored=$("$py" bench/finetune_reference.py score "$folder/A/train" "$folder/A/test" "$work/ours_A.safetensors" 0 0 \
  "$batch" "$crop" "$lr" "$lr_scale" "$workers" "$threads" | jq -r .test_accuracy) || die "scoring failed"
weights=$work/ours_A.safetensors
[[ $from == torch ]] && weights=$work/torch_A.pt

order=0
for seed in $seeds; do
  for variant in frozen full scratch; do
    echo "fine-tuning on B: $variant, seed $seed ..." >&2
    if ((order % 2 == 0)); then
      run=$(ours "$variant" "$folder/B/train" "$folder/B/test" "$seed" "$epochs" "$weights") || exit 1
      theirs "$variant" "$folder/B/train" "$folder/B/test" "$seed" "$epochs" "$weights" || exit 1
    else
      theirs "$variant" "$folder/B/train" "$folder/B/test" "$seed" "$epochs" "$weights" || exit 1
      run=$(ours "$variant" "$folder/B/train" "$folder/B/test" "$seed" "$epochs" "$weights") || exit 1
    fi
    [[ $variant == frozen && -z ${load_report:-} ]] && load_report=$(grep -m2 -E "weights: loaded|new head" "$run/train.log")
    [[ $variant == frozen && -z ${frozen_line:-} ]] && frozen_line=$(grep -m1 -o "frozen: .*" "$run/train.log")
  done
  order=$((order + 1))
done

a_train=$(find "$folder/A/train" -name '*.jpg' | wc -l) a_test=$(find "$folder/A/test" -name '*.jpg' | wc -l)
b_train=$(find "$folder/B/train" -name '*.jpg' | wc -l) b_test=$(find "$folder/B/test" -name '*.jpg' | wc -l)
skimage_version=$(dpkg-deb -f "$skimage_dir"/python3-skimage_*.deb Version 2>/dev/null || echo "?")
echo
echo "Fine-tuning resnet18: photos of python3-skimage $skimage_version; A 9 classes ($a_train train / $a_test test crops),"
echo "B 7 classes ($b_train / $b_test); ${crop}px, batch $batch, AdamW lr $lr; pretrain $pre_epochs epochs on A, fine-tune $epochs on B;"
echo "fine-tunes from $( [[ $from == ours ]] && echo "the workbench's pretrained model (safetensors export)" || echo "PyTorch's pretrained model (torch.save)"); seeds: $seeds"
echo "ours: ${load_report//$'\n'/; }"
echo "ours: $frozen_line"
printf "check: the workbench's pretrained model scores %.1f %% on A's test in PyTorch, %.1f %% in the workbench\n" \
  "$(echo "100 * $scored" | bc -l)" "$(awk -F'\t' '$1 == "pretrain" && $2 == "ours" { print 100 * $4 }' "$results")"
awk -F'\t' -v lr_scale="$lr_scale" '
  { key = $1 SUBSEP $2; acc[key] += $4; acc2[key] += $4 * $4
    accs[key] = accs[key] (accs[key] == "" ? "" : " ") sprintf("%.1f", 100 * $4)
    val[key SUBSEP $3] = $4; if ($2 == "ours") seeds_of[$1] = seeds_of[$1] " " $3
    s[key] += $5; n[key]++; if (!($1 in seen)) { seen[$1] = 1; order[++rows] = $1 } }
  END {
    name["pretrain"] = "pretrain on A (scratch)"; name["frozen"] = "B: frozen body + new head"
    name["full"] = "B: full, body lr x" lr_scale; name["scratch"] = "B: from scratch"
    printf "%-26s %-14s %-14s %-11s %9s %9s %7s\n", "variant", "ours acc %", "PyTorch acc %", "diff", "ours s/ep", "PT s/ep", "speed"
    for (r = 1; r <= rows; r++) {
      v = order[r]; o = v SUBSEP "ours"; t = v SUBSEP "PyTorch"
      oa = 100 * acc[o] / n[o]; ta = 100 * acc[t] / n[t]; os = s[o] / n[o]; ts = s[t] / n[t]
      ocell = sprintf("%.1f", oa); tcell = sprintf("%.1f", ta)
      if (n[o] > 1) { ocell = ocell " ± " sprintf("%.1f", sd(o)); tcell = tcell " ± " sprintf("%.1f", sd(t)) }
      dcell = sprintf("%+.1f", oa - ta); if (n[o] > 1) dcell = dcell " ± " sprintf("%.1f", paired_se(v))
      w = n[o] > 1 ? 1 : 0  # a "±" is two bytes, one column: printf pads by bytes
      printf "%-26s %-" 14 + w "s %-" 14 + w "s %-" 11 + w "s %9.2f %9.2f %6.2fx\n", name[v], ocell, tcell, dcell, os, ts, ts / os
    }
    print "per seed (ours | PyTorch):"
    for (r = 1; r <= rows; r++) {
      v = order[r]; if (n[v SUBSEP "ours"] > 1) printf "  %-26s %s | %s\n", name[v], accs[v SUBSEP "ours"], accs[v SUBSEP "PyTorch"]
    }
  }
  # the standard error of the mean of the differences, seed by seed (ours - PyTorch)
  function paired_se(v,   k, list, i, d, sum, sum2) {
    k = split(seeds_of[v], list, " ")
    for (i = 1; i <= k; i++) { d = val[v SUBSEP "ours" SUBSEP list[i]] - val[v SUBSEP "PyTorch" SUBSEP list[i]]; sum += d; sum2 += d * d }
    return 100 * sqrt((sum2 - sum * sum / k) / (k - 1) / k)
  }
  function sd(k,   m) { m = acc[k] / n[k]; return 100 * sqrt((acc2[k] - n[k] * m * m) / (n[k] - 1 > 0 ? n[k] - 1 : 1)) }' "$results"
echo "$(lscpu | grep 'Model name' | sed 's/  */ /g'), $(nproc) cores; $(date -u '+%F %H:%M') UTC; $((($(date +%s) - started) / 60)) min"
