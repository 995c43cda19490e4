#!/usr/bin/env bash
# Plans generated buffer lists with mem-plan and prints, per instance: the
# number of buffers, LOAD, the greedy-by-size baseline's arena and ratio,
# memopt's arena, ratio and strategy, and the planning times (median of 3
# runs below 1M buffers, one run at 1M), and memopt's ratio without the exact
# search (--exact-budget=0, one run). Every plan is checked (--verify).
# At 1M the baseline is skipped: greedy by size costs O(n x merged runs of
# the live bytes), about 3 minutes there (docs/mem-plan.md).
# Usage: bench/plan/run.sh [--quick]   (--quick: skip the 1M instance)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
plan="$root/build/bin/mem-plan"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

instances=("train 10000" "train 100000" "tiles 100" "tiles 200" "tiles 400" "tiles 1000" "tiles 10000")
if [[ "${1:-}" != "--quick" ]]; then
  instances+=("train 1000000")
fi

printf '| instance | n | LOAD | greedy-by-size arena | ratio | time ms | memopt arena | ratio | strategy | time ms | ratio without exact |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for instance in "${instances[@]}"; do
  read -r kind n <<< "$instance"
  python3 "$root/bench/plan/gen.py" "$kind" "$n" 1 > "$tmp/in.csv"
  runs=3
  baseline=--baseline
  if [[ "$n" -ge 1000000 ]]; then
    runs=1
    baseline=
  fi
  for run in $(seq "$runs"); do
    "$plan" "$tmp/in.csv" $baseline --verify > "$tmp/out.$run"
  done
  "$plan" "$tmp/in.csv" --exact-budget=0 --verify > "$tmp/out.noexact"
  field() { grep "^$1:" "$tmp/out.1" | awk '{print $2}' || echo "-"; }
  median() {
    for run in $(seq "$runs"); do grep "^$1:" "$tmp/out.$run" | awk '{print $2}' || echo "-"; done |
      sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
  }
  noexact=$(grep "^ratio:" "$tmp/out.noexact" | awk '{print $2}')
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
    "$kind" "$(field buffers)" "$(field load_bytes)" \
    "$(field baseline_arena_bytes)" "$(field baseline_ratio)" \
    "$(median baseline_time_ms)" "$(field arena_bytes)" "$(field ratio)" \
    "$(field strategy)" "$(median time_ms)" "$noexact"
done
