#!/usr/bin/env bash
# The same model exported as ONNX by both builds gives the same file: LibTorch 1.13 (build/, Debian; ONNX's
# library in the engine's process) and 2.x (build-pip/, pip torch; the same library in workbench-onnx-writer,
# because the wheel's protobuf cannot share a process with it). A small CNN trained by the Debian build and its
# static int8 artifact are exported by each build's CLI from the same run folder; the files must be byte for
# byte the same except the one entry that names the LibTorch that wrote them (metadata_props torch_version):
# python3-onnx reads both, sets the Debian file's torch_version to the pip file's, and its serialization must
# be the pip file's bytes exactly — the same graph, the same initializers, the same everything else.
# usage: scripts/onnx_across_builds.sh [DEBIAN_CLI PIP_CLI]   (exit 77: a build is missing, skipped)
set -euo pipefail
cd "$(dirname "$0")/.."
debian=${1:-build/cli/workbench-cli}
pip=${2:-build-pip/cli/workbench-cli}
for cli in "$debian" "$pip"; do
  [[ -x "$cli" ]] || { echo "skipped: $cli is not built (build both builds first)" >&2; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$debian" train --example cnn --set data.limit=2000 --set train.epochs=1 --set train.threads=2 \
  --set data.augment=false --set output.runs_dir="$work/runs" --quiet --json >"$work/train.json"
run_dir=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run_dir"])' "$work/train.json")
"$debian" compress "$run_dir" --quiet \
  --set 'compress.passes=[{"type":"quantize","mode":"static","calibration_batches":2}]' >/dev/null
status=0
for model in "" compressed/01-quantize; do
  label=${model:-model}
  args=(export "$run_dir" --format onnx --json)
  [[ -n $model ]] && args+=(--model "$model")
  "$debian" "${args[@]}" --out "$work/debian.onnx" >/dev/null
  "$pip" "${args[@]}" --out "$work/pip.onnx" >/dev/null
  /usr/bin/python3 - "$work/debian.onnx" "$work/pip.onnx" "$label" <<'PY' || status=1  # python3-onnx
import sys
import onnx
debian_path, pip_path, label = sys.argv[1:]
debian, pip = onnx.load(debian_path), onnx.load(pip_path)
versions = lambda m: [p.value for p in m.metadata_props if p.key == "torch_version"]
print(f"{label}: torch_version {versions(debian)} (Debian) and {versions(pip)} (pip), "
      f"{len(debian.graph.node)} nodes, {len(debian.graph.initializer)} initializers")
for p in debian.metadata_props:
    if p.key == "torch_version":
        p.value = versions(pip)[0]
same = debian.SerializeToString() == open(pip_path, "rb").read()
print(f"{label}: {'the same file' if same else 'FAIL: the files differ'} but for torch_version")
sys.exit(0 if same else 1)
PY
done
exit $status
