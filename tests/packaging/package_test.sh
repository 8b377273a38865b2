#!/usr/bin/env bash
# The .deb packages, end to end (ctest label `package`; `ctest -LE package` leaves it out):
#   1. the desktop entry and the AppStream metainfo validate (desktop-file-validate, appstreamcli --pedantic);
#   2. cpack builds torch-workbench-cli_<version>_amd64.deb and torch-workbench_<version>_amd64.deb into a
#      temporary folder, with dependencies from dpkg-shlibdeps and every file where the conventions put it;
#   3. lintian reports no error on either;
#   4. as root with apt (CI): `apt-get install ./...deb` installs both; the installed workbench-cli trains an
#      installed example (and one found by --example), the installed window takes an offscreen screenshot;
#      `apt-get purge` removes both and nothing of theirs is left.
# Skips (exit 77) where a tool is missing, and skips step 4 when not root, without apt-get, or when the packages
# are installed already (a developer's own installation is not touched).
#
# usage: tests/packaging/package_test.sh BUILD_DIR VERSION
set -euo pipefail

SKIP=77
build=$(cd "${1:?usage: package_test.sh BUILD_DIR VERSION}" && pwd)
version=${2:?usage: package_test.sh BUILD_DIR VERSION}
src=$(cd "$(dirname "$0")/../.." && pwd)
app_id=io.github.torchworkbench.Workbench
packages=(torch-workbench torch-workbench-cli)

work=$(mktemp -d /tmp/wb-package-test.XXXXXX)
installed_here=0
cleanup() {
  if ((installed_here)); then
    echo "== cleaning up: purging what this test installed"
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${packages[@]}" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

step() { echo; echo "== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIPPED: $*"; exit $SKIP; }

missing=()
for tool in desktop-file-validate appstreamcli lintian cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
((${#missing[@]} == 0)) ||
  skip "needs ${missing[*]} (Debian: apt-get install desktop-file-utils appstream lintian dpkg-dev cmake)"
for exe in cli/workbench-cli gui/workbench; do
  [[ -x "$build/$exe" ]] || fail "$build/$exe is not built: build the targets workbench and workbench-cli first"
done

step "desktop entry and AppStream metainfo"
desktop-file-validate "$src/packaging/$app_id.desktop" || fail "desktop-file-validate: packaging/$app_id.desktop"
echo "desktop-file-validate: ok"
appstreamcli validate --no-net --pedantic "$src/packaging/$app_id.metainfo.xml" ||
  fail "appstreamcli validate: packaging/$app_id.metainfo.xml"

# The release's version is written in several files beside project(): each must name this one.
head -1 "$src/packaging/changelog" | grep -qF "torch-workbench ($version)" ||
  fail "packaging/changelog: its first entry is not version $version (CMakeLists.txt's project()): add one"
grep -qF "<release version=\"$version\"" "$src/packaging/$app_id.metainfo.xml" ||
  fail "packaging/$app_id.metainfo.xml: no <release version=\"$version\">: add this release"
for page in "$src"/packaging/man/*.1; do
  grep -qF "\"Torch Workbench $version\"" "$page" || fail "packaging/man/$(basename "$page"): .TH names another version"
done

step "cpack -G DEB"
start=$(date +%s)
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/packages" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
cli_deb=$work/packages/torch-workbench-cli_${version}_amd64.deb
gui_deb=$work/packages/torch-workbench_${version}_amd64.deb
for deb in "$cli_deb" "$gui_deb"; do
  [[ -f "$deb" ]] || { ls -la "$work/packages"; fail "cpack did not make $(basename "$deb")"; }
  echo "$(basename "$deb"): $(du -h "$deb" | cut -f1)"
done
echo "packaged in $(($(date +%s) - start)) s"

# Every file where the freedesktop and Debian conventions put it.
dpkg-deb -c "$cli_deb" | awk '{print $NF}' >"$work/cli.files"
dpkg-deb -c "$gui_deb" | awk '{print $NF}' >"$work/gui.files"
expect() {
  local list=$1 path=$2
  grep -qxF "$path" "$work/$list.files" || fail "$list package lacks $path"
}
expect cli ./usr/bin/workbench-cli
# ONNX export's writer, where the build has ONNX's library (the engine finds it beside workbench-cli).
packaged_programs=(workbench-cli workbench)
if [[ -x "$build/backend/workbench-onnx-writer" ]]; then
  expect cli ./usr/bin/workbench-onnx-writer
  packaged_programs+=(workbench-onnx-writer)
fi
if [[ -f "$build/lib/libworkbench-sentencepiece.so" ]]; then
  expect cli ./usr/lib/torch-workbench/libworkbench-sentencepiece.so
fi
expect cli ./usr/share/torch-workbench/examples/index.json
expect cli ./usr/share/torch-workbench/examples/mlp.json
expect cli ./usr/share/bash-completion/completions/workbench-cli
expect cli ./usr/share/doc/torch-workbench-cli/README.md
expect cli ./usr/share/doc/torch-workbench-cli/experiment.md
expect cli ./usr/share/doc/torch-workbench-cli/copyright
expect cli ./usr/share/doc/torch-workbench-cli/changelog.gz
expect cli ./usr/share/man/man1/workbench-cli.1.gz
expect gui ./usr/bin/workbench
expect gui ./usr/share/man/man1/workbench.1.gz
expect gui "./usr/share/applications/$app_id.desktop"
expect gui "./usr/share/metainfo/$app_id.metainfo.xml"
expect gui ./usr/share/icons/hicolor/scalable/apps/torch-workbench.svg
for size in 16 22 24 32 48 64 128 256 512; do
  expect gui "./usr/share/icons/hicolor/${size}x${size}/apps/torch-workbench.png"
done
expect gui ./usr/share/doc/torch-workbench/copyright
if grep -q workbench-cli "$work/gui.files" || grep -q 'bin/workbench$' "$work/cli.files"; then
  fail "the window's package and the CLI's overlap"
fi
echo "layout: ok ($(wc -l <"$work/cli.files") + $(wc -l <"$work/gui.files") entries)"

# Dependencies: dpkg-shlibdeps found LibTorch and Qt, and what it cannot see is declared.
cli_depends=$(dpkg-deb -f "$cli_deb" Depends)
gui_depends=$(dpkg-deb -f "$gui_deb" Depends)
echo "torch-workbench-cli Depends: $cli_depends"
echo "torch-workbench Depends: $gui_depends"
[[ "$cli_depends" == *libtorch* ]] || fail "torch-workbench-cli does not depend on LibTorch (dpkg-shlibdeps)"
[[ "$cli_depends" == *libopenblas0-pthread* ]] || fail "torch-workbench-cli does not depend on an optimized BLAS"
[[ "$cli_depends" != *libqt6* ]] || fail "torch-workbench-cli depends on Qt"
[[ "$gui_depends" == *libqt6widgets6* ]] || fail "torch-workbench does not depend on Qt Widgets (dpkg-shlibdeps)"
[[ "$gui_depends" == *"torch-workbench-cli (= $version)"* ]] ||
  fail "torch-workbench does not depend on torch-workbench-cli (= $version)"

# The binaries are stripped and carry no RPATH: every library they need is the system's.
mkdir -p "$work/extract"
dpkg-deb -x "$cli_deb" "$work/extract"
dpkg-deb -x "$gui_deb" "$work/extract"
for exe in "${packaged_programs[@]}"; do
  f=$work/extract/usr/bin/$exe
  if readelf -d "$f" | grep -qE 'RPATH|RUNPATH'; then fail "$exe carries an RPATH"; fi
  if readelf -S "$f" | grep -q '\.debug_info'; then fail "$exe is not stripped"; fi
done
desktop-file-validate "$work/extract/usr/share/applications/$app_id.desktop" || fail "the packaged desktop entry"

step "lintian"
lintian_status=0
lintian --fail-on error --display-level '>=warning' "$cli_deb" "$gui_deb" >"$work/lintian.log" 2>&1 ||
  lintian_status=$?
cat "$work/lintian.log"
echo "lintian: $(grep -c '^E:' "$work/lintian.log" || true) errors, $(grep -c '^W:' "$work/lintian.log" || true) warnings"
((lintian_status == 0)) || fail "lintian reports errors (exit $lintian_status)"

if [[ $(id -u) -ne 0 ]]; then
  skip "the packages are built and clean; installing them needs root (CI runs as root)"
fi
command -v apt-get >/dev/null || skip "the packages are built and clean; installing them needs apt-get"
for p in "${packages[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    skip "$p is installed on this machine already; not replacing it (purge it to run the install check)"
  fi
done

[[ -d /usr/share/datasets/fashion-mnist ]] ||
  fail "the installed programs train on Fashion-MNIST: apt-get install dataset-fashion-mnist (scripts/setup.sh does)"

step "apt-get install ./torch-workbench*_amd64.deb"
installed_here=1
# Without the Recommends (the dataset, Qt's Wayland plugin): the Depends alone must make both programs run, and
# the test leaves no other package behind. scripts/setup.sh installed the dataset the training below reads.
(cd "$work/packages" &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "./torch-workbench-cli_${version}_amd64.deb" "./torch-workbench_${version}_amd64.deb") \
  >"$work/apt-install.log" 2>&1 ||
  { tail -30 "$work/apt-install.log"; fail "apt-get install"; }
dpkg -L "${packages[@]}" | sort -u >"$work/installed.files"
echo "installed $(wc -l <"$work/installed.files") paths"
[[ "$(command -v workbench-cli)" == /usr/bin/workbench-cli ]] || fail "workbench-cli is not /usr/bin/workbench-cli"
[[ "$(command -v workbench)" == /usr/bin/workbench ]] || fail "workbench is not /usr/bin/workbench"
for exe in /usr/bin/workbench-cli /usr/bin/workbench; do
  if ldd "$exe" | grep -q "not found"; then ldd "$exe" | grep "not found"; fail "$exe: libraries not found"; fi
done

step "the installed programs"
mkdir -p "$work/cwd"
cd "$work/cwd"
unset TORCH_WORKBENCH_EXAMPLES
for exe in workbench-cli workbench; do
  out=$(QT_QPA_PLATFORM=offscreen "$exe" --version 2>"$work/version.log") ||
    fail "$exe --version: $out $(cat "$work/version.log")"
  [[ "$out" == *"$version"* ]] || fail "$exe --version does not say $version: $out"
  echo "$exe --version: $(head -1 <<<"$out")"
done
examples=$(workbench-cli examples 2>&1) || fail "workbench-cli examples: $examples"
[[ "$examples" == */usr/share/torch-workbench/examples* ]] ||
  fail "workbench-cli does not find its installed examples in /usr/share/torch-workbench/examples: $examples"
echo "workbench-cli examples: from /usr/share/torch-workbench/examples"

if [[ -f "$build/lib/libworkbench-sentencepiece.so" ]]; then
  # SentencePiece's module found where the package put it: a tokenizer trained, then read back.
  grep -h . /usr/share/common-licenses/GPL-3 /usr/share/common-licenses/Apache-2.0 >"$work/texts.txt"
  workbench-cli train-tokenizer "$work/texts.txt" "$work/tokenizer" --vocab-size 500 >"$work/tokenizer.log" 2>&1 ||
    { cat "$work/tokenizer.log"; fail "workbench-cli train-tokenizer (SentencePiece's installed module)"; }
  pieces=$(workbench-cli tokenize "$work/tokenizer" "free software" 2>&1) || fail "workbench-cli tokenize: $pieces"
  [[ "$pieces" == *"SentencePiece, 500 ids"* ]] || fail "workbench-cli tokenize of the trained model: $pieces"
  echo "workbench-cli train-tokenizer + tokenize (SentencePiece's installed module): ok"
fi

start=$(date +%s)
# 10,000 samples: one epoch is longer than the example's 100 warmup steps.
workbench-cli train /usr/share/torch-workbench/examples/mlp.json --set train.epochs=1 --set data.limit=10000 \
  --set "output.runs_dir=$work/runs" --json >"$work/train.json" 2>"$work/train.log" ||
  { tail -20 "$work/train.log"; fail "workbench-cli train of the installed mlp.json"; }
ls "$work"/runs/*/summary.json >/dev/null 2>&1 || fail "the installed mlp.json's run wrote no summary.json"
echo "workbench-cli train mlp.json (1 epoch, 10,000 samples): ok in $(($(date +%s) - start)) s"
start=$(date +%s)
workbench-cli train --example csv-spirals --set train.epochs=2 --set "output.runs_dir=$work/runs" \
  >"$work/train-csv.log" 2>&1 ||
  { tail -20 "$work/train-csv.log"; fail "workbench-cli train --example csv-spirals (its data from the examples folder)"; }
echo "workbench-cli train --example csv-spirals (2 epochs): ok in $(($(date +%s) - start)) s"

start=$(date +%s)
QT_QPA_PLATFORM=offscreen OMP_WAIT_POLICY=PASSIVE timeout 120 workbench --screenshot "$work/shot.png" \
  /usr/share/torch-workbench/examples/mlp.json --after-steps 5 >"$work/screenshot.log" 2>&1 ||
  { tail -20 "$work/screenshot.log"; fail "workbench --screenshot of the installed mlp.json"; }
[[ -s "$work/shot.png" ]] || fail "workbench --screenshot wrote no image"
[[ "$(head -c 8 "$work/shot.png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] ||
  fail "workbench --screenshot wrote something that is not a PNG"
echo "workbench --screenshot (offscreen, 5 steps): $(du -h "$work/shot.png" | cut -f1) PNG in $(($(date +%s) - start)) s"
cd /

step "apt-get purge"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${packages[@]}" >"$work/apt-purge.log" 2>&1 ||
  { tail -30 "$work/apt-purge.log"; fail "apt-get purge"; }
installed_here=0
for p in "${packages[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "installed"; then fail "$p is still installed"; fi
done
# Shared directories (/usr/share/icons/hicolor/48x48/apps, ...) stay; every file of ours and every folder with
# our name must be gone.
left=()
while IFS= read -r path; do
  [[ -e "$path" || -L "$path" ]] || continue
  if [[ ! -d "$path" || "$path" == *torch-workbench* ]]; then left+=("$path"); fi
done <"$work/installed.files"
((${#left[@]} == 0)) || fail "left after the purge: ${left[*]}"
echo "purged: none of the $(wc -l <"$work/installed.files") installed paths is left"

echo
echo "PASS: packages built, validated, lintian-clean, installed, run and purged"
