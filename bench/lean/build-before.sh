#!/bin/sh
# Builds mem-gen and mem-opt at the commit before the memory-lean work
# (f08c30a) into DIR (default /tmp/memopt-before), for bench/lean/run.py's
# --before-bin DIR/build/bin. Needs what scripts/bootstrap.sh installs.
set -eu
dir=${1:-/tmp/memopt-before}
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ ! -d "$dir" ]; then
  git -C "$root" worktree add --detach "$dir" f08c30a
fi
cmake -G Ninja -S "$dir" -B "$dir/build" \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
ninja -C "$dir/build" mem-gen mem-opt
echo "$dir/build/bin"
