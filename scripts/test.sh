#!/usr/bin/env bash
# Sets up (Debian's packages, and the tests' readers from PyPI in .venv/), builds and runs every test (ctest).
# GPU tests carry the label `gpu` and are reported as skipped without CUDA.
# WORKBENCH_LIBTORCH=pip: the same against pip torch's LibTorch 2.x with CUDA, in build-pip/ (the window is built,
# its tests and the Debian package test run in the Debian build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
if [[ "${WORKBENCH_LIBTORCH:-debian}" == pip ]]; then
  ctest --test-dir build-pip --output-on-failure -j2 -LE 'gui|package' "$@"
else
  ctest --test-dir build --output-on-failure -j2 "$@"
fi
