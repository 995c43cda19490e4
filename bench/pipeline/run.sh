#!/usr/bin/env bash
# Published pipeline-parallel configurations through mem-autoplan
# (bench/pipeline/README.md): Korthikanti et al. 2022's GPT models at their
# tensor- and pipeline-parallel degrees with sequence parallelism and
# selective recomputation, on A100 80 GB, one sequence per micro-batch. Each
# is one `mem-autoplan --json` narrowed to that configuration; prints each
# built stage's planned peak, the estimated iteration time and the search's
# wall time. Then the open search of the 175B model over 1024 devices.
#
#   bench/pipeline/run.sh [build-dir]      (default: build)
#   SKIP_SEARCH=1 bench/pipeline/run.sh    the configurations only
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
autoplan="$build/bin/mem-autoplan"
[ -x "$autoplan" ] || { echo "run.sh: no $autoplan (build mem-autoplan first)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name layers hidden heads tp pp devices global-batch schedule
configs=(
  "GPT-175B 96 12288 96 8 8 64 64 1f1b"
  "GPT-530B 105 20480 128 8 35 280 280 1f1b"
  "GPT-1T 128 25600 160 8 64 512 512 1f1b"
  "GPT-175B 96 12288 96 8 8 64 64 zb-h1"
  "GPT-175B 96 12288 96 8 8 64 64 interleaved"
)
printf '%-9s %-11s %4s %4s %5s %5s  %-34s %12s %10s %9s\n' model schedule tp pp \
  dp ga "stage peaks (GiB, planned)" "fits 79 GiB" "est. iter" "search"
for config in "${configs[@]}"; do
  read -r name layers hidden heads tp pp devices batch schedule <<<"$config"
  start=$(date +%s.%N)
  "$autoplan" gpt2 --layers "$layers" --hidden "$hidden" --heads "$heads" \
    --seq 2048 --vocab 51200 --dropout 0.1 --global-batch "$batch" \
    --devices "$devices" --device a100 --tp "$tp" --pp "$pp" --sp on \
    --pp-schedule "$schedule" --zero 0 --remat selective --micro-batch 1 \
    --precision bf16-mixed --top 1 --json > "$work/$name.json" \
    2> "$work/$name.err" || true
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  /usr/bin/python3 - "$work/$name.json" "$name" "$seconds" <<'PY'
import json, sys
path, name, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
try:
    d = json.load(open(path))
except ValueError:
    print(f"{name:9} no plan (see mem-autoplan's error)")
    sys.exit(0)
if not d["plans"]:
    print(f"{name:9} no plan fits")
    sys.exit(0)
p = d["plans"][0]
peaks = " ".join(f"s{s['stage']}={s['peak_bytes'] / 2**30:.2f}"
                 for s in p["stage_peaks"])
fits = "yes" if p["peak_bytes"] <= d["budget_bytes"] else "no"
schedule = p["pp_schedule"] + (f" v={p['virtual_stages']}"
                                if p["virtual_stages"] > 1 else "")
print(f"{name:9} {schedule:11} {p['tp']:4} {p['pp']:4} {p['dp']:5} "
      f"{p['gradient_accumulation']:5}  {peaks:34} {fits:>12} "
      f"{p['estimated_step_seconds']:9.2f}s {seconds:8.1f}s")
PY
  [ -s "$work/$name.json" ] || sed 's/^/  /' "$work/$name.err"
done

if [ "${SKIP_SEARCH:-0}" != 1 ]; then
  echo
  echo "open search: GPT-175B, global batch 1536, 1024 x A100 80 GB (default options)"
  start=$(date +%s.%N)
  "$autoplan" gpt2 --layers 96 --hidden 12288 --heads 96 --seq 2048 \
    --vocab 51200 --dropout 0.1 --global-batch 1536 --devices 1024 \
    --device a100 --top 3 | sed -n '4,5p;/^rank/,$p'
  echo "search: $(echo "$(date +%s.%N) - $start" | bc) s"
fi
