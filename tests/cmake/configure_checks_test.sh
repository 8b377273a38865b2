#!/usr/bin/env bash
# Configure-time checks of a CUDA LibTorch (cmake/TorchWithCuda.cmake): each bad set-up stops configure with one
# message that names what is missing, never Caffe2's wall of CMake errors. Fake LibTorch prefixes stand in for
# pip's (torch/version.py, lib/libtorch_cuda.so, share/cmake/Torch/TorchConfig.cmake), so this runs anywhere.
# usage: configure_checks_test.sh SOURCE_DIR
set -uo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fake_torch() {  # DIR CUDA_VERSION_OR_NONE: a LibTorch prefix; "none" = a CPU build
  mkdir -p "$1/share/cmake/Torch" "$1/lib"
  echo 'message(FATAL_ERROR "fake TorchConfig reached: the check should have stopped before")' >"$1/share/cmake/Torch/TorchConfig.cmake"
  if [[ "$2" == none ]]; then
    printf "cuda: Optional[str] = None\n" >"$1/version.py"
  else
    printf "cuda: Optional[str] = '%s'\n" "$2" >"$1/version.py"
    : >"$1/lib/libtorch_cuda.so"
  fi
}

expect_refusal() {  # NAME EXPECTED_TEXT ENV... -- CMAKE_ARGS...
  local name=$1 expected=$2
  shift 2
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  local out=$work/$name.log
  if env "${envs[@]}" cmake -S "$src" -B "$work/$name" -G Ninja -DWORKBENCH_GUI=OFF -DWORKBENCH_TESTS=OFF "$@" >"$out" 2>&1; then
    echo "FAIL $name: configure succeeded"; failures=$((failures + 1)); return
  fi
  local errors
  errors=$(grep -c "CMake Error" "$out")
  if ! tr '\n' ' ' <"$out" | tr -s ' ' | grep -qF "$expected"; then
    echo "FAIL $name: the message does not say \"$expected\":"; grep -A6 "CMake Error" "$out" | head -12
    failures=$((failures + 1))
  elif ((errors != 1)); then
    echo "FAIL $name: $errors CMake errors, not one"; failures=$((failures + 1))
  else
    echo "ok   $name: $(grep -A3 'CMake Error' "$out" | tail -3 | tr -s ' ' | tr '\n' ' ' | cut -c1-160)..."
  fi
}

fake_torch "$work/torch-cu13" 13.0
fake_torch "$work/torch-cpu" none
# An nvcc of another major version than the wheel's.
mkdir -p "$work/cuda12/bin"
printf '#!/bin/sh\necho "Cuda compilation tools, release 12.4, V12.4.131"\n' >"$work/cuda12/bin/nvcc"
chmod +x "$work/cuda12/bin/nvcc"

expect_refusal cpu-libtorch "has no CUDA (no lib/libtorch_cuda.so): it is a CPU build" -- \
  -DCMAKE_PREFIX_PATH="$work/torch-cpu/share/cmake" -DWORKBENCH_REQUIRE_CUDA=ON
expect_refusal no-nvcc "needs the CUDA toolkit's nvcc, which is not on PATH nor in $work/none/bin" \
  -u CUDACXX -u CUDA_HOME PATH=/usr/bin:/bin -- \
  -DCMAKE_PREFIX_PATH="$work/torch-cu13/share/cmake" -DWORKBENCH_CUDA_ROOT="$work/none"
expect_refusal other-major "is built for CUDA 13.0, but nvcc ($work/cuda12/bin/nvcc) is CUDA 12.4: the major versions must match" \
  CUDACXX="$work/cuda12/bin/nvcc" -- -DCMAKE_PREFIX_PATH="$work/torch-cu13/share/cmake"
expect_refusal not-nvcc "does not run as nvcc" CUDACXX=/bin/false -- -DCMAKE_PREFIX_PATH="$work/torch-cu13/share/cmake"
exit $((failures > 0))
