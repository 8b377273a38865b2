#!/usr/bin/env bash
# The front ends include no LibTorch header — not even one a system include path offers without asking (Debian
# puts ATen/, c10/ and torch/ under /usr/include, so the probes' __has_include cannot see those). Reads what every
# object of the window, the CLI and the window's tests really included, from the build's dependency log (Ninja's
# `-t deps`, written from the compiler's own depfiles: any compiler).
# usage: front_end_includes_test.sh BUILD_DIR
set -uo pipefail
build=$1
if [[ ! -f "$build/build.ninja" ]]; then
  echo "SKIPPED: $build was not configured with Ninja (the check reads Ninja's dependency log)" >&2
  exit 77
fi
deps=$(ninja -C "$build" -t deps 2>/dev/null) || { echo "ninja -t deps failed in $build" >&2; exit 1; }
# Objects of the front ends: the window's library, programs and tests, and the CLI.
front='^(gui/CMakeFiles/|cli/CMakeFiles/|tests/CMakeFiles/test_gui_)[^ ]*\.o:'
objects=$(grep -cE "$front" <<<"$deps")
if ((objects == 0)); then
  echo "no front-end object in $build's dependency log: build the window and the CLI first" >&2
  exit 1
fi
# One "object: header" line per dependency of a front-end object, then those that are LibTorch's.
offenders=$(awk -v front="$front" '
  /^[^ ].*: #deps/ { object = $1; sub(/:$/, "", object); inside = (object ":") ~ front; next }
  inside && NF { print object ": " $1 }' <<<"$deps" |
  grep -E ': [^ ]*/(torch|ATen|c10|caffe2)/' || true)
if [[ -n "$offenders" ]]; then
  echo "A front end includes LibTorch (the window and the CLI speak to the engine through backend/include only):" >&2
  head -20 <<<"$offenders" >&2
  exit 1
fi
echo "$objects front-end objects, none includes a LibTorch header"
