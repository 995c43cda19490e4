#!/bin/sh
# Builds a training step into a standalone binary (no JIT, no mlir-runner):
#
#   mem-run STEP --emit-aot=DIR   lowered step (LLVM dialect) + C driver
#   mlir-translate --mlir-to-llvmir, llc      step object (kernels embedded)
#   cc main.c step.o  | -lmemopt_cuda_runtime
#
# Usage: scripts/aot-build.sh [--target cpu|gpu] [--gpu-options 'chip=sm_90 ...']
#          [--steps N] [--build DIR] [--work DIR] STEP.mlir OUTPUT [mem-run options...]
# The binary runs N steps (or argv[1]) and prints what `mem-run --steps N` prints;
# the GPU one also prints cuMemGetInfo before/after and the runtime's counters.
set -eu

target=cpu
gpu_options=""
steps=1
build=""
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=$2; shift 2 ;;
    --gpu-options) gpu_options=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    -h|--help) sed -n 2,12p "$0"; exit 0 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  echo "usage: $0 [--target cpu|gpu] [--gpu-options OPTS] [--steps N] [--build DIR] [--work DIR] STEP.mlir OUTPUT [mem-run options...]" >&2
  exit 2
fi
step=$1
output=$2
shift 2

here=$(cd "$(dirname "$0")/.." && pwd)
build=${build:-$here/build}
llvm_bin=${LLVM_BIN:-/usr/lib/llvm-22/bin}
llvm_lib=${LLVM_LIB:-/usr/lib/llvm-22/lib}
cc=${CC:-cc}
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

case "$target" in
  cpu) runtime=memopt_runtime ;;
  gpu) runtime=memopt_cuda_runtime
       if [ ! -e "$build/lib/libmemopt_cuda_runtime.so" ]; then
         echo "aot-build: $build/lib/libmemopt_cuda_runtime.so missing (CUDA toolkit not found at configure time?)" >&2
         exit 1
       fi ;;
  *) echo "aot-build: --target must be cpu or gpu" >&2; exit 2 ;;
esac

# ptxas for gpu-module-to-binary (the toolkit path is also a pipeline option).
PATH=${CUDA_HOME:-/usr/local/cuda}/bin:$PATH
export PATH

"$build/bin/mem-run" "$step" --emit-aot="$work" --target="$target" \
  --gpu-options="$gpu_options" --steps="$steps" "$@"
"$llvm_bin/mlir-translate" --mlir-to-llvmir "$work/step.mlir" -o "$work/step.ll"
"$llvm_bin/llc" -O2 -filetype=obj -relocation-model=pic "$work/step.ll" -o "$work/step.o"
defines=""
[ "$target" = gpu ] && defines=-DMEMOPT_AOT_GPU
# -ffp-contract=off: the initialization formula rounds after every operation.
"$cc" -O2 -ffp-contract=off $defines "$work/main.c" "$work/step.o" -o "$output" \
  -L"$build/lib" -l$runtime -L"$llvm_lib" -lmlir_c_runner_utils -lmlir_float16_utils -lm \
  -Wl,-rpath,"$build/lib" -Wl,-rpath,"$llvm_lib"
