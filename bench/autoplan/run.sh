#!/usr/bin/env bash
# mem-autoplan's search time and work on four model shapes (bench/autoplan/
# README.md). Each search runs REPEATS times (default 3); the table gives the
# median wall time, the candidates of the search space, those pruned by
# monotonicity, screened and planned in full, and the best plan.
#
#   bench/autoplan/run.sh [build-dir]
set -euo pipefail
BUILD=${1:-build}
REPEATS=${REPEATS:-3}
AUTOPLAN="$BUILD/bin/mem-autoplan"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

run() {
  local name=$1; shift
  for i in $(seq "$REPEATS"); do
    local start end
    start=$(date +%s.%N)
    "$AUTOPLAN" "$@" --json > "$OUT/$name.json"
    end=$(date +%s.%N)
    echo "$end - $start" | bc >> "$OUT/$name.times"
  done
  python3 - "$name" "$OUT/$name.json" "$OUT/$name.times" <<'PY'
import json, statistics, sys
name, plan_path, times_path = sys.argv[1:4]
d = json.load(open(plan_path))
times = [float(t) for t in open(times_path)]
p = d["plans"][0]
best = "mb=%d ga=%d %s tp=%d%s dp=%d zero=%d remat=%s, %.1f GiB, est. %.2f s/step" % (
    p["micro_batch"], p["gradient_accumulation"], p["precision"], p["tp"],
    " sp" if p["sp"] else "", p["dp"], p["zero"], p["remat"],
    p["peak_bytes"] / 2**30, p["estimated_step_seconds"])
print("| %s | %d | %.1f s | %d | %d | %d | %d | %s |" % (
    name, d["devices"], statistics.median(times), d["candidates"], d["pruned"],
    d["screened"], d["planned"], best))
PY
}

echo "| model | devices | search (median of $REPEATS) | candidates | pruned | screened | planned in full | best plan |"
echo "|---|---|---|---|---|---|---|---|"
run gpt-1.3b gpt2 --layers 24 --hidden 2048 --heads 16 --seq 2048 --vocab 50257 \
  --global-batch 512 --devices 8 --device h100 --device-memory 80GiB
run llama-2-7b llama-2-7b --seq 4096 --global-batch 512 --devices 8 \
  --device h100 --device-memory 80GiB
run llama-2-13b llama-2-13b --seq 4096 --global-batch 512 --devices 16 \
  --device h100 --device-memory 80GiB
run llama-2-70b llama-2-70b --seq 4096 --global-batch 1024 --devices 64 \
  --device h100 --device-memory 80GiB
