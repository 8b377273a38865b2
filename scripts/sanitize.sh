#!/usr/bin/env bash
# Runs the whole test suite once under AddressSanitizer + UndefinedBehaviorSanitizer (issue 15): configures
# build-asan/ with -DWORKBENCH_SANITIZE=ON (GCC, -O1 to keep the build and the run within reach of 2 cores),
# builds everything and runs ctest there. Not part of every CI run (the sanitized build alone takes longer than
# CI's budget on 2 cores); run it before a release and after changes to readers, writers or threads.
#
#   scripts/sanitize.sh                 # everything but the package test (it installs the .deb)
#   scripts/sanitize.sh -R test_data    # extra arguments go to ctest
#   SANITIZE_BUILD_DIR=/tmp/asan scripts/sanitize.sh
#
# LibTorch itself is not instrumented: ASan sees our code's accesses and every allocation; UBSan checks our code.
# Exit status: ctest's.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${SANITIZE_BUILD_DIR:-build-asan}
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DWORKBENCH_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" >/dev/null
fi
cmake --build "$BUILD_DIR"
# Leaks are checked (LibTorch's and Qt's process-lifetime allocations are listed in the suppressions);
# the first UBSan finding fails its test like an ASan one.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/sanitizer/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:suppressions=$PWD/tests/sanitizer/ubsan.supp}
# ONNX Runtime, TensorBoard and safetensors for the tests that read our files with them (.venv/).
[ -x .venv/bin/python ] || scripts/setup.sh
# Not the emulated-CPU entry: AddressSanitizer's shadow memory does not map under qemu-user.
ctest --test-dir "$BUILD_DIR" --output-on-failure -j2 -LE 'package|emulated-cpu' "$@"
