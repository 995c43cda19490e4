#!/usr/bin/env bash
# Installs memopt's dependencies from Debian 12's packages (LLVM/MLIR 22,
# CMake, Ninja, GoogleTest) and builds everything into build/.
#
#   scripts/bootstrap.sh            install what is missing, configure, build
#   BUILD_DIR=out scripts/bootstrap.sh
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
PACKAGES=(cmake ninja-build g++ python3 libmlir-22-dev mlir-22-tools
          llvm-22-dev llvm-22-tools libgtest-dev python3-torch
          python3-torchvision
          coinor-libcbc-dev pkg-config
          # clang and its sanitizer runtimes: the sanitizer and fuzzer build
          # (.ci/run, docs/reliability.md).
          clang-22 libclang-rt-22-dev
          # MPI: mpiexec and the library of the multi-process CPU runs of
          # sharded steps (docs/sharding.md), the launcher of GPU steps.
          mpich libmpich-dev)

missing=()
for pkg in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "bootstrap: installing ${missing[*]}"
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
fi

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C "$BUILD_DIR"
