#!/usr/bin/env bash
# Activation offload against recomputation (bench/offload/README.md): for a
# GPT-2, a Llama and a CNN, train-remat's greedy at budgets from the step's
# peak down past what recomputation alone reaches, with offload=true. Each
# run's "choices" remark gives, at that budget, the best recompute-only
# candidate (greedy's keep-set) and the best with offload: device peak,
# FLOPs recomputed, bytes copied each way, host peak and the estimated step
# time on an H100 with a PCIe Gen5 link (the cost model of docs/offload.md).
#
#   bench/offload/curves.sh [build-dir]      (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
for tool in mem-gen mem-opt; do
  [ -x "$build/bin/$tool" ] || { echo "curves.sh: no $build/bin/$tool (build it first)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The models: bf16-mixed with Adam (the CNN with SGD), scheduled.
declare -A models=(
  [gpt2]="gpt2 --layers 12 --seq 512 --batch 4 --dropout 0"
  [llama]="llama --layers 8 --hidden 1024 --heads 16 --kv-heads 4 --ffn 2816 --seq 1024 --vocab 32000 --batch 8"
  [resnet50]="resnet50 --batch 64 --image 224 --optimizer=sgd"
)

# choices MODEL BUDGET: the remark's numbers as one table row.
# A budget no candidate meets fails the pass: the remark is printed first.
choices() {
  { "$build/bin/mem-opt" "$work/$1.mlir" \
      --train-remat="budget=$2 algorithm=greedy offload=true link=pcie5" -o /dev/null || true; } 2>&1 |
    python3 "$root/bench/offload/parse-choices.py" "$2"
}

for name in gpt2 llama resnet50; do
  # shellcheck disable=SC2086
  "$build/bin/mem-gen" ${models[$name]} --precision bf16-mixed --train |
    "$build/bin/mem-opt" --train-schedule --train-lifetimes -o "$work/$name.mlir" 2>/dev/null
  # The budgets: nine from the step's peak down to recomputation's floor,
  # then 1, 2 and 3% under it.
  read -r peak floor < <({ "$build/bin/mem-opt" "$work/$name.mlir" \
      --train-remat='budget=1 algorithm=greedy offload=true' -o /dev/null || true; } 2>&1 |
    python3 -c '
import re, sys
text = sys.stdin.read()
keep = re.search(r"keep: peak (\d+)", text).group(1)
floor = re.search(r"recompute \(greedy\): peak (\d+)", text).group(1)
print(keep, floor)')
  echo "== $name: ${models[$name]}, bf16-mixed; peak $peak B, recompute floor $floor B"
  python3 "$root/bench/offload/parse-choices.py" --header
  for k in 1 2 3 4 5 6 7 8 9; do
    choices "$name" "$(python3 -c "print(int($peak - ($peak - $floor) * $k / 9))")"
  done
  for under in 0.99 0.98 0.97; do
    choices "$name" "$(python3 -c "print(int($floor * $under))")"
  done
  echo
done
