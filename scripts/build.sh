#!/usr/bin/env bash
# Configures (Ninja, RelWithDebInfo) into build/ and builds the given targets, or everything when none is given:
#   scripts/build.sh                          # everything: the programs and every test (scripts/test.sh)
#   scripts/build.sh workbench workbench-cli  # only the window and the CLI (scripts/run.sh)
# Configure options come from the environment: WORKBENCH_GUI (ON), and WORKBENCH_CMAKE_ARGS for anything else,
# e.g. WORKBENCH_CMAKE_ARGS="-DWORKBENCH_PCH=OFF" scripts/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
gui=${WORKBENCH_GUI:-ON}
read -r -a extra <<<"${WORKBENCH_CMAKE_ARGS:-}"
cmake -S . -B build -G Ninja -DWORKBENCH_GUI="$gui" "${extra[@]}" >/dev/null
if (($#)); then
  cmake --build build --target "$@"
else
  cmake --build build
fi
