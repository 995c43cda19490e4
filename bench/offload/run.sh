#!/usr/bin/env bash
# ZeRO-Offload's published claims through train-offload (bench/offload/README.md):
#
# 1. The largest GPT that one 32 GiB device (a V100 32GB) trains with Adam,
#    without and with the optimizer on the host: GPT-2 blocks of hidden 4096
#    (32 heads, FFN 16384), sequence 1024, vocabulary 50257, one sequence a
#    step, fp16-mixed with dynamic loss scaling (the V100 has no bf16), and
#    per-layer activation checkpointing (train-remat algorithm=layers), as
#    ZeRO-Offload's runs used. The device's number is the memory report's
#    peak: the arena planned for the step (model states included). Binary
#    search over the layer count.
# 2. At 13B (64 of those blocks): the host memory the report counts, beside
#    DeepSpeed's estimator (estimate_zero2_model_states_mem_needs with
#    cpu_offload), which the report prints too.
#
#   bench/offload/run.sh [build-dir]      (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
for tool in mem-gen mem-opt; do
  [ -x "$build/bin/$tool" ] || { echo "run.sh: no $build/bin/$tool (build it first)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
budget=$((32 * 1024 * 1024 * 1024))

# report LAYERS OFFLOAD: writes the memory report of that step as JSON.
report() {
  local layers=$1 offload=$2 passes=()
  [ "$offload" = host ] && passes+=(--train-offload=optimizer=host)
  "$build/bin/mem-gen" gpt2 --layers "$layers" --hidden 4096 --heads 32 --seq 1024 \
      --vocab 50257 --positions 1024 --batch 1 --dropout 0 --precision fp16-mixed --train |
    "$build/bin/mem-opt" "${passes[@]}" --train-remat=algorithm=layers \
      --train-memory-report=format=json -o /dev/null > "$work/$layers-$offload.json"
}
field() { # field LAYERS OFFLOAD PYTHON-EXPRESSION-ON-r
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($3)" "$work/$1-$2.json"
}
fits() { report "$1" "$2"; [ "$(field "$1" "$2" "r['peak_bytes']")" -le "$budget" ]; }

printf '%-8s %7s %11s %15s %15s\n' offload layers parameters "device (GiB)" "host (GiB)"
for offload in device host; do
  low=1 high=2
  while fits "$high" "$offload"; do low=$high; high=$((high * 2)); done
  while [ $((high - low)) -gt 1 ]; do
    mid=$(((low + high) / 2))
    if fits "$mid" "$offload"; then low=$mid; else high=$mid; fi
  done
  report "$low" "$offload"
  host=$(field "$low" "$offload" "'%.2f' % (r['host']['peak_bytes'] / 2**30) if 'host' in r else '-'")
  printf '%-8s %7d %10.2fB %15.2f %15s\n' "$offload" "$low" \
    "$(field "$low" "$offload" "r['parameter_count'] / 1e9")" \
    "$(field "$low" "$offload" "r['peak_bytes'] / 2**30")" "$host"
done

echo
report 64 host
field 64 host "'13B (64 blocks, %.2fB parameters), optimizer on the host:' % (r['parameter_count'] / 1e9)"
field 64 host "'  device peak %.2f GiB (the fp16 weights %.2f GiB, activations and gradients in flight)' % (r['peak_bytes'] / 2**30, r['model_states']['weights']['bytes'] / 2**30)"
field 64 host "'  host peak %.2f GiB: model states %.2f GiB (%.0f B a parameter) + %.2f GiB in flight' % (r['host']['peak_bytes'] / 2**30, r['model_states']['host']['total']['bytes'] / 2**30, r['model_states']['host']['total']['per_parameter'], (r['host']['peak_bytes'] - r['model_states']['host']['total']['bytes']) / 2**30)"
field 64 host "'  DeepSpeed estimate: host %.2f GiB (%.0f B a parameter), device %.2f GiB' % (r['model_states']['host']['deepspeed_estimate']['host_bytes'] / 2**30, r['model_states']['host']['deepspeed_estimate']['host_bytes'] / r['parameter_count'], r['model_states']['host']['deepspeed_estimate']['device_bytes'] / 2**30)"
field 64 host "'  copied per step: %.2f GiB to the host, %.2f GiB to the device' % (r['host']['copied_to_host_bytes'] / 2**30, r['host']['copied_to_device_bytes'] / 2**30)"
