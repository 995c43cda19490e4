// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=adam --train-offload=optimizer=host | FileCheck %s
// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=adam --train-precision=mode=bf16-mixed --train-offload=optimizer=host | FileCheck %s --check-prefix=BF16
// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=sgd --train-precision=mode=fp16-mixed --train-offload=optimizer=host | FileCheck %s --check-prefix=SCALED
// RUN: mem-opt %s --train-autodiff=optimizer=adam --train-offload | FileCheck %s --check-prefix=DEVICE
// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=sgd --train-accumulate-gradients=micro-batches=2 --train-offload=optimizer=host --train-verify-step | FileCheck %s --check-prefix=ACCUM
// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=sgd --train-accumulate-gradients=micro-batches=2 --train-offload='optimizer=host params=micro-batch' --train-verify-step | FileCheck %s --check-prefix=PER-MICRO
// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=adam --train-precision=mode=bf16-mixed --train-offload='optimizer=host params=host' | FileCheck %s --check-prefix=PERUSE
// RUN: mem-opt %s --train-autodiff=optimizer=adam --train-offload=optimizer=host --train-verify-step -o /dev/null
// Frees of host values (train-lifetimes after train-offload) are no device reads.
// RUN: mem-opt %s --train-autodiff=optimizer=adam --train-offload=optimizer=host --train-lifetimes --train-verify-step -o /dev/null
// RUN: not mem-opt %s --train-autodiff=optimizer=adam --train-offload=optimizer=host --train-precision=mode=bf16-mixed 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: mem-opt %s --train-autodiff=optimizer=adam --train-offload=optimizer=host --convert-train-to-linalg | FileCheck %s --check-prefix=LOWERED
// RUN: mem-opt %s --train-autodiff=optimizer=adam --train-offload=optimizer=host --train-plan-memory --convert-train-to-linalg | FileCheck %s --check-prefix=PLANNED
// RUN: mem-gen gpt2 --layers 2 --hidden 32 --heads 2 --seq 8 --vocab 64 --batch 2 --dropout 0 --train | mem-opt --train-offload=optimizer=host --train-remat=algorithm=layers -o %t.remat.mlir
// RUN: grep -c "train.recomputed" %t.remat.mlir | FileCheck %s --check-prefix=REMAT
// RUN: not grep "train.to_device.*train.recomputed" %t.remat.mlir
// RUN: not grep "train.space.*train.recomputed" %t.remat.mlir

// train-remat after train-offload recomputes device computation, never a
// copy across the host link (its time is not in the FLOPs remat weighs) nor
// a host op: per-layer checkpointing of GPT-2 recomputes activations and
// reads the device's weight copies made in the forward pass.
// REMAT: {{^[1-9][0-9]*$}}

// ORDER: error: 'func.func' op keeps values in host memory (train-offload); apply train-precision first, before train-offload

// Lowered: each run of host ops and copies to the host is bracketed by the
// runtime's memory-space calls (1: host, 0: device), so that mem-run counts
// the allocations in between on the host; the copies are new buffers with
// the values, marked for the GPU lowering (which makes them copies between
// the memories). The module names the globals that live in host memory.
// The parameter's read is a host op, its device copy is not.
// LOWERED:      module attributes {memopt.host_globals = ["__param__l0.weight", "__param__l1.weight", "__state__l0.weight.exp_avg", "__state__l0.weight.exp_avg_sq", "__state__l1.weight.exp_avg", "__state__l1.weight.exp_avg_sq"]}
// LOWERED:      func.func private @memopt_memory_space(i32)
// LOWERED:      %[[HOST:.+]] = arith.constant 1 : i32
// LOWERED-NEXT: call @memopt_memory_space(%[[HOST]]) : (i32) -> ()
// LOWERED-NEXT: %[[G:.+]] = memref.get_global @__param__l0.weight
// LOWERED-NEXT: %[[W:.+]] = bufferization.to_tensor %[[G]]
// LOWERED-NEXT: %[[DEV:.+]] = arith.constant 0 : i32
// LOWERED-NEXT: call @memopt_memory_space(%[[DEV]]) : (i32) -> ()
// LOWERED-NEXT: %[[E:.+]] = tensor.empty() : tensor<4x4xf32>
// LOWERED-NEXT: linalg.copy {memopt.memory_copy = "to_device"} ins(%[[W]] : tensor<4x4xf32>) outs(%[[E]] : tensor<4x4xf32>)
// LOWERED:      linalg.copy {memopt.memory_copy = "to_host"}

// Planned: the device's arena, then the host's (its region above the host
// parameters and moments, 2304 - 1536 bytes) allocated between the
// memory-space calls, so that it counts on the host; host values are views
// of it.
// PLANNED:      train.host_arena_bytes = 2304 : i64, train.host_load_bytes = 2304 : i64, train.host_persistent_bytes = 1536 : i64
// PLANNED-NEXT: %[[ARENA:.+]] = memref.alloc() {alignment = 256 : i64, memopt.arena} : memref<2304xi8>
// PLANNED-NEXT: %[[HOST:.+]] = arith.constant 1 : i32
// PLANNED-NEXT: call @memopt_memory_space(%[[HOST]]) : (i32) -> ()
// PLANNED-NEXT: %[[HARENA:.+]] = memref.alloc() {alignment = 256 : i64, memopt.host_arena} : memref<768xi8>
// PLANNED-NEXT: %[[DEV:.+]] = arith.constant 0 : i32
// PLANNED-NEXT: call @memopt_memory_space(%[[DEV]]) : (i32) -> ()
// PLANNED:      memref.view %[[HARENA]]

// train-offload{optimizer=host} on a 2-layer network (ZeRO-Offload's
// placement): the parameters, the Adam moments and the updates get
// train.space = "host"; the device computes with train.to_device copies of
// the weights, made after each parameter read; each gradient goes to the
// host right after the op that completes it; the step number (an argument)
// right before the first update that reads it.

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<2x4xf32>, %{{[^:]+}}: tensor<2x4xf32>, %[[T:[^:]+]]: tensor<i64> {train.step})
// CHECK:         %[[W0:.+]] = train.param "l0.weight" {train.layer = "l0", train.space = "host"}
// CHECK-NEXT:    %[[W0D:.+]] = train.to_device %[[W0]] : tensor<4x4xf32>
// CHECK-NEXT:    train.matmul %[[X]], %[[W0D]]
// CHECK:         %[[W1:.+]] = train.param "l1.weight" {train.layer = "l1", train.space = "host"}
// CHECK-NEXT:    %[[W1D:.+]] = train.to_device %[[W1]]
// The backward pass reads the same device copy.
// CHECK:         train.matmul %{{.+}}, %[[W1D]] {transpose_rhs}
// CHECK:         %[[G1:.+]] = train.matmul %{{.+}}, %{{.+}} {transpose_lhs}
// CHECK-NEXT:    %[[G1H:.+]] = train.to_host %[[G1]] : tensor<4x4xf32>
// CHECK:         %[[G0:.+]] = train.matmul %[[X]], %{{.+}} {transpose_lhs}
// CHECK-NEXT:    %[[G0H:.+]] = train.to_host %[[G0]] : tensor<4x4xf32>
// CHECK:         %[[M0:.+]] = train.opt_state "l0.weight.exp_avg" {train.space = "host"}
// CHECK:         %[[V0:.+]] = train.opt_state "l0.weight.exp_avg_sq" {train.space = "host"}
// CHECK-NEXT:    %[[TH:.+]] = train.to_host %[[T]] : tensor<i64>
// CHECK:         train.adam %[[W0]], %[[G0H]], %[[M0]], %[[V0]] step(%[[TH]] : tensor<i64>) {lr = 1.000000e-03 : f64, train.space = "host"}
// CHECK:         train.adam %[[W1]], %[[G1H]], {{.+}} step(%[[TH]] : tensor<i64>) {{.+}}train.space = "host"

// bf16-mixed: the cast to the 16-bit weights runs on the host, so that the
// 16-bit copy (2 bytes a weight) crosses the link; the fp32 gradient the
// update reads goes to the host.
// BF16:         %[[W0:.+]] = train.param "l0.weight" {train.layer = "l0", train.space = "host"}
// BF16:         %[[C0:.+]] = train.cast %[[W0]] {train.layer = "l0", train.space = "host"} : tensor<4x4xf32> -> tensor<4x4xbf16>
// BF16-NEXT:    %[[C0D:.+]] = train.to_device %[[C0]] : tensor<4x4xbf16>
// BF16-NEXT:    train.matmul %{{.+}}, %[[C0D]]
// BF16:         %[[G:.+]] = train.cast %{{.+}} : tensor<4x4xbf16> -> tensor<4x4xf32>
// BF16-NEXT:    train.to_host %[[G]] : tensor<4x4xf32>

// params=host: the 16-bit weights live on the host between uses. Each is
// copied to the device right before its forward reader and again right
// before its first backward reader (l1's: the input gradient's matmul),
// not once after the parameter's read.
// PERUSE:       %[[W0:.+]] = train.param "l0.weight" {train.layer = "l0", train.space = "host"}
// PERUSE:       %[[C0:.+]] = train.cast %[[W0]] {train.layer = "l0", train.space = "host"} : tensor<4x4xf32> -> tensor<4x4xbf16>
// PERUSE:       %[[F0:.+]] = train.to_device %[[C0]] : tensor<4x4xbf16>
// PERUSE-NEXT:  train.matmul %{{.+}}, %[[F0]]
// PERUSE:       %[[W1:.+]] = train.param "l1.weight" {train.layer = "l1", train.space = "host"}
// PERUSE-NEXT:  %[[C1:.+]] = train.cast %[[W1]] {train.layer = "l1", train.space = "host"} : tensor<4x4xf32> -> tensor<4x4xbf16>
// PERUSE:       %[[F1:.+]] = train.to_device %[[C1]] : tensor<4x4xbf16>
// PERUSE-NEXT:  train.matmul %{{.+}}, %[[F1]]
// PERUSE:       train.mse_loss
// PERUSE:       %[[B1:.+]] = train.to_device %[[C1]] : tensor<4x4xbf16>
// PERUSE-NEXT:  train.matmul %{{.+}}, %[[B1]] {transpose_rhs}
// PERUSE-NOT:   train.to_device %[[C0]]

// Gradient accumulation: each micro-batch's gradient goes to the host and
// is added into its fp32 buffer there (as ZeRO-Offload accumulates on the
// CPU); the micro-batch counter (read from the step's start), its skip
// flag and its advance run on the host with the updates, which apply on
// the last micro-batch. The device keeps its copy of each weight across
// the micro-batches, a device train.opt_state that train.refresh fills
// from the host's master on micro-batch 0 only.
// ACCUM:       %[[I:.+]] = train.opt_state "grad_accumulation.micro_batch" {train.space = "host"}
// ACCUM-NEXT:  %[[W0:.+]] = train.param "l0.weight" {train.layer = "l0", train.space = "host"}
// ACCUM-NEXT:  %[[D0:.+]] = train.opt_state "l0.weight.device_copy" : tensor<4x4xf32>
// ACCUM-NEXT:  train.refresh %[[D0]], %[[W0]] micro_batch(%[[I]] : tensor<i64>) : tensor<4x4xf32>, tensor<4x4xf32>
// ACCUM-NEXT:  train.matmul %{{.+}}, %[[D0]]
// ACCUM-NOT:   train.to_device
// ACCUM:       %[[G1:.+]] = train.matmul %{{.+}}, %{{.+}} {transpose_lhs}
// ACCUM-NEXT:  %[[G1H:.+]] = train.to_host %[[G1]] : tensor<4x4xf32>
// ACCUM:       %[[SKIP:.+]] = train.micro_batch_skip %[[I]] {micro_batches = 2 : i64, train.space = "host"}
// ACCUM:       %[[B1:.+]] = train.opt_state "l1.weight.grad_accumulator" {train.space = "host"}
// ACCUM-NEXT:  train.accumulate %[[B1]], %[[G1H]] micro_batch(%[[I]] : tensor<i64>) {scale = 5.000000e-01 : f64, train.space = "host"}
// ACCUM-NEXT:  train.sgd %{{.+}}, %[[B1]] skip_if(%[[SKIP]] : tensor<i1>) {lr = {{.+}}, train.space = "host"}
// ACCUM:       train.micro_batch_advance %[[I]] {micro_batches = 2 : i64, train.space = "host"}

// With params=micro-batch the copies are made every micro-batch, as
// without accumulation.
// PER-MICRO:     %[[PW0:.+]] = train.param "l0.weight" {train.layer = "l0", train.space = "host"}
// PER-MICRO-NEXT: %[[PC0:.+]] = train.to_device %[[PW0]] : tensor<4x4xf32>
// PER-MICRO-NOT: train.refresh

// fp16-mixed with dynamic loss scaling: the updates read the scale, copied
// to the host. The check for non-finite gradients runs on the host, on the
// gradients' copies (as ZeRO-Offload checks for overflow on the CPU: the
// device frees each gradient once copied), and the scaler's own update
// stays on the device with its states, reading the flag's copy.
// SCALED:       %[[SCALE:.+]] = train.to_host %{{.+}} : tensor<f32>
// SCALED:       %[[G1:.+]] = train.to_host %{{.+}} : tensor<4x4xf16>
// SCALED:       %[[G0:.+]] = train.to_host %{{.+}} : tensor<4x4xf16>
// SCALED-NEXT:  %[[FOUND:.+]] = train.any_nonfinite %[[G0]], %[[G1]] {train.space = "host"}
// SCALED-NEXT:  %[[FOUNDD:.+]] = train.to_device %[[FOUND]] : tensor<i1>
// SCALED:       train.sgd %{{.+}}, %[[G0]] unscale(%[[SCALE]] : tensor<f32>) skip_if(%[[FOUND]] : tensor<i1>) {{.+}}train.space = "host"
// SCALED:       train.loss_scale_update {{.+}}, %[[FOUNDD]]
// SCALED-NOT:   train.space

// The default, optimizer=device, changes nothing.
// DEVICE-NOT: train.space
// DEVICE-NOT: train.to_host
func.func @mlp(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<f32> {
  %w0 = train.param "l0.weight" {train.layer = "l0"} : tensor<4x4xf32>
  %h0 = train.matmul %x, %w0 {train.layer = "l0"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a0 = train.relu %h0 {train.layer = "l0"} : tensor<2x4xf32>
  %w1 = train.param "l1.weight" {train.layer = "l1"} : tensor<4x4xf32>
  %h1 = train.matmul %a0, %w1 {train.layer = "l1"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %l = train.mse_loss %h1, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
