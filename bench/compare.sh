#!/usr/bin/env bash
# Throughput of the engine (`workbench-cli bench`) against the same model, data, batch, optimizer, threads,
# BLAS, precision and device switches in Python torch (bench/python_reference.py), side by side in one run,
# printed as one table. Each engine/Python pair runs alternately `rounds` times; the best of each is reported
# (the machine's noise only ever slows a run down). The parameter counts of both sides are compared.
#
# Beside the four presets, the two standard models: "resnet50 128" and "vit_b_16 128" in MODELS train
# torchvision's ResNet-50 and ViT-B/16 on the Python side and the same architectures as layer lists on ours
# (bench/models/*.json, written by bench/models/make_models.py), on synthetic 3x224x224 images of 1000 classes.
# On CUDA (or with DETAIL=1) a second table follows, one row per cell and runner: samples/s, step time, peak
# memory (the timed steps'; the engine's once `bench --json` prints cuda_peak_bytes) and, for the standard models,
# the achieved TFLOP/s (forward FLOPs x3 x samples/s) against the GPU's peak (bench/compare_table.py).
#
# usage: bench/compare.sh [build/cli/workbench-cli] [rounds]
# environment:
#   MODELS      "model batch" pairs, comma-separated      (default: mlp 64, mlp 256, cnn 64, cnn 128,
#               resnet 128, vit 128; add resnet50 128, vit_b_16 128 for the standard models)
#   PRECISIONS  space-separated: fp32 bf16 fp16            (default: "fp32 bf16"; add fp16 on CUDA)
#   DEVICE      cpu | cuda                                 (default: cpu)
#   STEPS       timed steps per run (+10 warm-up)          (default: 60)
#   STANDARD_STEPS  timed steps for resnet50 and vit_b_16 (default: STEPS)
#   THREADS     intra-op (and OpenBLAS) threads            (default: nproc)
#   GRAPHS=1    add a column: Python with the whole step in one CUDA graph (fp32/bf16 on CUDA)
#   ENGINE_GRAPHS=1  add a column: the engine with --set train.cuda_graphs=on (noted, not fatal, where refused)
#   COMPILE     Python through torch.compile, columns: "default", "max-autotune" or both (default none)
#   COMPILE_ON  models that get the compile columns (default: all of MODELS), e.g. "resnet50 vit_b_16"
#   COMPILE_PRECISIONS   precisions that get torch.compile's default mode (default "all")
#   AUTOTUNE_PRECISIONS  precisions that get max-autotune (default "bf16"; its compile takes minutes; "all")
#   SIZE        the standard models' image side (default 224; smaller for a quick try on the CPU)
#   WARMUP      untimed steps per run (default 10; at least 3 for compiled runs)
#   PY_TIMEOUT  seconds one Python process may take (default: no limit); the modes it finished are kept
#   DEADLINE    a time (seconds since the epoch) after which no run starts (a note names what was cut) and no
#               Python process runs on; the table prints what was measured
#   DETAIL=1    the per-runner table also on the CPU (it is always printed on CUDA); DETAIL=0 never
#   RECORDS     keep the cells measured (tab-separated; bench/compare_table.py reads them) at this path
#   ENGINE_SET  extra `--set key=value` words for the engine, e.g. "train.channels_last=true"
#   PY_ARGS     extra arguments for python_reference.py, e.g. "--channels-last"
#   DATA        fashion-mnist | synthetic (random images of the same shape, where the dataset is missing)
#   PY          the Python with torch (default: /usr/bin/python3)
#   REFERENCE_KERNELS=1  also times Python bf16 with oneDNN off: LibTorch's reference bf16 loops, the kernels a CPU
#               without AVX-512 runs, so one machine shows what bf16 costs on that CPU kind (a note per model)
#   PY_OMP_WAIT OMP_WAIT_POLICY for Python (default PASSIVE, what workbench-cli sets for itself; "" = unset,
#               libgomp's spinning default, which on a loaded machine is several times slower)
set -uo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build/cli/workbench-cli}
rounds=${2:-3}
threads=${THREADS:-$(nproc)}
steps=${STEPS:-60}
device=${DEVICE:-cpu}
py=${PY:-/usr/bin/python3}
py_omp_wait=${PY_OMP_WAIT-PASSIVE}
if [[ -n "$py_omp_wait" ]]; then export OMP_WAIT_POLICY=$py_omp_wait; else unset OMP_WAIT_POLICY; fi
precisions=${PRECISIONS:-fp32 bf16}
graphs=${GRAPHS:-0}
engine_graphs=${ENGINE_GRAPHS:-0}
compile_modes=${COMPILE:-}
compile_on=${COMPILE_ON:-}
autotune_precisions=${AUTOTUNE_PRECISIONS:-bf16}
compile_precisions=${COMPILE_PRECISIONS:-all}
preset_steps=$steps
size=${SIZE:-224}
warmup=${WARMUP:-10}
configs=("mlp 64" "mlp 256" "cnn 64" "cnn 128" "resnet 128" "vit 128")
[[ -n "${MODELS:-}" ]] && IFS=',' read -ra configs <<<"$MODELS"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
records=${RECORDS:-$tmp/records.tsv}
: >"$records"
detail=${DETAIL:-auto}
[[ "$detail" == auto ]] && detail=$([[ "$device" == cuda ]] && echo 1 || echo 0)
export CT_GRAPHS=$graphs CT_ENGINE_GRAPHS=$engine_graphs CT_COMPILE=$compile_modes
[[ "${PY_ARGS:-}" == *"--tf32 0"* ]] && export CT_TF32=0
table() { $py bench/compare_table.py "$@"; }
standard() { [[ "$1" == resnet50 || "$1" == vit_b_16 ]]; }
in_list() { local x; for x in $2; do [[ "$x" == "$1" || "$x" == all ]] && return 0; done; return 1; }

[[ -x "$cli" ]] || { echo "error: $cli not found or not executable (build it first)" >&2; exit 2; }
engine_sets=()
for kv in ${ENGINE_SET:-}; do engine_sets+=(--set "$kv"); done
read -ra py_args <<<"${PY_ARGS:-}"
preset_engine_sets=() preset_py_args=()
if [[ "${DATA:-fashion-mnist}" == synthetic ]]; then
  preset_engine_sets+=(--set data.dataset=synthetic --set data.synthetic.samples=60000
    --set 'data.synthetic.shape=[1,28,28]')
  preset_py_args+=(--data synthetic)
fi

json_field() { $py -c "import json,sys
try: print(json.load(open(sys.argv[1]))[sys.argv[2]])
except Exception: print('')" "$1" "$2"; }
ratio() { $py -c "import sys
a,b=sys.argv[1],sys.argv[2]
print('%.2fx' % (float(a)/float(b)) if a and b and float(b) > 0 else '-')" "$1" "$2"; }
fmt() { [[ -n "$1" ]] && printf "%.1f" "$1" || printf -- "-"; }
# record RUNNER SAMPLES_PER_SEC STEP_MS PEAK_BYTES FLOPS GPU COMPILE_S PARAMS: keeps the faster of this cell's
# runs of RUNNER (the best of the rounds) in the records.
record() {
  [[ -n "$2" ]] || return 0
  local old
  local cell=(-v m="$model" -v b="$batch" -v p="$prec" -v r="$1")
  old=$(awk -F'\t' "${cell[@]}" '$1 == m && $2 == b && $3 == p && $4 == r {print $5}' "$records")
  if [[ -z "$old" ]] ||
    $py -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)" "$2" "$old"; then
    awk -F'\t' "${cell[@]}" '!($1 == m && $2 == b && $3 == p && $4 == r)' "$records" >"$tmp/r.tsv"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$model" "$batch" "$prec" "$@" >>"$tmp/r.tsv"
    cp "$tmp/r.tsv" "$records"
  fi
}
# The Python process's line for MODE: "samples_per_sec step_ms peak_bytes flops_per_sample_fwd compile_s
# parameters gpu" (empty where the mode failed; its error goes to the notes).
py_mode() { $py -c "import json,sys
for l in open(sys.argv[1]):
    try: d=json.loads(l)
    except ValueError: continue
    if d.get('mode') != sys.argv[2]: continue
    if 'error' in d: print('ERROR', d['error']); break
    print(d['samples_per_sec'], d['step_ms'], d['peak_bytes'], d['flops_per_sample_fwd'], d['compile_s'],
          d['parameters'], d['gpu'].replace(' ', '_') or '-')" "$1" "$2"; }
# past_deadline WHAT: true (and a note) once DEADLINE has passed.
past_deadline() {
  [[ -n "${DEADLINE:-}" ]] && (($(date +%s) >= DEADLINE)) || return 1
  notes+=("cut (DEADLINE passed): $1")
  return 0
}
# engine RUNNER [--set ...]: one engine run of this cell, recorded; a refusal is a note.
engine() {
  local runner=$1 rc
  shift
  past_deadline "$model/$batch/$prec" && return 2
  "$cli" bench --json --steps "$steps" --warmup "$warmup" "${model_sets[@]}" --set train.batch_size="$batch" \
    --set data.augment=false --set train.threads="$threads" --set optimizer.name=adamw \
    --set train.devices="$device" --set train.amp="$amp" "${engine_sets[@]}" "$@" >"$tmp/e.json" 2>"$tmp/e.err"
  rc=$?
  if [[ $rc -ne 0 ]]; then
    engine_note+="engine $model/$prec ($runner): exit $rc: $( (grep -m1 -E '^ *(train|model|data)\.' "$tmp/e.err" ||
      grep -m1 -i error "$tmp/e.err") | sed 's/^ *//' | cut -c1-160); "
    return 1
  fi
  e_params=$(sed -n 's/.*Model: \([0-9]*\) parameters.*/\1/p' "$tmp/e.err" | head -1)
  # What the engine captured in its CUDA graph, and what not (its log's line), once per model and wording.
  if [[ "$runner" == engine+graphs ]] && grep -q 'cuda_graphs' "$tmp/e.err"; then
    notes+=("engine+graphs ($model): $(grep -m1 'cuda_graphs' "$tmp/e.err" | sed 's/^ *//' | cut -c1-200)")
  fi
  e_peak=$(json_field "$tmp/e.json" cuda_peak_bytes)
  record "$runner" "$(json_field "$tmp/e.json" samples_per_sec)" "$(json_field "$tmp/e.json" step_ms)" \
    "$e_peak" "" "" "" "$e_params"
}
# python MODES: one Python process running MODES (comma-separated) of this cell one after another, recorded.
python_modes() {
  local mode fields limit=${PY_TIMEOUT:-}
  local what="$model/$batch/$prec"
  [[ "$1" == max-autotune ]] && what+=" max-autotune"
  past_deadline "$what" && return 1
  if [[ -n "${DEADLINE:-}" ]] && ((DEADLINE - $(date +%s) < ${limit:-1000000000})); then
    limit=$((DEADLINE - $(date +%s)))
  fi
  ${limit:+timeout -k 10 "$limit"} $py bench/python_reference.py --model "$model" --batch "$batch" \
    --steps "$steps" --warmup "$warmup" --threads "$threads" --device "$device" --amp "$amp" --modes "$1" \
    "${model_py_args[@]}" "${py_args[@]}" >"$tmp/p.json" 2>"$tmp/p.err"
  local rc=$?
  for mode in ${1//,/ }; do
    read -ra fields <<<"$(py_mode "$tmp/p.json" "$mode")"
    if [[ "${fields[0]:-}" == ERROR ]]; then
      notes+=("python $model/$prec $mode failed: ${fields[*]:1}")
    elif [[ ${#fields[@]} -lt 7 ]]; then
      if ((rc == 124)); then
        notes+=("python $model/$prec $mode: stopped at its time limit ($limit s) before its figure")
      else
        notes+=("python $model/$prec $mode: no figure (exit $rc): $(grep -v -E '^W[0-9]|Warning|warn' "$tmp/p.err" | tail -1)")
      fi
    else
      local runner=${mode/eager/python}
      runner=${runner/#graphs/python+graphs}
      local gpu=${fields[6]//_/ }
      record "$runner" "${fields[0]}" "${fields[1]}" "${fields[2]}" "${fields[3]}" "${gpu#-}" "${fields[4]}" \
        "${fields[5]}"
      p_params=${fields[5]}
      p_definition=$(grep -m1 -o '"definition": "[^"]*"' "$tmp/p.json" | cut -d'"' -f4)
    fi
  done
}

# model_args: the engine's and Python's arguments for $model.
model_args() {
  steps=$preset_steps
  if standard "$model"; then
    steps=${STANDARD_STEPS:-$preset_steps}
    model_sets=("bench/models/$model.json" --set data.synthetic.samples=$((batch * 4))
      --set "data.synthetic.shape=[3,$size,$size]")
    model_py_args=(--data synthetic --shape "3,$size,$size" --classes 1000 --limit $((batch * 4)))
  else
    model_sets=(--set model.preset="$model" "${preset_engine_sets[@]}")
    model_py_args=("${preset_py_args[@]}")
  fi
}

table header
notes=()
autotune_cells=()  # max-autotune compiles for minutes: those cells run after every other one
for cfg in "${configs[@]}"; do
  read -r model batch <<<"$cfg"
  model_args
  for prec in $precisions; do
    amp=$([[ "$prec" == fp32 ]] && echo off || echo "$prec")
    modes=eager
    [[ "$graphs" == 1 && "$prec" != fp16 && "$device" == cuda ]] && modes+=,graphs
    if [[ -z "$compile_on" ]] || in_list "$model" "$compile_on"; then
      in_list default "$compile_modes" && in_list "$prec" "$compile_precisions" && modes+=,compile
      in_list max-autotune "$compile_modes" && in_list "$prec" "$autotune_precisions" &&
        autotune_cells+=("$model $batch $prec")
    fi
    engine_note="" e_params="" p_params="" p_definition=""
    engine_ran=0 graphs_ran=$engine_graphs
    for ((r = 0; r < rounds; r++)); do
      # Without the engine (refused), Python still runs once so the row has its figure.
      ((r > 0 && engine_ran == 0)) && break
      engine engine && engine_ran=1
      if [[ "$graphs_ran" == 1 ]] && ! engine engine+graphs --set train.cuda_graphs=on; then
        graphs_ran=0
        # A CLI without the key (exit 2, bad input) refuses it in every cell: asked once.
        grep -q 'unknown key "cuda_graphs"' "$tmp/e.err" && engine_graphs=0
      fi
      python_modes "$modes"
    done
    if [[ -n "$e_params" && -n "$p_params" ]]; then
      if [[ "$e_params" != "$p_params" ]]; then
        notes+=("PARAMETER COUNTS DIFFER for $model: engine $e_params, python $p_params ($p_definition)")
      elif standard "$model"; then
        notes+=("$model: engine $e_params parameters, Python ($p_definition) the same")
      fi
    fi
    [[ -n "$engine_note" ]] && notes+=("$engine_note")
    table row "$records" "$model" "$batch" "$prec"
    if [[ "${REFERENCE_KERNELS:-0}" == 1 && "$prec" == bf16 && "$device" == cpu ]]; then
      r_vals=()
      for ((r = 0; r < rounds; r++)); do
        if $py bench/python_reference.py --model "$model" --batch "$batch" --steps "$steps" --warmup "$warmup" \
          --threads "$threads" --device cpu --amp bf16 --mkldnn 0 "${model_py_args[@]}" "${py_args[@]}" \
          >"$tmp/r.json" 2>/dev/null; then
          r_vals+=("$(json_field "$tmp/r.json" samples_per_sec)")
        fi
      done
      ref=$($py -c "import sys; v=[float(x) for x in sys.argv[1:] if x]; print(max(v) if v else '')" "${r_vals[@]:-}")
      p32=$(awk -F'\t' -v m="$model" -v b="$batch" '$1 == m && $2 == b && $3 == "fp32" && $4 == "python" {print $5}' \
        "$records")
      ref_note="$model/$batch bf16 on LibTorch's reference loops (oneDNN off: what a CPU without AVX-512 runs):"
      notes+=("$ref_note python $(fmt "$ref") samples/s, $(ratio "$ref" "$p32") its fp32")
    fi
  done
done
if ((${#autotune_cells[@]})); then
  for cell in "${autotune_cells[@]}"; do
    read -r model batch prec <<<"$cell"
    amp=$([[ "$prec" == fp32 ]] && echo off || echo "$prec")
    model_args
    for ((r = 0; r < rounds; r++)); do python_modes max-autotune; done
  done
  echo
  echo "With max-autotune (its cells ran last):"
  table summary "$records"
fi
if [[ "$detail" == 1 ]]; then
  echo
  table detail "$records"
fi
echo
# The CPU kind decides bf16's cost (workbench/system_info.h: cpuBf16Cost): a table is a row of its CPU kind.
"$cli" info 2>/dev/null | grep -E '^(CPU|bf16 on this CPU)' || true
echo "device=$device, threads=$threads, steps=$preset_steps${STANDARD_STEPS:+ (standard models $STANDARD_STEPS)}" \
  "(+$warmup warm-up), best of $rounds alternating rounds," \
  "Python OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset} (the engine: PASSIVE unless set), $(date -u +%F)," \
  "torch $($py -c 'import torch; print(torch.__version__)' 2>/dev/null)"
# Each note once (rounds repeat them), in the order first given.
for n in "${notes[@]}"; do echo "note: $n"; done | awk '!seen[$0]++'
