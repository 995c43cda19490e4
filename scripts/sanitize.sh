#!/usr/bin/env bash
# The sanitizer and fuzzer stage (docs/reliability.md, "Sanitizers and
# fuzzers"): memopt's code built with ASan + UBSan (every finding aborts) and
# libFuzzer coverage in its own build directory, at -O0.
#
#   scripts/sanitize.sh          CI's stage: builds only the unit tests and the
#                                fuzzers, runs the unit tests, then each fuzzer
#                                for a fixed number of inputs (seed 1)
#   scripts/sanitize.sh --long   the long tier's stage: also builds the tools
#                                and runs the sanitizer lit subset
#   BUILD_SAN=dir scripts/sanitize.sh   another build directory (default build-san)
set -euo pipefail
cd "$(dirname "$0")/.."

LONG=0
case "${1:-}" in
  "") ;;
  --long) LONG=1 ;;
  -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
  *) echo "sanitize.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
esac
BUILD_SAN=${BUILD_SAN:-build-san}

if [ ! -f "$BUILD_SAN/build.ninja" ]; then
  CC=clang-22 CXX=clang++-22 cmake -G Ninja -S . -B "$BUILD_SAN" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DMEMOPT_SANITIZE="address;undefined" -DMEMOPT_SANITIZE_OPTIMIZATION=-O0 \
    -DMEMOPT_BUILD_FUZZERS=ON
fi

# Only what this stage runs: the unit tests, the fuzzers and mem-gen, which
# writes the IR fuzzer's seed steps (the long tier adds the tools and
# libraries the lit subset calls).
targets=(MemoptUnitTests memopt-fuzzers mem-gen)
if [ "$LONG" = 1 ]; then
  targets+=(mem-autoplan mem-import mem-opt mem-plan mem-report mem-run
            memopt_runtime memopt_nccl_loopback)
  # With the CUDA toolkit, lit also needs the CUDA runtime and its probe.
  # (grep reads all of ninja's list: with -q it could stop early, and
  # pipefail would take ninja's SIGPIPE for a missing target.)
  if ninja -C "$BUILD_SAN" -t targets all | grep '^bin/memopt-cuda-info:' >/dev/null; then
    targets+=(memopt_cuda_runtime memopt-cuda-info)
  fi
fi
stage=$(date +%s)
ninja -C "$BUILD_SAN" "${targets[@]}"
echo "sanitize: build in $(( $(date +%s) - stage )) s"

# MPICH's UCX transport (libucm) patches mmap's code when libmpich loads,
# which crashes under ASan's interception of mmap: its hook stays off (the
# lit configuration does the same for the tests).
export UCX_MEM_MMAP_HOOK_MODE=none

# LargerTilingsStayValidAndNearLoad checks that two plans agree, which holds
# only while the planner's 10 s safety cap does not trigger; under ASan it
# takes 50 s and the cap triggers.
stage=$(date +%s)
ASAN_OPTIONS=abort_on_error=1 "$BUILD_SAN/test/Unit/MemoptUnitTests" \
  --gtest_brief=1 --gtest_filter=-MemoryPlanTest.LargerTilingsStayValidAndNearLoad
echo "sanitize: unit tests in $(( $(date +%s) - stage )) s"

# Each fuzzer for a fixed number of inputs from its seed corpus, seed 1.
stage=$(date +%s)
fuzz/run.sh "$BUILD_SAN" ir 50000
fuzz/run.sh "$BUILD_SAN" mem-plan-csv 100000
fuzz/run.sh "$BUILD_SAN" hf-config 100000
fuzz/run.sh "$BUILD_SAN" torch-graph 30000
fuzz/run.sh "$BUILD_SAN" safetensors 100000
fuzz/run.sh "$BUILD_SAN" device-profile 10000
echo "sanitize: fuzzers in $(( $(date +%s) - stage )) s"

[ "$LONG" = 1 ] || exit 0

# The long tier: the regression tests that do not execute steps, under the
# sanitizers. Left out: the execution tests (test/Integration, JIT and
# PyTorch; two of them stay, for mem-run and for mlir-runner with the
# instrumented runtime), and the model-scale repeats of what smaller tests
# cover (plan-models, the planner on the CNNs at batch 4-32, mem-gen's random
# sweep, the CNN GPU lowerings), which take 1 to 7 minutes each under ASan,
# mem-autoplan's composition check (it plans every screened candidate in
# full: minutes under ASan) and its published configurations (7B and 22B
# steps), the generated-docs check (tablegen output, not memopt code; this
# build does not build the docs), the tutorial (it trains steps with
# mem-run), the docs' blocks (Docs/docs-run*: they train steps, run
# PyTorch and mpiexec, and build GPU binaries with the tools of the main
# build) and the embedding example (a consumer of the installed libraries
# would have to be built with the sanitizers' flags; check-memopt builds and
# runs it).
stage=$(date +%s)
/usr/lib/llvm-22/bin/lit -sv --param long=1 \
  --filter-out 'mem-autoplan/(composition|published)|plan-models|train-plan-memory-cnns|mem-gen/random|models/(mobilenet_v2|resnet18|unet)|generated-docs|Docs/docs-run|Examples/(embed|tutorial)' \
  "$BUILD_SAN"/test/{Analysis,Autoplan,Conversion,Dialect,Docs,Examples,Pipeline,Report,Runtime,Tools,Transforms} \
  "$BUILD_SAN"/test/Integration/{mem-run-errors,relu-runner}.mlir \
  "$BUILD_SAN"/test/Import/{mem-import,invalid}.test
echo "sanitize: lit subset in $(( $(date +%s) - stage )) s"
