#!/usr/bin/env bash
# Sets up, builds and opens the workbench window with the default experiment (the CNN on Fashion-MNIST).
# An experiment file may be given: scripts/run.sh my.json. Where there is no display, it says so and trains the
# same experiment in the CLI instead (then arguments go to `workbench-cli train`, e.g. --set train.epochs=1).
set -euo pipefail
cd "$(dirname "$0")/.."
# WORKBENCH_LIBTORCH=pip: the window and CLI of the LibTorch 2.x build (build-pip/, as scripts/build.sh makes it).
dir=build
[[ "${WORKBENCH_LIBTORCH:-debian}" == pip ]] && dir=build-pip
# Only what the first window needs: no test tools installed, no test built (scripts/test.sh builds those).
WORKBENCH_SETUP=run scripts/setup.sh
if [[ "${WORKBENCH_GUI:-ON}" == "ON" ]]; then
  scripts/build.sh workbench workbench-cli
else
  scripts/build.sh workbench-cli
fi

if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" && -z "${QT_QPA_PLATFORM:-}" ]]; then
  echo "No display here (DISPLAY and WAYLAND_DISPLAY are unset), so no window: training in the CLI instead." >&2
  echo "(A screenshot of the window works without a display:" \
       "QT_QPA_PLATFORM=offscreen $dir/gui/workbench --screenshot shot.png --after-steps 100)" >&2
  exec $dir/cli/workbench-cli train "$@"
fi
if [[ ! -x $dir/gui/workbench ]]; then
  echo "The window was not built (it needs qt6-base-dev and libqcustomplot-dev, and WORKBENCH_GUI=ON):" \
       "training in the CLI instead." >&2
  exec $dir/cli/workbench-cli train "$@"
fi
exec $dir/gui/workbench "$@"
