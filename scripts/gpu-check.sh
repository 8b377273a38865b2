#!/usr/bin/env bash
# The GPU machine's check, in one go: build against pip torch's LibTorch (CUDA), run the GPU tests, then the
# benchmark table on CUDA (fp32 / bf16 / fp16, the Python side eager and with CUDA graphs, engine against
# Python), and each fast-path switch's effect. Results go to $OUT/gpu-results.txt (the device tool brings
# $OUT back), logs beside it.
#
# The machine (H200, PyTorch 2.11 cu130 pip wheel, CMake, ninja, nvcc; no Qt, no network) may lack the C++
# packages the build needs (nlohmann-json, GoogleTest, SQLite3 and zlib headers). Fetch them here first with
# scripts/fetch-gpu-deps.sh, which puts Debian's .deb files in .deps/ (ignored by git; carry ".deps").
#
# usage: scripts/gpu-check.sh [all|build|test|bench]      (default all)
# environment: OUT (default ./gpu-out), JOBS (default nproc), STEPS (default 40), ROUNDS (default 1),
#              MODELS (default "mlp 64,cnn 256,resnet 256,vit 256"), SWITCHES=0 to skip the switch table
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
    say "If a package is missing (nlohmann_json, GTest, SQLite3, ZLIB): run scripts/fetch-gpu-deps.sh on a"
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

if [[ "$stage" == all || "$stage" == test ]]; then
  section "ctest -L gpu"
  ctest --test-dir build-gpu -L gpu --output-on-failure >"$OUT/ctest-gpu.log" 2>&1
  say "ctest exit $? ($(elapsed))"
  grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|tests passed|Failure|Expected|Which is|actual" "$OUT/ctest-gpu.log" |
    head -60 | tee -a "$results"
fi

if [[ "$stage" == all || "$stage" == bench ]]; then
  cli=build-gpu/cli/workbench-cli
  data=fashion-mnist
  [[ -d /usr/share/datasets/fashion-mnist ]] || data=synthetic
  section "engine vs Python on CUDA: fp32 / bf16 / fp16; Python also with the whole step in a CUDA graph"
  say "data: $data; engine switches at their defaults (cudnn_benchmark, tf32 on; channels_last off; data on the"
  say "device); the engine has no CUDA-graph mode (train.cuda_graphs is not implemented), so 'engine/graphs'"
  say "compares the engine's eager step with Python's captured one."
  DEVICE=cuda DATA=$data PRECISIONS="fp32 bf16 fp16" GRAPHS=1 THREADS=$jobs STEPS=${STEPS:-40} PY=$py \
    MODELS=${MODELS:-"mlp 64,cnn 256,resnet 256,vit 256"} \
    bench/compare.sh "$cli" "${ROUNDS:-1}" 2>&1 | tee -a "$results"

  if [[ "${SWITCHES:-1}" == 1 ]]; then
    section "each fast-path switch against its default (engine, cnn and resnet at batch 256)"
    for sw in "train.channels_last=true|--channels-last" "train.tf32=false|--tf32 0" \
      "train.cudnn_benchmark=false|--cudnn-benchmark 0" "train.data_on_device=off|--data-on-device off" \
      "train.data_on_device=off train.pinned_memory=false|--data-on-device off --pinned-memory 0"; do
      say "switch: ${sw%%|*}"
      DEVICE=cuda DATA=$data PRECISIONS="fp32 bf16" THREADS=$jobs STEPS=${STEPS:-40} PY=$py \
        MODELS="cnn 256,resnet 256" ENGINE_SET="${sw%%|*}" PY_ARGS="${sw##*|}" \
        bench/compare.sh "$cli" 1 2>&1 | tee -a "$results"
    done
  fi
fi
section "done in $(elapsed)"
