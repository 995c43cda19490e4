// RUN: mem-opt %s -split-input-file --convert-train-to-linalg --mlir-print-debuginfo=false | FileCheck %s

// Gradient accumulation's ops (train-accumulate-gradients) on the globals of
// their states:
// - train.accumulate: g = extf(grad) * scale; buffer = g on micro-batch 0
//   (the index read from its global equals 0), buffer + g after; written
//   back in place;
// - train.any_nonfinite and the update read the buffer again from its
//   global, after the accumulation (the opt_state's tensor is the value
//   from before it);
// - train.micro_batch_skip: index != micro_batches - 1, or-ed with the
//   check;
// - train.micro_batch_advance: (index + 1) mod micro_batches, in place.
// CHECK-LABEL: func.func @step(
// CHECK:         %[[IG:.+]] = memref.get_global @__state__grad_accumulation.micro_batch : memref<i64>
// CHECK-NEXT:    %[[I:.+]] = bufferization.to_tensor %[[IG]] restrict writable
// CHECK:         %[[ACC:.+]] = bufferization.to_tensor %{{.+}} restrict writable : memref<4xf32> to tensor<4xf32>
// CHECK-NEXT:    %[[INDEX:.+]] = tensor.extract %[[I]][] : tensor<i64>
// CHECK-NEXT:    %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK-NEXT:    %[[FIRST:.+]] = arith.cmpi eq, %[[INDEX]], %[[ZERO]] : i64
// CHECK-NEXT:    %[[SUM:.+]] = linalg.generic {{.+}} ins(%{{.+}} : tensor<4xf16>) outs(%[[ACC]] : tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[G:.+]]: f16, %[[OLD:.+]]: f32):
// CHECK-NEXT:      %[[WIDE:.+]] = arith.extf %[[G]] : f16 to f32
// CHECK-NEXT:      %[[SCALE:.+]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT:      %[[SCALED:.+]] = arith.mulf %[[WIDE]], %[[SCALE]] : f32
// CHECK-NEXT:      %[[ADDED:.+]] = arith.addf %[[OLD]], %[[SCALED]] : f32
// CHECK-NEXT:      %[[NEW:.+]] = arith.select %[[FIRST]], %[[SCALED]], %[[ADDED]] : f32
// CHECK-NEXT:      linalg.yield %[[NEW]] : f32
// CHECK:         %[[BUF:.+]] = memref.get_global @__state__w.grad_accumulator : memref<4xf32>
// CHECK-NEXT:    bufferization.materialize_in_destination %[[SUM]] in restrict writable %[[BUF]]
// CHECK:         %[[REREAD:.+]] = memref.get_global @__state__w.grad_accumulator : memref<4xf32>
// CHECK-NEXT:    %[[AFTER:.+]] = bufferization.to_tensor %[[REREAD]]
// CHECK-NEXT:    %[[FOUND:.+]] = linalg.reduce ins(%[[AFTER]] : tensor<4xf32>)
// CHECK:         linalg.generic {{.+}} ins(%[[I]], %[[FOUND]] : tensor<i64>, tensor<i1>)
// CHECK-NEXT:    ^bb0(%[[IN:.+]]: i64, %[[F:.+]]: i1, %{{.+}}: i1):
// CHECK-NEXT:      %[[LAST:.+]] = arith.constant 3 : i64
// CHECK-NEXT:      %[[NOTLAST:.+]] = arith.cmpi ne, %[[IN]], %[[LAST]] : i64
// CHECK-NEXT:      %[[SKIP:.+]] = arith.ori %[[NOTLAST]], %[[F]] : i1
// CHECK:         memref.get_global @__state__w.grad_accumulator
// CHECK:         %[[NEXT:.+]] = linalg.generic {{.+}} outs(%[[I]] : tensor<i64>)
// CHECK-NEXT:    ^bb0(%[[CUR:.+]]: i64):
// CHECK-NEXT:      %[[ONE:.+]] = arith.constant 1 : i64
// CHECK-NEXT:      %[[INC:.+]] = arith.addi %[[CUR]], %[[ONE]] : i64
// CHECK-NEXT:      %[[N:.+]] = arith.constant 4 : i64
// CHECK-NEXT:      %[[WRAPS:.+]] = arith.cmpi sge, %[[INC]], %[[N]] : i64
// CHECK-NEXT:      %[[Z:.+]] = arith.constant 0 : i64
// CHECK-NEXT:      arith.select %[[WRAPS]], %[[Z]], %[[INC]] : i64
// CHECK:         %[[IG2:.+]] = memref.get_global @__state__grad_accumulation.micro_batch : memref<i64>
// CHECK-NEXT:    bufferization.materialize_in_destination %[[NEXT]] in restrict writable %[[IG2]]
func.func @step(%dw: tensor<4xf16>) -> tensor<f32> {
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  %acc = train.opt_state "w.grad_accumulator" : tensor<4xf32>
  train.accumulate %acc, %dw micro_batch(%i : tensor<i64>) {scale = 2.500000e-01 : f64} : tensor<4xf32>, tensor<4xf16>
  %found = train.any_nonfinite %acc : tensor<4xf32> -> tensor<i1>
  %skip = train.micro_batch_skip %i or(%found : tensor<i1>) {micro_batches = 4 : i64} : tensor<i64> -> tensor<i1>
  %w = train.param "w" : tensor<4xf32>
  train.sgd %w, %acc skip_if(%skip : tensor<i1>) {lr = 1.000000e-02 : f64} : tensor<4xf32>, tensor<4xf32>
  train.micro_batch_advance %i {micro_batches = 4 : i64} : tensor<i64>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The loss-scale update under gradient accumulation keeps the three
// counters on every micro-batch but the last.
// CHECK-LABEL: func.func @scale_update(
// CHECK-SAME:      %[[FOUND:[^:]+]]: tensor<i1>, %[[LATER:[^:]+]]: tensor<i1>)
// CHECK:         %[[SKIP:.+]] = tensor.extract %[[LATER]][] : tensor<i1>
// CHECK:         linalg.generic
// CHECK:           %[[E:.+]] = arith.select %[[SKIP]], %{{.+}}, %{{.+}} : i64
// CHECK-NEXT:      %[[T:.+]] = arith.select %[[SKIP]], %{{.+}}, %{{.+}} : i64
// CHECK-NEXT:      %[[K:.+]] = arith.select %[[SKIP]], %{{.+}}, %{{.+}} : i64
// CHECK-NEXT:      linalg.yield %[[E]], %[[T]], %[[K]] : i64, i64, i64
func.func @scale_update(%found: tensor<i1>, %later: tensor<i1>) -> tensor<f32> {
  %e = train.opt_state "loss_scale.exponent" : tensor<i64>
  %k = train.opt_state "loss_scale.skipped_steps" : tensor<i64>
  %tracker = train.opt_state "loss_scale.growth_tracker" : tensor<i64>
  train.loss_scale_update %e, %tracker, %k, %found skip_if(%later : tensor<i1>) {growth_interval = 2000 : i64} : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i1>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}
