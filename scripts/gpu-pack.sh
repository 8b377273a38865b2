#!/usr/bin/env bash
# Packs what the GPU machine needs to run the checks without building there (its minutes go to running):
# the pip build's workbench-cli, test_gpu and the engine library test_gpu links, stripped (they load the machine's own torch 2.11.0+cu130 libraries,
# the same wheel they were linked against), libsqlite3, and Debian's Fashion-MNIST files. Into .gpu/ (ignored by
# git); then carry ".gpu" and run `BIN=.gpu scripts/gpu-check.sh` there. About 37 MiB.
#
# usage: scripts/gpu-pack.sh        (after WORKBENCH_LIBTORCH=pip scripts/build.sh; builds the two targets first)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build-pip}
cmake --build "$build" --target workbench-cli test_gpu -j "$(nproc)" >/dev/null
rm -rf .gpu
mkdir -p .gpu/lib .gpu/fashion-mnist
strip -o .gpu/workbench-cli "$build/cli/workbench-cli"
strip -o .gpu/test_gpu "$build/tests/test_gpu"
# The tests link the engine as one shared library (found through gpu-check.sh's LD_LIBRARY_PATH, $BIN/lib).
strip -o .gpu/lib/libworkbench-engine.so "$build/backend/libworkbench-engine.so"
cp -L /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 .gpu/lib/
cp /usr/share/datasets/fashion-mnist/*.gz .gpu/fashion-mnist/
git rev-parse HEAD >.gpu/commit
du -sh .gpu
