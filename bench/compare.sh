#!/usr/bin/env bash
# Throughput of the engine (`workbench-cli bench`) against the same model, data, batch, optimizer, threads,
# BLAS, precision and device switches in Python torch (bench/python_reference.py), side by side in one run,
# printed as one table. Each engine/Python pair runs alternately `rounds` times; the best of each is reported
# (the machine's noise only ever slows a run down). The parameter counts of both sides are compared.
#
# usage: bench/compare.sh [build/cli/workbench-cli] [rounds]
# environment:
#   MODELS      "model batch" pairs, comma-separated      (default: mlp 64, mlp 256, cnn 64, cnn 128, resnet 128, vit 128)
#   PRECISIONS  space-separated: fp32 bf16 fp16            (default: "fp32 bf16"; add fp16 on CUDA)
#   DEVICE      cpu | cuda                                 (default: cpu)
#   STEPS       timed steps per run (+10 warm-up)          (default: 60)
#   THREADS     intra-op (and OpenBLAS) threads            (default: nproc)
#   GRAPHS=1    add a column: Python with the whole step in one CUDA graph (fp32/bf16 on CUDA)
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
configs=("mlp 64" "mlp 256" "cnn 64" "cnn 128" "resnet 128" "vit 128")
[[ -n "${MODELS:-}" ]] && IFS=',' read -ra configs <<<"$MODELS"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[[ -x "$cli" ]] || { echo "error: $cli not found or not executable (build it first)" >&2; exit 2; }
engine_sets=()
for kv in ${ENGINE_SET:-}; do engine_sets+=(--set "$kv"); done
read -ra py_args <<<"${PY_ARGS:-}"
if [[ "${DATA:-fashion-mnist}" == synthetic ]]; then
  engine_sets+=(--set data.dataset=synthetic --set data.synthetic.samples=60000 --set 'data.synthetic.shape=[1,28,28]')
  py_args+=(--data synthetic)
fi

json_field() { $py -c "import json,sys
try: print(json.load(open(sys.argv[1]))[sys.argv[2]])
except Exception: print('')" "$1" "$2"; }
best() { $py -c "import sys; v=[float(x) for x in sys.argv[1:] if x]; print(max(v) if v else '')" "$@"; }
ratio() { $py -c "import sys
a,b=sys.argv[1],sys.argv[2]
print('%.2fx' % (float(a)/float(b)) if a and b and float(b) > 0 else '-')" "$1" "$2"; }
fmt() { [[ -n "$1" ]] && printf "%.1f" "$1" || printf -- "-"; }

declare -A fp32_engine fp32_python
header=$(printf "| %-6s | %5s | %-9s | %12s | %12s | %14s | %13s | %13s |" model batch precision "engine [s/s]" \
  "python [s/s]" "engine/python" "engine vs fp32" "python vs fp32")
[[ "$graphs" == 1 ]] && header+=$(printf " %16s | %15s |" "python+graphs" "engine/graphs")
echo "$header"
echo "$header" | sed 's/[^|]/-/g'
notes=()
for cfg in "${configs[@]}"; do
  read -r model batch <<<"$cfg"
  for prec in $precisions; do
    amp=$([[ "$prec" == fp32 ]] && echo off || echo "$prec")
    e_vals=() p_vals=() g_vals=()
    engine_note=""
    for ((r = 0; r < rounds; r++)); do
      "$cli" bench --json --steps "$steps" --warmup 10 --set model.preset="$model" --set train.batch_size="$batch" \
        --set data.augment=false --set train.threads="$threads" --set optimizer.name=adamw \
        --set train.devices="$device" --set train.amp="$amp" "${engine_sets[@]}" >"$tmp/e.json" 2>"$tmp/e.err"
      rc=$?
      if [[ $rc -ne 0 ]]; then
        engine_note="engine $model/$prec: exit $rc: $(grep -m1 -i -E 'train\.amp|error' "$tmp/e.err" | sed 's/^ *//')"
        break
      fi
      e_vals+=("$(json_field "$tmp/e.json" samples_per_sec)")
      e_params=$(sed -n 's/.*Model: \([0-9]*\) parameters.*/\1/p' "$tmp/e.err" | head -1)
      if $py bench/python_reference.py --model "$model" --batch "$batch" --steps "$steps" --warmup 10 \
        --threads "$threads" --device "$device" --amp "$amp" "${py_args[@]}" >"$tmp/p.json" 2>"$tmp/p.err"; then
        p_vals+=("$(json_field "$tmp/p.json" samples_per_sec)")
        p_params=$(json_field "$tmp/p.json" parameters)
        if [[ -n "$e_params" && "$e_params" != "$p_params" ]]; then
          notes+=("PARAMETER COUNTS DIFFER for $model: engine $e_params, python $p_params")
        fi
      else
        notes+=("python $model/$prec failed: $(tail -1 "$tmp/p.err")")
      fi
      if [[ "$graphs" == 1 && "$prec" != fp16 ]] &&
        $py bench/python_reference.py --model "$model" --batch "$batch" --steps "$steps" --warmup 10 \
          --threads "$threads" --device "$device" --amp "$amp" --cuda-graphs "${py_args[@]}" >"$tmp/g.json" 2>/dev/null; then
        g_vals+=("$(json_field "$tmp/g.json" samples_per_sec)")
      fi
    done
    # Without the engine (refused), Python still runs once so the row has its figure.
    if [[ ${#p_vals[@]} -eq 0 && -z "${e_vals[*]:-}" ]] &&
      $py bench/python_reference.py --model "$model" --batch "$batch" --steps "$steps" --warmup 10 \
        --threads "$threads" --device "$device" --amp "$amp" "${py_args[@]}" >"$tmp/p.json" 2>"$tmp/p.err"; then
      p_vals+=("$(json_field "$tmp/p.json" samples_per_sec)")
    fi
    [[ -n "$engine_note" ]] && notes+=("$engine_note")
    e=$(best "${e_vals[@]:-}")
    p=$(best "${p_vals[@]:-}")
    key="$model/$batch"
    if [[ "$prec" == fp32 ]]; then fp32_engine[$key]=$e; fp32_python[$key]=$p; fi
    row=$(printf "| %-6s | %5s | %-9s | %12s | %12s | %14s | %13s | %13s |" "$model" "$batch" "$prec" "$(fmt "$e")" \
      "$(fmt "$p")" "$(ratio "$e" "$p")" "$(ratio "$e" "${fp32_engine[$key]:-}")" "$(ratio "$p" "${fp32_python[$key]:-}")")
    if [[ "$graphs" == 1 ]]; then
      g=$(best "${g_vals[@]:-}")
      row+=$(printf " %16s | %15s |" "$(fmt "$g")" "$(ratio "$e" "$g")")
    fi
    echo "$row"
    if [[ "${REFERENCE_KERNELS:-0}" == 1 && "$prec" == bf16 && "$device" == cpu ]]; then
      r_vals=()
      for ((r = 0; r < rounds; r++)); do
        if $py bench/python_reference.py --model "$model" --batch "$batch" --steps "$steps" --warmup 10 \
          --threads "$threads" --device cpu --amp bf16 --mkldnn 0 "${py_args[@]}" >"$tmp/r.json" 2>/dev/null; then
          r_vals+=("$(json_field "$tmp/r.json" samples_per_sec)")
        fi
      done
      ref=$(best "${r_vals[@]:-}")
      notes+=("$model/$batch bf16 on LibTorch's reference loops (oneDNN off: what a CPU without AVX-512 runs): python $(fmt "$ref") samples/s, $(ratio "$ref" "${fp32_python[$key]:-}") its fp32")
    fi
  done
done
echo
# The CPU kind decides bf16's cost (workbench/system_info.h: cpuBf16Cost): a table is a row of its CPU kind.
"$cli" info 2>/dev/null | grep -E '^(CPU|bf16 on this CPU)' || true
echo "device=$device, threads=$threads, steps=$steps (+10 warm-up), best of $rounds alternating rounds," \
  "Python OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset} (the engine: PASSIVE unless set), $(date -u +%F)," \
  "torch $($py -c 'import torch; print(torch.__version__)' 2>/dev/null)"
for n in "${notes[@]}"; do echo "note: $n"; done
