#!/usr/bin/env bash
# Configures (Ninja, RelWithDebInfo) into build/ and builds the given targets, or everything when none is given:
#   scripts/build.sh                          # everything: the programs and every test (scripts/test.sh)
#   scripts/build.sh workbench workbench-cli  # only the window and the CLI (scripts/run.sh)
# Configure options come from the environment: WORKBENCH_GUI (ON), and WORKBENCH_CMAKE_ARGS for anything else,
# e.g. WORKBENCH_CMAKE_ARGS="-DWORKBENCH_PCH=OFF" scripts/build.sh.
# WORKBENCH_LIBTORCH=pip builds against pip torch's LibTorch 2.x with CUDA (scripts/setup.sh installs it into
# .venv/) into build-pip/: the engine, the CLI, the window and the engine's tests, with the CUDA and NCCL code
# compiled and linked (the window's tests run in the Debian build).
set -euo pipefail
cd "$(dirname "$0")/.."
gui=${WORKBENCH_GUI:-ON}
read -r -a extra <<<"${WORKBENCH_CMAKE_ARGS:-}"
dir=build
if [[ "${WORKBENCH_LIBTORCH:-debian}" == pip ]]; then
  dir=build-pip
  if [[ ! -x .venv/bin/python ]] || ! prefix=$(.venv/bin/python -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null); then
    echo "error: no pip torch in .venv/: run WORKBENCH_LIBTORCH=pip scripts/setup.sh first" >&2
    exit 2
  fi
  extra+=(-DCMAKE_PREFIX_PATH="$prefix" -DWORKBENCH_REQUIRE_CUDA=ON -DWORKBENCH_GUI_TESTS=OFF)
fi
# A full build takes about 7 GB (measured: build/ 6.4 GB, build-pip/ 5.8 GB, mostly the tests' debug info). On a
# full disk the linker dies of a bus error with no word of the cause, so say it first.
used_kb=0
[[ -d "$dir" ]] && used_kb=$(du -sk "$dir" | cut -f1)
need_kb=$((7 * 1024 * 1024 - used_kb))
free_kb=$(df -Pk . | awk 'NR == 2 {print $4}')
if ((need_kb > 0 && free_kb < need_kb)); then
  echo "error: building into $dir/ needs about $((need_kb / 1024 / 1024 + 1)) GB more disk; $((free_kb / 1024)) MB free on $(df -P . | awk 'NR == 2 {print $6}'). Free some space (old build folders or clones) and run again." >&2
  exit 2
fi
if ! cmake -S . -B "$dir" -G Ninja -DWORKBENCH_GUI="$gui" "${extra[@]}" >"$dir.configure.log" 2>&1; then
  # The configure-time checks (cmake/TorchWithCuda.cmake) say what is missing in one message.
  grep -A12 -m1 "CMake Error" "$dir.configure.log" >&2 || tail -20 "$dir.configure.log" >&2
  exit 1
fi
grep -E "^-- (LibTorch|Data parallel|ONNX export)" "$dir.configure.log" || true
if (($#)); then
  cmake --build "$dir" --target "$@"
else
  cmake --build "$dir"
fi
# The GPU user's build says what it compiled and linked of CUDA (nothing runs on a GPU here).
cli="$dir/cli/workbench-cli"
if [[ "$dir" == build-pip && -x "$cli" ]]; then
  needed=$(readelf -d "$cli" | sed -n 's/.*Shared library: \[\(lib\(torch_cuda\|c10_cuda\|cudart\)[^]]*\)\].*/\1/p' | paste -sd ' ')
  nccl=$(find "$dir/backend" -name 'nccl_backend.cpp.o' | head -1)
  echo "-- CUDA: $cli links ${needed:-no CUDA library}; NCCL: ${nccl:-no} compiled (c10d's ProcessGroupNCCL, in libtorch_cuda, which links libnccl)"
fi
