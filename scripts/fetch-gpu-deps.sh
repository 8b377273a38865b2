#!/usr/bin/env bash
# Downloads (does not install) the Debian packages the build needs beyond LibTorch, for a machine without
# network such as the GPU machine: nlohmann-json, CLI11 (workbench-cli's command line), GoogleTest, SQLite3 and
# zlib headers and libraries.
# scripts/gpu-check.sh unpacks .deps/*.deb into a private prefix there; pass ".deps" to the device tool's carry.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps
cd .deps
apt-get download nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libsqlite3-dev libsqlite3-0 zlib1g-dev zlib1g
ls -la
