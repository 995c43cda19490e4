#!/usr/bin/env bash
# Reproduces the tables of bench/run/README.md: where mem-run's time goes on
# test-sized training steps (lowering, LLVM's optimization, code generation,
# running), the size of the lowered IR, the total time at each --opt-level
# (with the outputs compared with --opt-level=2's), and what the shared
# compilation saves under mpiexec.
#
# usage: bench/run/measure.sh [BUILD_DIR] [BEFORE_MEM_RUN]
#   BUILD_DIR       memopt's build directory (default: build)
#   BEFORE_MEM_RUN  a mem-run built before the change, for a "before" column
#                   of the default run (optional)
# Environment: REPEAT (default 3) runs per measurement, of which the median
# is printed; STEPS (default 2) training steps per run.
#
# On a shared machine, run it through the build lock, so that no build runs
# beside it:  flock /tmp/memopt-build.lock bench/run/measure.sh build
set -euo pipefail

build=${1:-build}
before=${2:-}
bin=$build/bin
repeat=${REPEAT:-3}
steps=${STEPS:-2}
llvm_bin=/usr/lib/llvm-22/bin
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The median of the numbers on stdin.
median() {
  sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# Runs "$@" REPEAT times with stdout in $work/out and stderr in $work/err;
# prints the median wall time in seconds.
time_median() {
  local i start end
  for ((i = 0; i < repeat; ++i)); do
    start=$(date +%s%N)
    "$@" > "$work/out" 2> "$work/err"
    end=$(date +%s%N)
    echo "scale=2; ($end - $start) / 1000000000" | bc
  done | median
}

# Sums the counts of `mem-opt --print-op-stats`.
count_ops() {
  "$bin/mem-opt" "$@" --print-op-stats -o /dev/null 2>&1 |
    awk -F, 'NF == 2 { n += $2 } END { print n }'
}

#--- The steps: the sizes the tests run --------------------------------------
"$bin/mem-gen" gpt2 --layers 2 --hidden 64 --heads 4 --seq 16 --vocab 128 \
  --batch 4 --train -o "$work/gpt2.mlir"
"$bin/mem-gen" llama --layers 2 --hidden 64 --heads 4 --kv-heads 2 --ffn 128 \
  --seq 8 --vocab 128 --batch 4 --train -o "$work/llama.mlir"
cp "$src/examples/mlp_step.mlir" "$work/mlp.mlir"
"$bin/mem-gen" resnet18 --image 32 --classes 4 --batch 2 --train \
  -o "$work/resnet18.mlir"
models="gpt2 llama mlp resnet18"
# Sharded (test/Integration/shard/mpi-training.test's sizes).
"$bin/mem-gen" gpt2 --layers 1 --hidden 32 --heads 2 --seq 8 --vocab 64 \
  --batch 2 --dropout 0 --train |
  "$bin/mem-opt" --train-shard='tp=2' -o "$work/gpt2-tp2.mlir"
"$bin/mem-gen" gpt2 --layers 1 --hidden 32 --heads 2 --seq 8 --vocab 64 \
  --batch 2 --dropout 0 --train |
  "$bin/mem-opt" --train-shard='dp=2 tp=2' -o "$work/gpt2-dp2tp2.mlir"
"$bin/mem-gen" gpt2 --layers 1 --hidden 32 --heads 2 --seq 8 --vocab 64 \
  --batch 4 --dropout 0 --train |
  "$bin/mem-opt" --train-shard='dp=4 tp=2' -o "$work/gpt2-dp4tp2.mlir"
# A step whose running outweighs its compiling (training-long.test's
# resnet18 size: 128x128, batch 2, f64, 3 steps).
"$bin/mem-gen" resnet18 --image 128 --classes 10 --batch 2 --dtype f64 \
  --train -o "$work/resnet18-128.mlir"

echo "## IR size (operations)"
echo
echo "| step | train | linalg (convert-train-to-linalg) | LLVM dialect (memopt-lower-to-cpu) | LLVM IR lines |"
echo "|---|---:|---:|---:|---:|"
for m in $models; do
  "$bin/mem-opt" "$work/$m.mlir" --convert-train-to-linalg \
    --memopt-lower-to-cpu -o "$work/$m.llvm.mlir"
  lines=$("$llvm_bin/mlir-translate" --mlir-to-llvmir "$work/$m.llvm.mlir" |
    grep -c '^  ')
  echo "| $m | $(count_ops "$work/$m.mlir") |" \
    "$(count_ops "$work/$m.mlir" --convert-train-to-linalg) |" \
    "$(count_ops "$work/$m.llvm.mlir") | $lines |"
done
echo

echo "## LLVM's optimization by pass (resnet18, opt -O2 -time-passes, top 5)"
echo
"$bin/mem-run" "$work/resnet18.mlir" --emit-aot="$work/aot" > /dev/null
"$llvm_bin/mlir-translate" --mlir-to-llvmir "$work/aot/step.mlir" \
  -o "$work/resnet18.ll"
"$llvm_bin/opt" -O2 -time-passes -disable-output "$work/resnet18.ll" \
  2> "$work/passes"
sed -n '/Pass execution timing report/,$p' "$work/passes" | grep 'Pass$' |
  head -5 | sed 's/^/    /'
echo

# The median over REPEAT runs of each phase --mlir-timing reports.
phases=("lower" "translate to LLVM IR" "LLVM optimization"
  "code generation and linking" "run" "Total")
echo "## Phases (--mlir-timing, seconds, median of $repeat)"
echo
echo "| step | level | lower | translate | LLVM opt | codegen+link | run | total |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for m in gpt2 resnet18; do
  for level in 2 1 0; do
    for ((i = 0; i < repeat; ++i)); do
      "$bin/mem-run" "$work/$m.mlir" --steps "$steps" --opt-level=$level \
        --mlir-timing --mlir-timing-display=tree > /dev/null 2> "$work/t$i"
    done
    row="| $m | O$level |"
    for phase in "${phases[@]}"; do
      value=$(for ((i = 0; i < repeat; ++i)); do
        awk -v name="$phase" '{
            line = $0; sub(/^ *[0-9.]+ \( *[0-9.]+%\) +/, "", line)
            if (line == name) { print $1; exit }
          }' "$work/t$i"
      done | median)
      row="$row $value |"
    done
    echo "$row"
  done
done
echo

echo "## Wall time per --opt-level (seconds, median of $repeat; output vs O2)"
echo
header="| step |"
rule="|---|"
if [ -n "$before" ]; then
  header="$header before (default) |"
  rule="$rule---:|"
fi
echo "$header O0 | O1 | O2 | O3 | outputs |"
echo "$rule---:|---:|---:|---:|---|"
for m in $models; do
  row="| $m |"
  if [ -n "$before" ]; then
    row="$row $(time_median "$before" "$work/$m.mlir" --steps "$steps") |"
  fi
  "$bin/mem-run" "$work/$m.mlir" --steps "$steps" --measure-peak \
    --opt-level=2 > "$work/$m.O2"
  same="identical"
  for level in 0 1 2 3; do
    row="$row $(time_median "$bin/mem-run" "$work/$m.mlir" --steps "$steps" \
      --measure-peak --opt-level=$level) |"
    cmp -s "$work/out" "$work/$m.O2" || same="O$level differs"
  done
  echo "$row $same |"
done
echo

echo "## A step that runs longer than it compiles (seconds, median of $repeat)"
echo
echo "| step | O0 | O2 | outputs |"
echo "|---|---:|---:|---|"
o0=$(time_median "$bin/mem-run" "$work/resnet18-128.mlir" --steps 3 \
  --opt-level=0)
cp "$work/out" "$work/resnet18-128.O0"
o2=$(time_median "$bin/mem-run" "$work/resnet18-128.mlir" --steps 3 \
  --opt-level=2)
same=identical
cmp -s "$work/out" "$work/resnet18-128.O0" || same=differ
echo "| resnet18-128 (f64, 3 steps) | $o0 | $o2 | $same |"
echo

# At --opt-level=0 mem-run compiles in every process even when sharing is on
# (the README's O0 rows were measured with sharing forced on).
echo "## Under mpiexec (seconds, median of $repeat)"
echo
echo "| step | processes | level | each compiles | shared | outputs |"
echo "|---|---:|---:|---:|---:|---|"
for run in "gpt2-tp2 2" "gpt2-dp2tp2 4" "gpt2-dp4tp2 8"; do
  set -- $run
  for level in 2 0; do
    own=$(time_median mpiexec -n "$2" "$bin/mem-run" "$work/$1.mlir" \
      --steps "$steps" --measure-peak --opt-level=$level \
      --share-compilation=false)
    cp "$work/out" "$work/$1.own"
    shared=$(time_median mpiexec -n "$2" "$bin/mem-run" "$work/$1.mlir" \
      --steps "$steps" --measure-peak --opt-level=$level)
    same=identical
    cmp -s "$work/out" "$work/$1.own" || same=differ
    echo "| $1 | $2 | O$level | $own | $shared | $same |"
  done
done
