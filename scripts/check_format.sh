#!/usr/bin/env bash
# Checks, without rewriting anything, that every C++ file git tracks is formatted as .clang-format says
# (Debian's clang-format 14; CI runs this first). To format a file: clang-format -i FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "clang-format not found: apt-get install clang-format (scripts/setup.sh installs it)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.hpp' '*.cc')
# One clang-format for all of them; it names each file that differs ("FILE:LINE:COL: error: code should be
# clang-formatted").
mapfile -t unformatted < <(clang-format --dry-run --Werror "${files[@]}" 2>&1 |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if ((${#unformatted[@]})); then
  echo "Not formatted as .clang-format says (${#unformatted[@]} of ${#files[@]} files); run clang-format -i on:" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "format: ${#files[@]} files as .clang-format says ($(clang-format --version | sed 's/.*version //'))"
