#!/bin/bash
# Times train-schedule and memopt-pipeline on random training steps of
# about 50,000 ops (mem-gen random --ops 12000 --train): the median of 3
# runs each, in seconds. Usage: bench/schedule/large.sh [BIN_DIR]
set -euo pipefail
bin=${1:-build/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
timed() { # prints the wall time of the command in seconds
  local TIMEFORMAT=%R
  { time "$@" >/dev/null 2>&1; } 2>&1
}

echo "| seed | ops | train-schedule (s) | memopt-pipeline: schedule, plan, report (s) |"
echo "|---|---|---|---|"
for seed in 1 2 3; do
  "$bin/mem-gen" random --seed "$seed" --ops 12000 --train -o "$work/step.mlir"
  ops=$(grep -c " = train\." "$work/step.mlir")
  s=(); p=()
  for _ in 1 2 3; do
    s+=("$(timed "$bin/mem-opt" "$work/step.mlir" --train-schedule -o "$work/out.mlir")")
    p+=("$(timed "$bin/mem-opt" "$work/step.mlir" \
      --memopt-pipeline='schedule=true plan=true report=true' -o "$work/out.mlir")")
  done
  echo "| $seed | $ops | $(median3 "${s[@]}") | $(median3 "${p[@]}") |"
done
