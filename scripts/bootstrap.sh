#!/usr/bin/env bash
# Installs memopt's dependencies from Debian 12's packages (LLVM/MLIR 22,
# CMake, Ninja, GoogleTest) and builds into build/.
#
#   scripts/bootstrap.sh                  install what is missing, configure,
#                                         build everything
#   scripts/bootstrap.sh mem-gen mem-opt  the same, building only the named
#                                         targets (the README's first command:
#                                         the main job's two tools), without
#                                         the packages only the tests need
#   BUILD_DIR=out scripts/bootstrap.sh
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
  -*) echo "bootstrap.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac

BUILD_DIR=${BUILD_DIR:-build}
# What configuring and building need.
PACKAGES=(cmake ninja-build g++ python3 libmlir-22-dev mlir-22-tools
          llvm-22-dev llvm-22-tools libgtest-dev
          coinor-libcbc-dev pkg-config
          # MPI: mpiexec and the library of the multi-process CPU runs of
          # sharded steps (docs/sharding.md), the launcher of GPU steps.
          mpich libmpich-dev)
# What only the tests need, installed when everything is built (no targets
# given): PyTorch, the reference of the comparisons, and clang with its
# sanitizer runtimes for the sanitizer and fuzzer build (scripts/sanitize.sh).
if [ $# -eq 0 ]; then
  PACKAGES+=(python3-torch python3-torchvision clang-22 libclang-rt-22-dev)
fi

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
# Ninja's targets as given (none: everything).
ninja -C "$BUILD_DIR" "$@"
