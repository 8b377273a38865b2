#!/usr/bin/env bash
# Sets up (Debian's packages, and the tests' readers from PyPI in .venv/), builds and runs every test (ctest).
# GPU tests carry the label `gpu` and are reported as skipped without CUDA.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j2 "$@"
