#!/usr/bin/env bash
# Runs one of memopt's fuzzers for a fixed number of inputs from its seed
# corpus (fuzz/make-seeds.py, plus small steps from mem-gen for the IR
# fuzzer), with a fixed seed: the same inputs on every run of one build.
#
#   fuzz/run.sh BUILD_DIR TARGET RUNS [libFuzzer options...]
#
# TARGET: ir, mem-plan-csv, hf-config, torch-graph, safetensors or
# device-profile (the executable is BUILD_DIR/bin/memopt-fuzz-TARGET, built
# with -DMEMOPT_BUILD_FUZZERS=ON). The JSON targets expand a run-length
# escape in their inputs (fuzz/FuzzExpand.h): a seed of a few bytes nests
# 100,000 levels deep.
# The new inputs go to BUILD_DIR/fuzz/TARGET/corpus (emptied first), crashes
# to BUILD_DIR/fuzz/TARGET/crash-*; the log to BUILD_DIR/fuzz/TARGET/log.
# Exits non-zero on a finding, after printing the end of the log.
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
target=$2
runs=$3
shift 3
fuzzer="$build/bin/memopt-fuzz-$target"
[ -x "$fuzzer" ] || { echo "fuzz: no $fuzzer (configure with -DMEMOPT_BUILD_FUZZERS=ON)" >&2; exit 2; }

work="$build/fuzz/$target"
rm -rf "$work"
mkdir -p "$work/corpus"
python3 "$root/fuzz/make-seeds.py" "$work/seeds" | grep "^$target:" >&2
options=()
if [ "$target" = ir ]; then
  options+=(-dict="$root/fuzz/ir.dict")
  # Small training steps as mem-gen writes them (the examples are larger
  # than the fuzzer's input bound).
  gen="$build/bin/mem-gen"
  "$gen" gpt2 --layers=1 --hidden=16 --heads=2 --vocab=32 --seq=4 --train \
    -o "$work/seeds/ir/mem-gen-gpt2.mlir"
  "$gen" llama --hf-config="$root/test/Tools/mem-gen/Inputs/llama-tiny.json" \
    --layers=1 --seq=4 --train -o "$work/seeds/ir/mem-gen-llama.mlir"
  "$gen" mlp --layers=3 --hidden=8 --train -o "$work/seeds/ir/mem-gen-mlp.mlir"
fi

# The safetensors target links mem-run's library, hence MPICH: its UCX
# transport patches mmap when it loads, which crashes under ASan's mmap
# interception (as in test/lit.cfg.py).
export UCX_MEM_MMAP_HOOK_MODE=none
start=$(date +%s)
status=0
"$fuzzer" -runs="$runs" -seed=1 -print_final_stats=1 "${options[@]}" \
  -artifact_prefix="$work/" "$@" "$work/corpus" "$work/seeds/$target" \
  > "$work/log" 2>&1 || status=$?
seconds=$(( $(date +%s) - start ))
executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
# (A target that fails before its first input prints no coverage.)
coverage=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1 || true)
if [ $status -ne 0 ]; then
  tail -60 "$work/log" >&2
  echo "fuzz: $target: FAILED (status $status) after $seconds s; inputs in $work" >&2
  exit 1
fi
echo "fuzz: $target: ${executed:-?} inputs, $coverage, no finding, $seconds s"
