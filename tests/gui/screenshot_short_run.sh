#!/usr/bin/env bash
# `workbench --screenshot` of a run that ends while its capture settles (20 steps, the capture asked at 10): the
# PNG is written and the exit code is 0. The window once exited 0 here without writing anything.
# usage: tests/gui/screenshot_short_run.sh WORKBENCH
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/short.json" <<JSON
{"data": {"dataset": "synthetic", "synthetic": {"samples": 1280, "classes": 4, "shape": [8]}, "val_fraction": 0},
 "model": {"preset": "mlp"}, "train": {"epochs": 1, "max_steps": 20, "batch_size": 32, "log_every_steps": 1},
 "output": {"runs_dir": "$work/runs"}}
JSON
QT_QPA_PLATFORM=offscreen OMP_WAIT_POLICY=PASSIVE timeout 120 "$1" "$work/short.json" --screenshot "$work/shot.png" \
  --after-steps 10
[[ -s "$work/shot.png" ]] || { echo "FAIL: --screenshot exited 0 and wrote no image" >&2; exit 1; }
echo "PASS: $(du -h "$work/shot.png" | cut -f1) PNG"
