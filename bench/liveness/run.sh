#!/usr/bin/env bash
# Times the TensorLiveness analysis (parse + verify + analysis + printing)
# and the JSON memory report on synthetic steps of 10k, 100k and 1M ops;
# prints medians of 3 runs (the pass times as reported by --mlir-timing).
# Usage: bench/liveness/run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 10000 100000 1000000; do
  python3 "$root/bench/liveness/gen_chain.py" "$n" > "$tmp/step.mlir"
  times=()
  for run in 1 2 3; do
    start=$(date +%s.%N)
    "$root/build/bin/mem-opt" "$tmp/step.mlir" --test-print-tensor-liveness \
      --mlir-timing -o /dev/null > /dev/null 2> "$tmp/timing"
    end=$(date +%s.%N)
    pass=$(grep -i "TestPrintTensorLiveness" "$tmp/timing" | awk '{print $1}')
    times+=("$(echo "$end - $start" | bc) $pass")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 2p | \
    awk -v n="$n" '{printf "ops=%d total_s=%.2f analysis_s=%.2f (median of 3)\n", n, $1, $2}'
  times=()
  for run in 1 2 3; do
    start=$(date +%s.%N)
    "$root/build/bin/mem-opt" "$tmp/step.mlir" \
      --train-memory-report="format=json output=$tmp/report.json" \
      --mlir-timing -o /dev/null 2> "$tmp/timing"
    end=$(date +%s.%N)
    pass=$(grep -i "TrainMemoryReport" "$tmp/timing" | awk '{print $1}')
    times+=("$(echo "$end - $start" | bc) $pass")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 2p | \
    awk -v n="$n" '{printf "ops=%d total_s=%.2f report_json_s=%.2f (median of 3)\n", n, $1, $2}'
done
