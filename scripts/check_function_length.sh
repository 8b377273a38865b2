#!/usr/bin/env bash
# No function of the engine, the window or the CLI is longer than 80 lines (lizard's length: first line to last,
# blank lines and comments included), so each says one thing. A table — a list of actions, rows or cases that
# reads best whole — says so with a `// #lizard forgives` line inside it (lizard's own marker).
# usage: scripts/check_function_length.sh [LIMIT]   (lizard from .venv/: scripts/setup.sh installs it)
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-80}
lizard=.venv/bin/lizard
if [[ ! -x "$lizard" ]]; then
  echo "lizard not found in .venv/: run scripts/setup.sh (it installs scripts/requirements-test.txt)" >&2
  exit 2
fi
# -C and -a set so high that only length warns.
if ! report=$("$lizard" --length "$limit" --CCN 100000 --arguments 1000 --warnings_only backend/src gui/src cli); then
  echo "Functions over $limit lines (split them, or mark a table with // #lizard forgives):" >&2
  sed 's/: warning: / /' <<<"$report" | awk '{print "  " $1 " " $2 " (" $NF " lines)"}' >&2
  exit 1
fi
echo "function length: none over $limit lines in backend/src, gui/src, cli"
