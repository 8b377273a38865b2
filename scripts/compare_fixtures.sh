#!/usr/bin/env bash
# The cross-check fixtures (tests/fixtures/*.json, made with Debian's torch 1.13) made again with another torch
# (default: pip's 2.x in .venv/, WORKBENCH_LIBTORCH=pip scripts/setup.sh) into a temporary folder and compared
# with the committed ones: each agrees, or its differences are those tests/fixtures/torch2x-differences.json names
# (with why). A ctest entry of the pip build (fixtures_match_torch2x) runs it.
# usage: scripts/compare_fixtures.sh [PYTHON]
set -euo pipefail
cd "$(dirname "$0")/.."
py=${1:-.venv/bin/python}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "torch $("$py" -c 'import torch; print(torch.__version__)') against tests/fixtures ($(python3 -c 'import json; print(json.load(open("tests/fixtures/observers.json"))["torch_version"])'))"
for script in scripts/make_distillation_fixtures.py scripts/make_observer_fixtures.py scripts/make_optimizer_fixtures.py \
  scripts/make_schedule_fixtures.py; do
  WB_FIXTURES_OUT=$out "$py" -W ignore "$script" >/dev/null
done
python3 scripts/compare_fixtures.py tests/fixtures "$out" --expected tests/fixtures/torch2x-differences.json
