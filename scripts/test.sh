#!/usr/bin/env bash
# Sets up (Debian's packages, and the tests' readers from PyPI in .venv/), builds and runs every test (ctest).
# GPU tests carry the label `gpu` and are reported as skipped without CUDA.
# WORKBENCH_LIBTORCH=pip: the same against pip torch's LibTorch 2.x with CUDA, in build-pip/ (the window is built,
# its tests, the Debian package test, the CLI's tests — label `cli` — and the tests without LibTorch — label
# `plain` — run in the Debian build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
if [[ "${WORKBENCH_LIBTORCH:-debian}" == pip ]]; then
  # What differs between the two LibTorch lines only: tests labelled `plain` (no LibTorch in them, the lint,
  # configure's checks) say the same in both and run in the Debian build; so do the CLI's (label `cli`: the
  # same front door onto the engine, whose 2.x paths the engine's tests here cover; ~10 of CI's minutes),
  # and .ci/run's resume across the two builds runs this build's CLI end to end.
  ctest --test-dir build-pip --output-on-failure -j2 -LE 'gui|package|plain|cli' "$@"
else
  ctest --test-dir build --output-on-failure -j2 "$@"
fi
