#!/usr/bin/env bash
# Installs from Debian everything the build, the run and the tests need, including an optimized BLAS
# (Debian's LibTorch otherwise runs matrix products on the reference BLAS, ~35x slower).
# WORKBENCH_SETUP=run (scripts/run.sh) installs only what building and running the programs needs, not the
# tests' own tools (Python's torch for cross-checks, the readers from PyPI in .venv/, qemu-user for the emulated
# AVX2 tests, the package test's validators and lintian).
# WORKBENCH_LIBTORCH=pip also installs the LibTorch a GPU user builds against: PyPI's torch with CUDA, pinned in
# scripts/requirements-libtorch.txt, into .venv/ (scripts/build.sh then builds into build-pip/). It needs the
# CUDA toolkit's nvcc of the same major version (here: /usr/local/cuda).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config lld  # lld: links in a third of GNU ld's time
  libtorch-dev libgloo-dev libopenblas0-pthread
  nlohmann-json3-dev zlib1g-dev libgtest-dev libsqlite3-dev libcli11-dev  # libcli11-dev: workbench-cli's command line
  dataset-fashion-mnist
  libonnx-dev
  libicu-dev  # texts: Unicode's categories, NFD and case as the tokenizers need them (backend/src/text)
  libsentencepiece-dev  # SentencePiece .model tokenizers read and trained (text/sentencepiece_bridge/)
  libjpeg62-turbo-dev libpng-dev  # image folders: JPEG (libjpeg-turbo) and PNG decoded as torchvision's loader sees them
  file  # CPack picks the executables for dpkg-shlibdeps with it (scripts/package.sh)
)
if [[ "${WORKBENCH_SETUP:-all}" != "run" ]]; then
  packages+=(
    python3-torch python3-numpy python3-onnx
    python3-torchvision python3-pil  # test_images: what torchvision's ImageFolder and loader (Pillow) make of a folder
    python3-sentencepiece  # test_text: SentencePiece's own Python binding, the ids a .model must give
    iso-codes     # test_text: country names in every language, a corpus the tokenizers are compared on
    python3-venv  # .venv/: the tests' readers from PyPI (scripts/requirements-test.txt)
    qemu-user     # test_export_avx2: the int8 tests on an emulated AVX2 CPU
    clang-format  # the format check (ctest -L lint), never a rewrite
    desktop-file-utils appstream lintian
  )
fi
if [[ "${WORKBENCH_GUI:-ON}" == "ON" ]]; then
  packages+=(qt6-base-dev qt6-svg-dev libqcustomplot-dev)
  # The window's screen tests: a real X server per screen size with a window manager (tests/gui/on_screen.sh).
  if [[ "${WORKBENCH_SETUP:-all}" != "run" ]]; then packages+=(xvfb openbox x11-utils); fi
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  echo "Installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# pip requirements into .venv/ (ignored by git, made with Debian's Python), reinstalled only when the file changes.
install_requirements() {  # FILE WHAT
  local requirements=$1 stamp=.venv/.$(basename "$1" .txt).sha256 wanted
  wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
  if [[ ! -x .venv/bin/python || ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
    echo "Installing $2 into .venv/ ($requirements)"
    [[ -x .venv/bin/python ]] || /usr/bin/python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check --require-virtualenv -r "$requirements"
    echo "$wanted" >"$stamp"
  fi
}

# The tests' independent readers from PyPI (ONNX Runtime, TensorBoard, safetensors), pinned.
if [[ "${WORKBENCH_SETUP:-all}" != "run" ]]; then
  install_requirements scripts/requirements-test.txt "the tests' Python tools"
fi

# LibTorch 2.x with CUDA from PyPI (several GB; pip keeps the wheels in its cache).
if [[ "${WORKBENCH_LIBTORCH:-debian}" == pip ]]; then
  install_requirements scripts/requirements-libtorch.txt "LibTorch 2.x with CUDA (pip torch)"
elif [[ "${WORKBENCH_LIBTORCH:-debian}" != debian ]]; then
  echo "WORKBENCH_LIBTORCH must be debian (LibTorch 1.13, the default) or pip (2.x with CUDA), not '$WORKBENCH_LIBTORCH'" >&2
  exit 2
fi

# Point libblas.so.3 at OpenBLAS when the reference BLAS is selected.
blas=$(update-alternatives --query libblas.so.3-x86_64-linux-gnu 2>/dev/null | awk '/^Value:/ {print $2}')
if [[ "$blas" == */blas/libblas.so.3 ]]; then
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo update-alternatives --set libblas.so.3-x86_64-linux-gnu \
    /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3
fi
