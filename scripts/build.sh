#!/usr/bin/env bash
# Configures (Ninja, RelWithDebInfo) and builds into build/. Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
gui=${WORKBENCH_GUI:-ON}
cmake -S . -B build -G Ninja -DWORKBENCH_GUI="$gui" "$@" >/dev/null
cmake --build build
