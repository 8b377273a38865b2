#!/usr/bin/env bash
# Sets up, builds and runs the main job: the default experiment (the CNN on Fashion-MNIST) in the CLI.
# Arguments go to `workbench-cli train`, e.g. scripts/run.sh --set train.epochs=1.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec build/cli/workbench-cli train "$@"
