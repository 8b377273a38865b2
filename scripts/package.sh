#!/usr/bin/env bash
# Builds the Debian packages into build/packages/: torch-workbench-cli_<version>_amd64.deb (workbench-cli, the
# examples, bash completion, the docs) and torch-workbench_<version>_amd64.deb (the window, its desktop entry and
# icons). Only the two programs are built, not the tests. Install both with
#   sudo apt install ./build/packages/torch-workbench*_amd64.deb
set -euo pipefail
cd "$(dirname "$0")/.."
WORKBENCH_SETUP=run scripts/setup.sh
if [[ "${WORKBENCH_GUI:-ON}" == "ON" ]]; then
  scripts/build.sh workbench workbench-cli
else
  scripts/build.sh workbench-cli  # the CLI's package alone
fi
(cd build && cpack -G DEB)
ls -l build/packages/*.deb
