#!/usr/bin/env bash
# The GPU machine's check, in one go: build against pip torch's LibTorch (CUDA), run the GPU tests, then the
# benchmark table on CUDA (the four presets and ResNet-50 / ViT-B/16 at 224x224, batch 128; fp32 / bf16 / fp16;
# the engine eager and with train.cuda_graphs=on against Python eager, with the step in one CUDA graph and through
# torch.compile), and (SWITCHES=1) each fast-path switch's effect. Results go to $OUT/gpu-results.txt (the device
# tool brings $OUT back), logs and the table's cells (bench-cells.tsv) beside it.
#
# The machine (H200, PyTorch 2.11 cu130 pip wheel, CMake, ninja, nvcc; no Qt, no network) may lack the C++
# packages the build needs (nlohmann-json, CLI11, GoogleTest, SQLite3 and zlib headers). Fetch them here first with
# scripts/fetch-gpu-deps.sh, which puts Debian's .deb files in .deps/ (ignored by git; carry ".deps").
#
# Or, faster: scripts/gpu-pack.sh here puts the pip build's stripped workbench-cli and test_gpu, libsqlite3 and
# Fashion-MNIST into .gpu/; carry ".gpu" and run `BIN=.gpu scripts/gpu-check.sh`: no build there, the binaries
# load the machine's own torch libraries (the same 2.11.0+cu130 wheel they were linked against).
#
# usage: scripts/gpu-check.sh [all|build|test|e2e|nvml|profile|bench|shard|pipeline|issue53|quick]  (default all;
#        quick: test_gpu and issue 53's graph checks only, for a second, shorter call)
# environment: OUT (default ./gpu-out), JOBS (default nproc), STEPS (default 40; the standard models
#              STANDARD_STEPS, default 10), WARMUP (default 5), ROUNDS (default 1), MODELS (default
#              "resnet50 128,vit_b_16 128,mlp 64,cnn 256,resnet 256,vit 256": the order is the priority when the
#              budget runs out), COMPILE_PRECISIONS / AUTOTUNE_PRECISIONS (default "bf16": torch.compile's default
#              mode and max-autotune, standard models only; COMPILE="max-autotune" or "" to run fewer),
#              BENCH_BUDGET (seconds the benchmark stage may take, default 450: runs that would start later are
#              cut and named), SWITCHES=1 to add the switch table
#              (off: it does not fit the machine's minutes beside the benchmark), BIN (a folder made by
#              scripts/gpu-pack.sh), BUDGET (seconds; later stages are cut short past it); BENCH_DEVICE=cpu and
#              PRECISIONS="fp32 bf16" SIZE=64 try the benchmark stage's flow on a machine without a GPU
#              (and the nvml stage's, with NVML_MAX_STEPS=5)
set -uo pipefail
cd "$(dirname "$0")/.."
stage=${1:-all}
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
results=$OUT/gpu-results.txt
jobs=${JOBS:-$(nproc)}
py=${PY:-python3}
say() { echo "$*" | tee -a "$results"; }
section() { say ""; say "## $*"; }
started=$(date +%s)
elapsed() { echo "$(($(date +%s) - started)) s"; }

if [[ "$stage" == all || "$stage" == build ]]; then
  : >"$results"
fi
section "machine ($(date -u '+%F %T UTC'))"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | tee -a "$results"
torch_info=$($py -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, "cudnn",
torch.backends.cudnn.version(), "gpu", torch.cuda.is_available())' 2>&1)
say "python torch: $torch_info"
torch_prefix=$($py -c 'import torch; print(torch.utils.cmake_prefix_path)')
budget=${BUDGET:-100000}
over_budget() { (($(date +%s) - started > budget)); }
cli=${CLI:-build-gpu/cli/workbench-cli}  # CLI: another build's, e.g. to try the stages' flow on a machine without a GPU
test_gpu=build-gpu/tests/test_gpu
if [[ -n "${BIN:-}" ]]; then
  # Carried binaries: the machine's torch libraries (and CUDA runtime from its nvidia wheels) on the search path.
  cli=$BIN/workbench-cli
  test_gpu=$BIN/test_gpu
  torch_lib=$($py -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
  cudart=$(find "$(dirname "$(dirname "$torch_lib")")/nvidia" /usr/local/cuda/lib64 -name 'libcudart.so.13*' 2>/dev/null | head -1)
  export LD_LIBRARY_PATH=$torch_lib:${cudart:+$(dirname "$cudart"):}$BIN/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  say "carried binaries from $BIN (commit $(cat "$BIN/commit" 2>/dev/null)); torch libraries: $torch_lib; cudart: ${cudart:-none found}"
  if [[ -d "$BIN/fashion-mnist" && ! -d /usr/share/datasets/fashion-mnist ]]; then
    mkdir -p /usr/share/datasets && cp -r "$BIN/fashion-mnist" /usr/share/datasets/
  fi
  [[ "$stage" == all ]] && stage=run
fi

# Debian packages carried in .deps/ (headers, static GoogleTest): unpacked into a private prefix.
deps_prefix=/tmp/wb-deps
if compgen -G ".deps/*.deb" >/dev/null; then
  mkdir -p "$deps_prefix"
  for deb in .deps/*.deb; do dpkg -x "$deb" "$deps_prefix"; done
  say "unpacked $(ls .deps/*.deb | wc -l) packages from .deps/ into $deps_prefix"
fi
prefix_path="$torch_prefix;$deps_prefix/usr;$deps_prefix/usr/lib/x86_64-linux-gnu/cmake"
# Shared libraries the machine has itself (libsqlite3.so.0, libz.so.1) are used from the system: the carried
# copies go and the carried link-time names point at the system's. Only missing ones come from the prefix.
libdir=$deps_prefix/usr/lib/x86_64-linux-gnu
for soname in libsqlite3.so.0 libz.so.1; do
  system_lib=$(ldconfig -p | awk -v n="$soname" '$1 == n && /x86-64/ {print $NF; exit}')
  if [[ -n "$system_lib" && -d "$libdir" ]]; then
    rm -f "$libdir/$soname"*
    ln -sf "$system_lib" "$libdir/${soname%.*}"
  elif [[ -e "$libdir/$soname" ]]; then
    export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$libdir
  fi
done

if [[ "$stage" == all || "$stage" == build ]]; then
  section "build (build-gpu, -DWORKBENCH_GUI=OFF, LibTorch from $torch_prefix)"
  # The same configuration CI compiles (WORKBENCH_LIBTORCH=pip scripts/build.sh against the same torch 2.11.0,
  # cu130): what is compiled here has compiled there, so the machine's minutes go to running.
  if ! cmake -S . -B build-gpu -G Ninja -DWORKBENCH_GUI=OFF -DCMAKE_BUILD_TYPE=Release -DWORKBENCH_REQUIRE_CUDA=ON \
    -DCMAKE_PREFIX_PATH="$prefix_path" >"$OUT/configure.log" 2>&1; then
    say "CONFIGURE FAILED (last lines of configure.log):"
    tail -25 "$OUT/configure.log" | tee -a "$results"
    say "If a package is missing (nlohmann_json, CLI11, GTest, SQLite3, ZLIB): run scripts/fetch-gpu-deps.sh on a"
    say "machine with network and carry .deps."
    exit 1
  fi
  grep -E "^-- (LibTorch|Data parallel|ONNX export)" "$OUT/configure.log" | tee -a "$results"
  if ! nice cmake --build build-gpu -j "$jobs" --target workbench-cli test_gpu >"$OUT/build.log" 2>&1; then
    say "BUILD FAILED (first errors of build.log):"
    grep -m 20 -E "error|Error" "$OUT/build.log" | tee -a "$results"
    exit 1
  fi
  say "built workbench-cli and test_gpu in $(elapsed); warnings: $(grep -c 'warning:' "$OUT/build.log")"
fi

if [[ "$stage" == all || "$stage" == run || "$stage" == quick || "$stage" == test ]]; then
  section "workbench-cli info (this build's CUDA, NCCL, Gloo, Kineto; NVML and the GPUs it sees)"
  timeout 60 "$cli" info 2>&1 | tee -a "$results"
  section "test_gpu (ctest -L gpu's binary)"
  WB_FUSED_ADAMW_DUMP="$OUT/fused-adamw.pt" timeout 300 "$test_gpu" >"$OUT/test-gpu.log" 2>&1
  say "test_gpu exit $? ($(elapsed))"
  grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|PASSED|FAILED TEST|Failure|Expected|Which is|actual|Skipped|skip" "$OUT/test-gpu.log" |
    head -60 | tee -a "$results"
  # Issue 53: test_gpu's five fused AdamW steps on CUDA (one with an inf) against this machine's own
  # torch.optim.AdamW(fused=True) with GradScaler's grad_scale and found_inf, bit for bit; step counts 4.
  if [[ -s "$OUT/fused-adamw.pt" ]]; then
    $py tests/python/fused_adamw_replay.py "$OUT/fused-adamw.pt" cuda 2>&1 | tail -3 | sed 's/^/  /' | tee -a "$results"
  else
    say "  <-- test_gpu wrote no fused AdamW steps ($OUT/fused-adamw.pt): no fused kernel, or it failed first"
  fi
fi

# Issue 53's findings, in the first minutes: a transformer trained in fp16 with clipping and train.cuda_graphs=on,
# dropout in its blocks and data whose epochs end in a short batch (1000 samples at batch 64: 15 full + 40),
# every step logged. The graph must be captured on a full batch (the capture line says "batch [64, ...]"),
# no window's grad_norm may be inf or missing beside an fp16 overflow (the clip part counts finite norms only),
# and with dropout 0 the replayed steps' losses must equal the eager run's. `quick` runs only this and test_gpu
# (a second, shorter call).
if [[ "$stage" == all || "$stage" == run || "$stage" == quick || "$stage" == issue53 ]] && ! over_budget; then
  section "issue 53: fp16 + clip_grad_norm + cuda_graphs=on, a transformer with dropout, a short last batch"
  graph_exp() {  # name, dropout, cuda_graphs -> experiment file
    $py - "$@" "$OUT" >"$OUT/graph-$1.json" <<'PY'
import json, sys
name, dropout, graphs, out = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
blocks = [{"type": "encoder_block", "heads": 4, "mlp_ratio": 2, "dropout": dropout} for _ in range(2)]
layers = ([{"type": "patch_embed", "patch_size": 7, "dim": 64}, {"type": "position_embedding", "cls_token": True}]
          + blocks + [{"type": "layernorm"}, {"type": "token_pool", "mode": "cls"},
                      {"type": "linear", "out_features": 10}])
print(json.dumps({"name": "graph-" + name, "seed": 5, "model": {"layers": layers},
                  "data": {"dataset": "synthetic", "val_fraction": 0, "augment": False,
                           "synthetic": {"samples": 1000, "classes": 10, "shape": [1, 28, 28]}},
                  "optimizer": {"name": "adamw", "lr": 0.001},
                  "train": {"batch_size": 64, "epochs": 2, "devices": ["cuda:0"], "amp": "fp16",
                            "clip_grad_norm": 1.0, "cuda_graphs": graphs, "log_every_steps": 1,
                            "checkpoint_every_minutes": 0},
                  "output": {"runs_dir": out + "/graph-runs"}}))
PY
    echo "$OUT/graph-$1.json"
  }
  graph_run() {  # name, dropout, cuda_graphs
    timeout 180 "$cli" train "$(graph_exp "$@")" --json --quiet >"$OUT/graph-$1.out" 2>"$OUT/graph-$1.log" ||
      say "graph run $1 FAILED: $(tail -3 "$OUT/graph-$1.log")"
    $py - "$OUT"/graph-runs/*graph-"$1"*/ <<'PY' 2>&1 | tee -a "$results"
import json, math, sys
run = sys.argv[1]
lines = [json.loads(l) for l in open(run + "metrics.jsonl")]
steps = [l for l in lines if l.get("event") == "step"]
logs = [l.get("text", "") for l in lines if l.get("event") == "log"]
graph = [t for t in logs if "cuda_graphs" in t or "CUDA graph" in t]
# With a window of one step, a skipped step has no finite norm: no grad_norm then is right; an inf (null) is not.
finite = lambda v: v is not None and math.isfinite(v)
bad = [s["step"] for s in steps if ("grad_norm" in s and not finite(s["grad_norm"]))
       or ("grad_norm" not in s and s.get("nonfinite_steps_in_window", 0) == 0)]
skipped = sum(s.get("nonfinite_steps_in_window", 0) for s in steps)
print(f"  {run.rstrip('/').split('/')[-1]}: {len(steps)} steps, {skipped} skipped for overflow, windows without a"
      f" finite grad_norm at steps {bad[:10] or 'none'}" + ("  <-- INF/MISSING NORM" if bad else ""))
for t in graph: print("  log: " + t[:300])
json.dump([s["loss"] for s in steps], open(run + "losses.json", "w"))
PY
  }
  graph_run dropout 0.1 on
  grep -h "CUDA graph captured" "$OUT"/graph-runs/*graph-dropout*/train.log 2>/dev/null | head -2 | tee -a "$results"
  grep -qs "CUDA graph captured at step [0-9]* ([^)]*, batch \[64," "$OUT"/graph-runs/*graph-dropout*/train.log ||
    say "  <-- the graph was not captured on a full batch of 64"
  graph_run eager 0 off
  graph_run replay 0 on
  $py - "$OUT"/graph-runs/*graph-eager*/losses.json "$OUT"/graph-runs/*graph-replay*/losses.json <<'PY' 2>&1 | tee -a "$results"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
diff = max((abs(x - y) for x, y in zip(a, b)), default=float("nan"))
print(f"  dropout 0, eager against graph replays: {len(a)} / {len(b)} steps, largest loss difference {diff:.3g}"
      + ("" if len(a) == len(b) and diff < 1e-3 else "  <-- REPLAYS DIFFER FROM EAGER"))
PY
  say "issue 53 graph checks done ($(elapsed))"
fi

if [[ "$stage" == all || "$stage" == run || "$stage" == e2e ]]; then
  section "the CLI end to end on CUDA: train, interrupt + resume, eval, export; against the CPU and Python"
  runs=$OUT/runs
  exp=resources/examples/cnn.json
  cuda=(--set 'train.devices=["cuda:0"]' --set output.runs_dir="$runs")
  field() { $py -c "import json,sys; d=json.load(open(sys.argv[1])); print(d.get(sys.argv[2]))" "$1" "$2"; }
  timeout 240 "$cli" info >"$OUT/info.txt" 2>&1; grep -iE "cuda|nccl|device|libtorch" "$OUT/info.txt" | head -8 | tee -a "$results"
  timeout 240 "$cli" train $exp --set train.epochs=2 "${cuda[@]}" --json --quiet >"$OUT/cuda2.json" 2>"$OUT/cuda2.err"
  say "cnn 2 epochs on cuda:0: exit $?, $(tr -d '\n ' <"$OUT/cuda2.json" | head -c 400)"
  tail -3 "$OUT/cuda2.err" | tee -a "$results"
  timeout 240 "$cli" train $exp --set train.epochs=1 --set 'train.devices=["cuda:0"]' --set output.runs_dir="$runs" \
    --json --quiet >"$OUT/cuda1.json" 2>/dev/null
  timeout 300 "$cli" train $exp --set train.epochs=1 --set 'train.devices=["cpu"]' --set output.runs_dir="$runs" \
    --json --quiet >"$OUT/cpu1.json" 2>/dev/null
  say "cnn 1 epoch: cuda test acc $(field "$OUT/cuda1.json" test_accuracy) ($(field "$OUT/cuda1.json" samples_per_sec) samples/s)," \
    "cpu test acc $(field "$OUT/cpu1.json" test_accuracy) ($(field "$OUT/cpu1.json" samples_per_sec) samples/s)"
  # Interrupted on CUDA (SIGINT once the first epoch is under way), resumed on CUDA: the same steps as the
  # uninterrupted 2-epoch run, and its test accuracy beside that run's.
  cut_runs=$OUT/cut-runs
  "$cli" train $exp --set train.epochs=2 --set 'train.devices=["cuda:0"]' --set output.runs_dir="$cut_runs" \
    --json --quiet >"$OUT/cut.json" 2>"$OUT/cut.err" &
  pid=$!
  for _ in $(seq 600); do  # until 40 metrics lines (some 200 steps) are logged, at most a minute
    m=$(ls "$cut_runs"/*/metrics.jsonl 2>/dev/null | head -1)
    [[ -n "$m" && $(wc -l <"$m") -ge 40 ]] && break
    sleep 0.1
  done
  kill -INT $pid; wait $pid; cut_rc=$?
  cut_dir=$(ls -d "$cut_runs"/*/ | head -1)
  cut_steps=$(field "$cut_dir/summary.json" steps)
  timeout 240 "$cli" resume "$cut_dir" --json --quiet >"$OUT/resumed.json" 2>"$OUT/resumed.err"
  say "interrupted: exit $cut_rc at step $cut_steps; resumed: exit $?, status $(field "$OUT/resumed.json" status)," \
    "steps $(field "$OUT/resumed.json" steps) (uninterrupted $(field "$OUT/cuda2.json" steps)), test acc" \
    "$(field "$OUT/resumed.json" test_accuracy) (uninterrupted $(field "$OUT/cuda2.json" test_accuracy))"
  run2=$(field "$OUT/cuda2.json" run_dir)
  timeout 120 "$cli" eval "$run2" --json >"$OUT/eval.json" 2>"$OUT/eval.err"
  say "eval: exit $?, test acc $(field "$OUT/eval.json" test_accuracy)"
  for f in torchscript safetensors; do
    timeout 120 "$cli" export "$run2" --format $f --out "$OUT/cnn.$f" >/dev/null 2>"$OUT/export-$f.err"
    say "export $f: exit $?, $(stat -c %s "$OUT/cnn.$f" 2>/dev/null) bytes"
  done
  # The TorchScript export in Python's torch.jit on the GPU, normalized with the numbers its metadata carries.
  timeout 120 $py - "$OUT/cnn.torchscript" <<'PY' 2>&1 | tee -a "$results"
import gzip, json, sys
import numpy as np, torch
extra = {"metadata.json": ""}
m = torch.jit.load(sys.argv[1], _extra_files=extra, map_location="cuda")
meta = json.loads(extra["metadata.json"])
norm = json.loads(meta["normalization"]) if isinstance(meta.get("normalization"), str) else meta["normalization"]
d = "/usr/share/datasets/fashion-mnist/"
x = np.frombuffer(gzip.open(d + "t10k-images-idx3-ubyte.gz").read()[16:], np.uint8).reshape(-1, 1, 28, 28)
y = np.frombuffer(gzip.open(d + "t10k-labels-idx1-ubyte.gz").read()[8:], np.uint8)
t = torch.from_numpy(x.astype(np.float32) / 255.0)
t = ((t - torch.tensor(norm["mean"]).view(1, -1, 1, 1)) / torch.tensor(norm["std"]).view(1, -1, 1, 1)).cuda()
with torch.no_grad():
    out = torch.cat([m(b) for b in t.split(1000)])
print(f"torch.jit (Python, cuda) test acc {(out.argmax(1).cpu().numpy() == y).mean():.4f}")
PY
  say "e2e done ($(elapsed))"
fi

if [[ "$stage" == all || "$stage" == run || "$stage" == nvml ]] && ! over_budget; then
  # The engine's NVML sampler (every 1 s on a thread of its own): what metrics.jsonl's step lines say the GPU did
  # during the default CNN and during the benchmark's ResNet-50 at 224 (batch 128), and the advisor's words when
  # it was under half busy. BENCH_DEVICE=cpu runs the same flow on the CPU ("CPU run", no figures).
  section "GPU utilization from NVML during training (engine's sampler, 1 s; metrics.jsonl step lines)"
  nvml_device=${BENCH_DEVICE:-cuda}
  [[ "$nvml_device" == cpu ]] || nvml_device=cuda:0
  nvml_size=${SIZE:-224}
  nvml_runs=$OUT/nvml-runs
  nvml_run() {  # name, then the experiment and its --set arguments
    local name=$1
    shift
    timeout 300 "$cli" train "$@" --set "train.devices=[\"$nvml_device\"]" --set output.runs_dir="$nvml_runs/$name" \
      --json --quiet >"$OUT/nvml-$name.json" 2>"$OUT/nvml-$name.err"
    local rc=$?
    local metrics
    metrics=$(ls "$nvml_runs/$name"/*/metrics.jsonl 2>/dev/null | head -1)
    say "$name on $nvml_device: exit $rc"
    [[ -n "$metrics" ]] || { tail -3 "$OUT/nvml-$name.err" | tee -a "$results"; return; }
    $py - "$metrics" <<'PY' 2>&1 | tee -a "$results"
import json, sys
steps, advice, sampler = [], [], []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") == "step":
        steps.append(e)
    elif e.get("event") == "log" and e.get("text", "").startswith("The GPU was busy"):
        advice.append(e["text"])
    elif e.get("event") == "log" and e.get("text", "").startswith("GPU figures"):
        sampler.append(e["text"])
for text in sampler:
    print("  " + text)
gpus = [s.get("gpu", {}) for s in steps]
sampled = [g for g in gpus if "not_sampled" not in g]
if not sampled:
    print(f"  {len(steps)} windows, none sampled: {sorted({g.get('not_sampled', 'no gpu key') for g in gpus})}")
    sys.exit()
def stat(key, f=lambda v: v):
    v = [f(g[key]) for g in sampled if key in g]
    return f"{min(v):.0f}/{sum(v) / len(v):.0f}/{max(v):.0f}" if v else "n/a"
reasons = sorted({r for g in sampled for r in g.get("throttle_reasons", [])})
last = sampled[-1]
print(f"  {len(sampled)} of {len(steps)} windows sampled ({sum(g.get('samples', 0) for g in sampled)} NVML samples);"
      f" min/mean/max: utilization {stat('utilization_pct')} %, power {stat('power_w')} W of"
      f" {last.get('power_limit_w', 'n/a')} W, SM clock {stat('sm_clock_mhz')} MHz, temperature max"
      f" {max(g.get('temperature_c', -1) for g in sampled):.0f} C, memory used"
      f" {last.get('memory_used_bytes', 0) / 2**30:.1f} of {last.get('memory_total_bytes', 0) / 2**30:.1f} GiB;"
      f" throttle reasons: {', '.join(reasons) or 'none'}")
print(f"  samples/s (last window): {steps[-1].get('samples_per_sec', 0):.0f}, data wait"
      f" {100 * steps[-1].get('data_wait_fraction', 0):.0f} %")
for text in advice:
    print("  advisor: " + text)
PY
  }
  nvml_limit=()  # NVML_MAX_STEPS: fewer steps, for the CPU flow
  [[ -n "${NVML_MAX_STEPS:-}" ]] && nvml_limit=(--set train.max_steps="$NVML_MAX_STEPS")
  nvml_run cnn resources/examples/cnn.json --set train.epochs=1 "${nvml_limit[@]}"
  nvml_run resnet50 bench/models/resnet50.json "${nvml_limit[@]}" --set train.epochs=1 \
    --set data.synthetic.samples=$((128 * 30)) \
    --set "data.synthetic.shape=[3,$nvml_size,$nvml_size]" --set train.log_every_steps=5
  say "nvml done ($(elapsed))"
fi

if [[ "$stage" == all || "$stage" == run || "$stage" == profile ]] && ! over_budget; then
  # The profiler (issue 43): 20 steps of the default CNN recorded by Kineto on CUDA; the top of the table by self
  # CUDA time, and whether the report and the trace have CUDA kernels. BENCH_DEVICE=cpu runs the flow on the CPU.
  section "profile of 20 steps on CUDA (workbench-cli profile, Kineto; top of the table by self CUDA time)"
  profile_device=${BENCH_DEVICE:-cuda}
  [[ "$profile_device" == cpu ]] || profile_device=cuda:0
  timeout 300 "$cli" profile resources/examples/cnn.json --set "train.devices=[\"$profile_device\"]" \
    --set output.runs_dir="$OUT/profile-runs" --steps 20 --warmup 10 --sort self_cuda --rows 12 --quiet \
    >"$OUT/profile.txt" 2>"$OUT/profile.err"
  say "exit $?"
  head -22 "$OUT/profile.txt" | tee -a "$results"
  tail -3 "$OUT/profile.err" | tee -a "$results"
  profile_report=$(ls "$OUT"/profile-runs/*/profile/steps-11-30.json 2>/dev/null | head -1)
  if [[ -n "$profile_report" ]]; then
    $py - "$profile_report" <<'PY' 2>&1 | tee -a "$results"
import json, sys
r = json.load(open(sys.argv[1]))
rows = r["operators"]
cuda = sum(max(0, o["self_cuda_ms"]) for o in rows)
trace = json.load(open(r["trace_path"]))
kernels = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
print(f"  profiler {r['profiler']}, CUDA activities {r['cuda_activities']}, step {r['step_ms']:.2f} ms, phases "
      + ", ".join(f"{k} {v:.2f}" for k, v in r["phases"].items())
      + f"; self CUDA total {cuda:.2f} ms over {len(rows)} rows; {len(kernels)} kernel events in the trace"
      + ("" if cuda > 0 and kernels else "  <-- NO CUDA TIMES"))
PY
  fi
  say "profile done ($(elapsed))"
fi

if [[ "$stage" == all || "$stage" == run || "$stage" == bench ]] && ! over_budget; then
  data=fashion-mnist
  [[ -d /usr/share/datasets/fashion-mnist ]] || data=synthetic
  section "engine vs Python on CUDA: fp32 / bf16 / fp16; presets and ResNet-50 / ViT-B/16 (224x224, batch 128)"
  bench_budget=${BENCH_BUDGET:-450}
  compile_precisions=${COMPILE_PRECISIONS:-bf16} autotune_precisions=${AUTOTUNE_PRECISIONS:-bf16}
  say "data: $data for the presets, synthetic 3x224x224 (1000 classes) for resnet50 and vit_b_16 (torchvision's"
  say "definitions on the Python side, bench/models/*.json on ours); engine switches at their defaults"
  say "(cudnn_benchmark, tf32 on; channels_last off; data on the device). Runners: engine eager, engine with"
  say "train.cuda_graphs=on (its log's line on what it captured in the notes), Python eager, Python with the step in"
  say "one CUDA graph (not fp16), torch.compile default mode ($compile_precisions) and max-autotune"
  say "($autotune_precisions), standard models only: each compile takes a minute to several; max-autotune's cells"
  say "run last. Budget $bench_budget s: runs that would start later are cut (named in the notes); timed steps:"
  say "${STEPS:-40} presets, ${STANDARD_STEPS:-10} standard models."
  DEVICE=${BENCH_DEVICE:-cuda} DATA=$data PRECISIONS=${PRECISIONS:-"fp32 bf16 fp16"} THREADS=$jobs PY=$py \
    GRAPHS=1 ENGINE_GRAPHS=${ENGINE_GRAPHS:-1} STEPS=${STEPS:-40} STANDARD_STEPS=${STANDARD_STEPS:-10} \
    WARMUP=${WARMUP:-5} COMPILE=${COMPILE-"default max-autotune"} COMPILE_ON="resnet50 vit_b_16" \
    COMPILE_PRECISIONS="$compile_precisions" AUTOTUNE_PRECISIONS="$autotune_precisions" \
    DEADLINE=$(($(date +%s) + bench_budget)) \
    RECORDS="$OUT/bench-cells.tsv" MODELS=${MODELS:-"resnet50 128,vit_b_16 128,mlp 64,cnn 256,resnet 256,vit 256"} \
    bench/compare.sh "$cli" "${ROUNDS:-1}" 2>&1 | tee -a "$results"
  say "benchmark done ($(elapsed))"

  if [[ "${SWITCHES:-0}" == 1 ]] && ! over_budget; then
    section "each fast-path switch against its default (engine, cnn and resnet at batch 256)"
    for sw in "train.channels_last=true|--channels-last" "train.tf32=false|--tf32 0" \
      "train.cudnn_benchmark=false|--cudnn-benchmark 0" "train.data_on_device=off|--data-on-device off" \
      "train.data_on_device=off train.pinned_memory=false|--data-on-device off --pinned-memory 0"; do
      over_budget && { say "(budget spent: the remaining switches are not timed)"; break; }
      say "switch: ${sw%%|*}"
      DEVICE=cuda DATA=$data PRECISIONS="fp32 bf16" THREADS=$jobs STEPS=${STEPS:-40} PY=$py \
        MODELS="cnn 256,resnet 256" ENGINE_SET="${sw%%|*}" PY_ARGS="${sw##*|}" \
        bench/compare.sh "$cli" 1 2>&1 | tee -a "$results"
    done
  fi
fi
# Sharded training state (train.shard, issue 42): NCCL's reduce-scatter and all-gather between two GPUs. Each
# level trains the same small run; the weights must agree with none's (same averaged gradients, same AdamW).
# parameters (ZeRO stage 3) gathers each layer's weights by NCCL broadcasts inside forward and inside backward
# (from autograd's device thread) and averages each layer's gradients by an allreduce there: it needs two GPUs
# too, and says so (not run) on one.
if [[ "$stage" == all || "$stage" == shard ]] && ! over_budget; then
  section "sharded training state on NCCL: train.shard none / optimizer / gradients / parameters on cuda:0 + cuda:1"
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  if ((gpus < 2)); then
    say "this device has $gpus GPU: train.shard (none / optimizer / gradients / parameters) needs two or more (one NCCL rank each); not run"
  else
    for level in none optimizer gradients parameters; do
      "$cli" train --set model.preset=mlp --set 'train.devices=["cuda:0","cuda:1"]' --set train.shard=$level \
        --set optimizer.name=adamw --set train.clip_grad_norm=1 --set train.max_steps=40 --set train.epochs=100 \
        --set data.limit=10000 --set data.val_fraction=0 --set train.checkpoint_every_minutes=0 \
        --set output.runs_dir="$OUT/shard-runs" --set name="shard-$level" --json --quiet >"$OUT/shard-$level.json" \
        2>"$OUT/shard-$level.log" || say "train.shard=$level FAILED: $(tail -3 "$OUT/shard-$level.log")"
      say "train.shard=$level: $(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]));
print(s.get("status"), "steps", s.get("steps"), "test_accuracy", s.get("test_accuracy"))' "$OUT/shard-$level.json" 2>&1)"
    done
    say "(the four test accuracies should agree to about 0.001: the same training, only where the state lives differs)"
    # Issue 53 (2): NCCL's communication time, measured on the GPU (CUDA events around each collective), against
    # the profiler's NCCL kernels over the same kind of steps (rank 0, steps 21-25 profiled).
    "$cli" train --set model.preset=mlp --set 'train.devices=["cuda:0","cuda:1"]' --set optimizer.name=adamw \
      --set train.max_steps=40 --set train.epochs=100 --set data.limit=10000 --set data.val_fraction=0 \
      --set train.log_every_steps=5 --set train.checkpoint_every_minutes=0 --set output.runs_dir="$OUT/comm-runs" \
      --set name=comm --profile 20:5 --json --quiet >"$OUT/comm.json" 2>"$OUT/comm.log" ||
      say "the communication run FAILED: $(tail -3 "$OUT/comm.log")"
    $py - "$OUT"/comm-runs/*comm*/ <<'PY' 2>&1 | tee -a "$results"
import glob, json, statistics, sys
run = sys.argv[1]
steps = [json.loads(l) for l in open(run + "metrics.jsonl") if '"allreduce_ms"' in l]
ms = [s["allreduce_ms"] for s in steps if s.get("event") == "step"]
hidden = [s["allreduce_hidden_fraction"] for s in steps if "allreduce_hidden_fraction" in s]
traces = glob.glob(run + "profile/*.pt.trace.json")
kernel = float("nan")
if traces:
    events = json.load(open(traces[0])).get("traceEvents", [])
    nccl = [e for e in events if e.get("cat") == "kernel" and "nccl" in e.get("name", "").lower()]
    kernel = sum(e.get("dur", 0) for e in nccl) / 1000.0 / 5
print(f"  NCCL allreduce per step: {statistics.median(ms) if ms else float('nan'):.3f} ms by CUDA events "
      f"(median of {len(ms)} windows, hidden behind backward {statistics.median(hidden) if hidden else float('nan'):.0%}); "
      f"the profiler's NCCL kernels {kernel:.3f} ms per step" + ("" if ms else "  <-- NO allreduce_ms IN THE METRICS"))
PY
    # Checkpoints shard by shard on NCCL: each GPU rank writes its optimizer state into its own file, rank 0 the
    # main file last. Killed with -9 after its step-20 checkpoint and resumed, the gradients run must end where the
    # uninterrupted one above did (its test accuracy, to about 0.001).
    "$cli" train --set model.preset=mlp --set 'train.devices=["cuda:0","cuda:1"]' --set train.shard=gradients \
      --set optimizer.name=adamw --set train.clip_grad_norm=1 --set train.max_steps=40 --set train.epochs=100 \
      --set data.limit=10000 --set data.val_fraction=0 --set train.checkpoint_every_minutes=0 \
      --set train.checkpoint_every_steps=10 --set output.runs_dir="$OUT/shard-kill" --set name=shard-gradients \
      >"$OUT/shard-kill.out" 2>&1 &
    kill_pid=$!
    for _ in $(seq 1 1200); do grep -qs "at step 20:" "$OUT"/shard-kill/*/train.log && break; sleep 0.1; done
    kill -9 "$kill_pid" 2>/dev/null; wait "$kill_pid" 2>/dev/null
    kill_run=$(ls -d "$OUT"/shard-kill/*/ 2>/dev/null | head -1)
    if [[ -z "$kill_run" ]]; then
      say "sharded checkpoints: the run made no folder: $(tail -3 "$OUT/shard-kill.out")"
    else
      say "sharded checkpoints after kill -9: $(ls "$kill_run/checkpoints" | grep -c '\.wbshard$') shard file(s) beside" \
        "$(ls "$kill_run/checkpoints" | grep -c '\.wbckpt$') main file(s)"
      "$cli" resume "$kill_run" --json --quiet >"$OUT/shard-resumed.json" 2>"$OUT/shard-resumed.log" ||
        say "resume of the sharded run FAILED: $(tail -3 "$OUT/shard-resumed.log")"
      say "resumed $(grep -o 'Continuing at step [0-9]*' "$kill_run/train.log" | tail -1): $(python3 -c 'import json,sys
s=json.load(open(sys.argv[1])); print(s.get("status"), "steps", s.get("steps"), "test_accuracy", s.get("test_accuracy"))' \
        "$OUT/shard-resumed.json" 2>&1) (uninterrupted gradients above)"
    fi
  fi
fi
# Pipeline model parallelism (train.pipeline, issue 42): two stages on one GPU (each on a stream of its own), and
# on two GPUs where there are two (activations copied device to device), against the same run unsplit on cuda:0.
# A layer list without dropout or batch norm on synthetic data: the losses and test accuracies must agree to
# float32 rounding (the CPU tests check the weights to 2e-6); then the measured idle share per stage (host time,
# which on CUDA is the time to queue the work) from `workbench-cli bench`. Then train.clip_grad_norm across the
# stages (a clip that bites: one norm over every stage's gradients, measured per device and summed on cuda:0),
# against one device with the same clip, and each stage device's memory from the step metrics' devices.
if [[ "$stage" == all || "$stage" == run || "$stage" == pipeline ]] && ! over_budget; then
  section "pipeline: 2 stages on cuda:0, and on cuda:0 + cuda:1 where there are two; against one device"
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  pipe_exp() {  # name, pipeline JSON ("null": none) -> experiment file
    $py - "$1" "$2" "$OUT" >"$OUT/pipeline-$1.json" <<'PY'
import json, os, sys
name, pipeline, out = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
lin = lambda n: {"type": "linear", "out_features": n}
layers = [{"type": "flatten"}, lin(2048), {"type": "relu"}, lin(2048), {"type": "relu"}, lin(2048),
          {"type": "relu"}, lin(10)]
train = {"batch_size": 256, "epochs": 2, "devices": ["cuda:0"], "checkpoint_every_minutes": 0,
         "cuda_graphs": "off", "log_every_steps": 10}
if float(os.environ.get("PIPE_CLIP", "0")) > 0:
    train["clip_grad_norm"] = float(os.environ["PIPE_CLIP"])
if pipeline is not None:
    train["pipeline"] = pipeline
print(json.dumps({"name": "pipeline-" + name, "seed": 3, "model": {"layers": layers},
                  "data": {"dataset": "synthetic", "val_fraction": 0.1, "augment": False,
                           "synthetic": {"samples": 8192, "classes": 10, "shape": [1, 32, 32]}},
                  "optimizer": {"name": "sgd", "lr": 0.02, "momentum": 0.9, "weight_decay": 0},
                  "train": train, "output": {"runs_dir": out + "/pipeline-runs"}}))
PY
    echo "$OUT/pipeline-$1.json"
  }
  pipe_run() {  # name, pipeline JSON
    timeout 300 "$cli" train "$(pipe_exp "$1" "$2")" --json --quiet >"$OUT/pipeline-$1.out" 2>"$OUT/pipeline-$1.log" ||
      say "pipeline $1 FAILED: $(tail -3 "$OUT/pipeline-$1.log")"
    say "pipeline $1: $($py -c 'import json,sys; s=json.load(open(sys.argv[1]));
print(s.get("status"), "steps", s.get("steps"), "test_accuracy", s.get("test_accuracy"), "test_loss", s.get("test_loss"),
      "samples/s", s.get("samples_per_sec"))' "$OUT/pipeline-$1.out" 2>&1)"
    grep -h "pipeline idle per stage" "$OUT"/pipeline-runs/*pipeline-"$1"*/metrics.jsonl 2>/dev/null | tail -1 |
      $py -c 'import json,sys; [print("  " + json.loads(l).get("text", "")) for l in sys.stdin]' | tee -a "$results"
    # The last window's memory per stage device (DeviceMetrics with "stages"), and the clipped norm.
    $py -c 'import glob, json, sys
steps = [j for f in glob.glob(sys.argv[1]) for j in map(json.loads, open(f)) if j.get("event") == "step"]
last = steps[-1] if steps else {}
for d in last.get("devices", []):
    print("  memory", d.get("device"), "stages", d.get("stages"), "allocated MiB",
          round(d.get("cuda_allocated_bytes", -1) / 2**20, 1), "peak MiB", round(d.get("cuda_peak_bytes", -1) / 2**20, 1))
if last.get("grad_norm", -1) >= 0: print("  grad_norm (before clipping)", last["grad_norm"])' \
      "$OUT/pipeline-runs/*pipeline-$1*/metrics.jsonl" 2>&1 | tee -a "$results"
  }
  two='[["cuda:0", "0..4"], ["cuda:0", "5..7"]]'
  pipe_run one-device null
  pipe_run one-gpu-gpipe "{\"stages\": $two, \"micro_batches\": 8, \"schedule\": \"gpipe\"}"
  pipe_run one-gpu-1f1b "{\"stages\": $two, \"micro_batches\": 8, \"schedule\": \"1f1b\"}"
  if ((gpus < 2)); then
    say "this device has $gpus GPU: the two-GPU pipeline (cuda:0 + cuda:1) is not run"
  else
    pipe_run two-gpus '{"stages": [["cuda:0", "0..4"], ["cuda:1", "5..7"]], "micro_batches": 8}'
    # Issue 53 (1): the backward hand-off's gradient, made on cuda:1's stage stream and copied on cuda:1's current
    # stream, must live until the copy ran. Without the caching allocator every free waits for the device, which
    # hides a block reused too early: the two runs must agree.
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 pipe_run two-gpus-no-caching \
      '{"stages": [["cuda:0", "0..4"], ["cuda:1", "5..7"]], "micro_batches": 8}'
    pipe_run balanced '{"stages": "balanced", "devices": ["cuda:0", "cuda:1"], "micro_batches": 8}'
  fi
  say "(test_accuracy and test_loss should agree across the runs to float32 rounding: the same training)"
  # Clipping across the stages: the same clip on one device, two stages on cuda:0, and cuda:0 + cuda:1.
  export PIPE_CLIP=0.05
  pipe_run clip-one-device null
  pipe_run clip-one-gpu "{\"stages\": $two, \"micro_batches\": 8}"
  # cuda:0 then the CPU: gradients on two devices (their squared norms summed on cuda:0) on any GPU machine,
  # and a CPU stage waiting on the host for a CUDA stage's hand-off (stage_stream.cpp).
  pipe_run clip-gpu-cpu '{"stages": [["cuda:0", "0..4"], ["cpu", "5..7"]], "micro_batches": 8}'
  if ((gpus >= 2)); then
    pipe_run clip-two-gpus '{"stages": [["cuda:0", "0..4"], ["cuda:1", "5..7"]], "micro_batches": 8}'
  fi
  unset PIPE_CLIP
  say "(clipped: the runs agree to float32 rounding and grad_norm is above 0.05; each stage device has its memory line)"
fi
section "done in $(elapsed)"
