#!/bin/sh
# Builds and runs the remat solver benchmark against the sources (not the
# build tree: Remat.cpp needs only LLVM Support and CBC).
set -e
cd "$(dirname "$0")/../.."
out=${TMPDIR:-/tmp}/remat_bench
c++ -O2 -std=c++17 -fno-exceptions -Iinclude -isystem /usr/lib/llvm-22/include \
  $(pkg-config --cflags cbc) bench/remat/remat_bench.cpp lib/Analysis/Remat.cpp \
  -o "$out" -L/usr/lib/llvm-22/lib -lLLVM-22 $(pkg-config --libs cbc)
"$out"
