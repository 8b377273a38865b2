#!/usr/bin/env bash
# Renders the application icon resources/icons/torch-workbench.svg into the PNG sizes of the freedesktop icon
# theme spec (resources/icons/hicolor/<N>x<N>/apps/torch-workbench.png). The PNGs are committed, so the build
# needs no SVG renderer; run this after editing the SVG. Needs rsvg-convert (Debian: librsvg2-bin).
set -euo pipefail
cd "$(dirname "$0")/../resources/icons"
command -v rsvg-convert >/dev/null || { echo "render-icons.sh: needs rsvg-convert (apt-get install librsvg2-bin)" >&2; exit 2; }
for size in 16 22 24 32 48 64 128 256 512; do
  dir=hicolor/${size}x${size}/apps
  mkdir -p "$dir"
  rsvg-convert -w "$size" -h "$size" torch-workbench.svg -o "$dir/torch-workbench.png"
  echo "$dir/torch-workbench.png"
done
