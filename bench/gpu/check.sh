#!/bin/sh
# The GPU check of issue 8, prepared to run on a machine with an NVIDIA GPU
# (H100/H200, CUDA 13 driver) in under 5 minutes:
#
#   1. build memopt (unless --build DIR points at a build);
#   2. losses: a reduced GPT-2 (124M shapes, fewer layers, shorter sequence,
#      smaller vocabulary) as an AOT binary for the CPU and for the GPU; the
#      GPU's losses must match the CPU's within --rtol;
#   3. memory: GPT-2 small (the mem-gen preset, 12 layers) planned by
#      train-plan-memory, its report's prediction (persistent bytes, arena),
#      then the GPU binary's measurements: cuMemGetInfo before and after the
#      steps, the runtime's largest allocation (the arena) and peak, and the
#      step times;
#   4. NCCL: the loss model made data-parallel over a grid of one process
#      (scripts/data-parallel.py: each gradient averaged by shard.all_reduce,
#      lowered to NCCL calls) must give the same losses as without it;
#   5. host memory: the loss model with its optimizer on the host
#      (train-offload{optimizer=host}: Adam on the CPU over pinned host
#      memory, copies by cuMemcpyAsync) must give the CPU's losses, and the
#      runtime's peak of pinned host allocations must equal the prediction.
#
# --cpu-only stops before running anything on the GPU (generate, report,
# lower, ptxas, link, CPU reference run, and the loss model through the GPU
# lowering with its kernels run on the CPU, mem-run --target=gpu-emulator,
# whose losses must match the CPU's): what CI runs, with --tiny
# configurations (test/Integration/gpu-check.test). Results go to --out DIR
# (default bench/gpu/results); results.txt holds the summary.
#
# Usage: bench/gpu/check.sh [--cpu-only] [--tiny] [--build DIR] [--out DIR]
#          [--chip sm_90] [--steps N] [--rtol X]
set -eu

here=$(cd "$(dirname "$0")/../.." && pwd)
cpu_only=0
tiny=0
build=""
out=$here/bench/gpu/results
chip=sm_90
steps=3
rtol=1e-3
while [ $# -gt 0 ]; do
  case "$1" in
    --cpu-only) cpu_only=1; shift ;;
    --tiny) tiny=1; shift ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --chip) chip=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --rtol) rtol=$2; shift 2 ;;
    -h|--help) sed -n 2,26p "$0"; exit 0 ;;
    *) echo "check.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

if [ "$tiny" = 1 ]; then
  loss_model="gpt2 --layers 1 --hidden 64 --heads 2 --seq 16 --vocab 128 --batch 2"
  memory_model="gpt2 --layers 2 --hidden 64 --heads 2 --seq 32 --vocab 256 --batch 2"
else
  loss_model="gpt2 --layers 2 --seq 64 --vocab 4096 --batch 1"
  memory_model="gpt2 --batch 1"
fi
case "$chip" in
  sm_80|sm_86|sm_87) features=+ptx80 ;;
  *) features=+ptx80 ;;
esac
gpu_options="chip=$chip features=$features"
plan="func.func(train-lifetimes,train-plan-memory)"
offload="func.func(train-offload{optimizer=host})"

mkdir -p "$out"
summary=$out/results.txt
: > "$summary"
log() { echo "$*" | tee -a "$summary"; }
seconds() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(seconds)" 'BEGIN { printf "%.1f", b - a }'; }
# compare_losses REFERENCE OUTPUT NAME: logs NAME_loss_rel_diff per step and
# NAME_losses: match or MISMATCH (rtol); fails on a mismatch or on no steps.
# (awk's status is the pipeline's: the last command's, sh has no pipefail.)
compare_losses() {
  matched=1
  paste -d' ' "$1" "$2" | grep '^step ' | awk -v rtol="$rtol" -v name="$3" '
    { ref = $5; got = $10; d = ref - got; if (d < 0) d = -d; r = d / (ref < 0 ? -ref : ref);
      printf "%s_loss_rel_diff %s %.3e\n", name, $2, r; n++; if (!(r <= rtol)) bad = 1 }
    END { exit (bad || n == 0) }' > "$out/$3_losses.txt" || matched=0
  tee -a "$summary" < "$out/$3_losses.txt"
  if [ "$matched" = 1 ]; then
    log "${3}_losses: match (rtol $rtol)"
  else
    log "${3}_losses: MISMATCH (rtol $rtol)"
    return 1
  fi
}
t0=$(seconds)

# 1. Build.
if [ -z "$build" ]; then
  build=$here/build
  jobs=$(nproc 2>/dev/null || echo 4)
  cmake -G Ninja -S "$here" -B "$build" -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit > "$out/configure.log"
  ninja -C "$build" -j"$jobs" mem-gen mem-opt mem-run memopt_runtime \
    memopt_cuda_runtime memopt-cuda-info > "$out/build.log"
  log "build_seconds: $(elapsed "$t0")"
fi
for tool in mem-gen mem-opt mem-run memopt-cuda-info; do
  [ -x "$build/bin/$tool" ] || { echo "check.sh: $build/bin/$tool missing" >&2; exit 1; }
done

# 2. Generate and predict.
"$build/bin/mem-gen" $loss_model --train -o "$out/loss_step.mlir"
"$build/bin/mem-gen" $memory_model --train -o "$out/memory_step.mlir"
"$build/bin/mem-opt" "$out/memory_step.mlir" --train-lifetimes --train-plan-memory \
  --train-memory-report=format=json -o /dev/null > "$out/memory_report.json"
json() { sed -n "s/^  \"$1\": \([0-9.e+-]*\),*$/\1/p" "$out/memory_report.json" | head -n 1; }
log "memory_model: $memory_model"
log "predicted_peak_bytes: $(json peak_bytes)"
log "predicted_arena_bytes: $(json arena_bytes)"
log "predicted_persistent_bytes: $(json persistent_bytes)"

# 3. Lower, assemble (ptxas), link.
t1=$(seconds)
"$here/scripts/aot-build.sh" --build "$build" --steps "$steps" --work "$out/loss_cpu" \
  "$out/loss_step.mlir" "$out/loss_cpu.bin"
"$here/scripts/aot-build.sh" --build "$build" --target gpu --gpu-options "$gpu_options" \
  --steps "$steps" --work "$out/loss_gpu" "$out/loss_step.mlir" "$out/loss_gpu.bin"
"$here/scripts/aot-build.sh" --build "$build" --target gpu --gpu-options "$gpu_options" \
  --steps "$steps" --work "$out/memory_gpu" "$out/memory_step.mlir" "$out/memory_gpu.bin" \
  --pipeline="$plan"
"$here/scripts/aot-build.sh" --build "$build" --target gpu --gpu-options "$gpu_options" \
  --steps "$steps" --work "$out/loss_offload_gpu" "$out/loss_step.mlir" "$out/loss_offload_gpu.bin" \
  --pipeline="$offload"
python3 "$here/scripts/data-parallel.py" "$out/loss_step.mlir" -o "$out/loss_dp_step.mlir"
"$here/scripts/aot-build.sh" --build "$build" --target gpu --gpu-options "$gpu_options" \
  --steps "$steps" --work "$out/loss_dp_gpu" "$out/loss_dp_step.mlir" "$out/loss_dp_gpu.bin"
log "lower_link_seconds: $(elapsed "$t1")"
log "launches_loss_step: $(grep -c 'gpu.launch_func' "$out/loss_gpu/step.mlir")"
log "cublas_calls_loss_step: $(grep -c 'llvm.call @memopt_cublas_gemm' "$out/loss_gpu/step.mlir")"
log "launches_memory_step: $(grep -c 'gpu.launch_func' "$out/memory_gpu/step.mlir")"
log "cublas_calls_memory_step: $(grep -c 'llvm.call @memopt_cublas_gemm' "$out/memory_gpu/step.mlir")"
log "nccl_calls_loss_dp_step: $(grep -c 'llvm.call @memopt_nccl_all_reduce' "$out/loss_dp_gpu/step.mlir")"

# 4. CPU reference losses.
t2=$(seconds)
"$out/loss_cpu.bin" > "$out/loss_cpu.out"
log "cpu_reference_seconds: $(elapsed "$t2")"
grep '^step ' "$out/loss_cpu.out" | sed 's/^/cpu /' | tee -a "$summary"

if [ "$cpu_only" = 1 ]; then
  # The loss model's GPU lowering with its kernels and cuBLAS calls run on
  # the CPU (mem-run --target=gpu-emulator) must give the CPU's losses too.
  t4=$(seconds)
  "$build/bin/mem-run" "$out/loss_step.mlir" --steps "$steps" --target=gpu-emulator \
    --gpu-options "$gpu_options" > "$out/loss_emulator.out"
  log "emulator_seconds: $(elapsed "$t4")"
  grep '^step ' "$out/loss_emulator.out" | sed 's/^/emulator /' | tee -a "$summary"
  status=0
  compare_losses "$out/loss_cpu.out" "$out/loss_emulator.out" emulator || status=1
  # The same with the optimizer on the host: its copies as runtime calls,
  # its updates as host loops.
  "$build/bin/mem-run" "$out/loss_step.mlir" --steps "$steps" --target=gpu-emulator \
    --gpu-options "$gpu_options" --pipeline="$offload" > "$out/loss_offload_emulator.out"
  compare_losses "$out/loss_cpu.out" "$out/loss_offload_emulator.out" emulator_offload || status=1
  log "gpu: not run (--cpu-only)"
  exit $status
fi

# 5. On the GPU.
"$build/bin/memopt-cuda-info" | tee "$out/device.txt" | tee -a "$summary"
"$out/loss_gpu.bin" > "$out/loss_gpu.out"
grep '^step ' "$out/loss_gpu.out" | sed 's/^/gpu /' | tee -a "$summary"
status=0
compare_losses "$out/loss_cpu.out" "$out/loss_gpu.out" gpu || status=1

t3=$(seconds)
"$out/memory_gpu.bin" > "$out/memory_gpu.out"
log "gpt2_small_run_seconds: $(elapsed "$t3")"
grep -E '^(step |cuda_|predicted_|planned_|step_seconds)' "$out/memory_gpu.out" | tee -a "$summary"

# 6. NCCL (one process): the data-parallel loss step against the CPU.
"$build/bin/memopt-cuda-info" --nccl | grep '^nccl_' | tee -a "$summary"
"$out/loss_dp_gpu.bin" > "$out/loss_dp_gpu.out"
grep '^step ' "$out/loss_dp_gpu.out" | sed 's/^/gpu_dp /' | tee -a "$summary"
compare_losses "$out/loss_cpu.out" "$out/loss_dp_gpu.out" gpu_dp || status=1

# 7. Host memory: the loss step with its optimizer on the host.
"$out/loss_offload_gpu.bin" > "$out/loss_offload_gpu.out"
grep -E '^(step |predicted_host|cuda_host)' "$out/loss_offload_gpu.out" | sed 's/^/gpu_offload /' | tee -a "$summary"
compare_losses "$out/loss_cpu.out" "$out/loss_offload_gpu.out" gpu_offload || status=1
value() { sed -n "s/^$1: //p" "$out/loss_offload_gpu.out"; }
if [ -n "$(value cuda_host_peak_live_bytes)" ] &&
   [ "$(value cuda_host_peak_live_bytes)" = "$(value predicted_host_peak_bytes)" ]; then
  log "gpu_offload_host_peak: measured == predicted"
else
  log "gpu_offload_host_peak: MISMATCH"
  status=1
fi
log "total_seconds: $(elapsed "$t0")"
exit $status
