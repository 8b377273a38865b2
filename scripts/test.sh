#!/usr/bin/env bash
# Sets up, builds and runs every test (ctest). GPU tests carry the label `gpu` and skip without CUDA.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j2 "$@"
