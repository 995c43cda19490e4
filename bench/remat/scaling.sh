#!/bin/sh
# greedy and chain on ever deeper GPT-2-shaped training steps (hidden 64,
# sequence 32, batch 2, SGD): ops, seconds and peak memory of mem-opt, the
# recompute FLOPs and peaks. docs/remat.md quotes the figures.
#   bench/remat/scaling.sh [BINDIR] [LAYERS...]   (default: build/bin 12 48 192 640)
set -eu
bin=${1:-build/bin}
[ $# -gt 0 ] && shift
layers=${*:-12 48 192 640}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| layers | ops | peak | algorithm | budget | seconds | max RSS KB | recompute FLOPs | peak after |\n|---|---|---|---|---|---|---|---|---|\n'
for l in $layers; do
  step=$tmp/gpt2-$l.mlir
  "$bin/mem-gen" gpt2 --layers "$l" --hidden 64 --heads 2 --seq 32 --batch 2 --vocab 128 \
    --positions 32 --train --optimizer=sgd | "$bin/mem-opt" --train-lifetimes -mlir-print-debuginfo > "$step"
  ops=$(grep -c '= train\.\|^ *train\.' "$step")
  peak=$("$bin/mem-opt" "$step" --train-remat=algorithm=none | grep -o 'peak_before = [0-9]*' | grep -o '[0-9]*$')
  budget89=$((peak * 89 / 100))
  for run in "greedy:" "greedy:$budget89" "chain:$budget89"; do
    algorithm=${run%%:*}
    budget=${run#*:}
    option="algorithm=$algorithm"
    [ -n "$budget" ] && option="$option budget=$budget"
    /usr/bin/time -f '%e %M' -o "$tmp/time" "$bin/mem-opt" "$step" --train-remat="$option" -o "$tmp/out.mlir" 2>/dev/null || true
    read -r seconds rss < "$tmp/time"
    flops=$(grep -o 'remat_flops = [0-9]*' "$tmp/out.mlir" 2>/dev/null | grep -o '[0-9]*$' || echo -)
    after=$(grep -o 'remat_peak_after = [0-9]*' "$tmp/out.mlir" 2>/dev/null | grep -o '[0-9]*$' || echo -)
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$l" "$ops" "$peak" "$algorithm" "${budget:-none}" "$seconds" "$rss" "${flops:-failed}" "${after:-}"
    rm -f "$tmp/out.mlir"
  done
done
