#!/usr/bin/env bash
# Sets up, builds and runs every test (ctest). GPU tests carry the label `gpu` and skip without CUDA.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
# ONNX Runtime for the ONNX export tests (tests/onnxruntime/run_onnx.mjs); without it they skip.
(cd tests/onnxruntime && npm ci --no-audit --no-fund)
ctest --test-dir build --output-on-failure -j2 "$@"
