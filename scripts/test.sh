#!/usr/bin/env bash
# Sets up (Debian's packages, and the tests' readers from PyPI in .venv/), builds and runs every test (ctest).
# GPU tests carry the label `gpu` and are reported as skipped without CUDA.
# WORKBENCH_LIBTORCH=pip: the same against pip torch's LibTorch 2.x with CUDA, in build-pip/, for what differs
# between the lines only (the window and its tests, the Debian package test, the CLI's tests — label `cli` — and
# the tests without LibTorch — label `plain` — are built and run in the Debian build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [[ "${WORKBENCH_LIBTORCH:-debian}" == pip ]]; then
  # Built here: only what differs between the two LibTorch lines. The window (it never sees LibTorch: the engine's
  # door, tests engine_door_gui and front_ends_include_no_torch) and the tests that say the same against either
  # line are built and run in the Debian build; `scripts/run.sh` with WORKBENCH_LIBTORCH=pip builds the window.
  WORKBENCH_GUI=OFF WORKBENCH_CMAKE_ARGS="${WORKBENCH_CMAKE_ARGS:-} -DWORKBENCH_LINE_NEUTRAL_TESTS=OFF" scripts/build.sh
else
  scripts/build.sh
fi
if [[ "${WORKBENCH_LIBTORCH:-debian}" == pip ]]; then
  # What differs between the two LibTorch lines only: tests labelled `plain` (no LibTorch in them, the lint,
  # configure's checks) say the same in both and run in the Debian build; so do the CLI's (label `cli`: the
  # same front door onto the engine, whose 2.x paths the engine's tests here cover; ~10 of CI's minutes),
  # and .ci/run's resume across the two builds runs this build's CLI end to end.
  ctest --test-dir build-pip --output-on-failure -j2 -LE 'gui|package|plain|cli' "$@"
else
  ctest --test-dir build --output-on-failure -j2 "$@"
fi
