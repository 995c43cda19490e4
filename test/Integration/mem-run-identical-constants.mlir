// The compiled step holds one global per distinct constant (bufferization
// reuses the global of a constant with the same type and value), and the
// memory model counts each distinct constant once: measured_input_bytes
// equals predicted_input_bytes. Here the argument (32 B), the table two
// layers each compute (32 B once), a table that differs in one element
// (32 B) and train-autodiff's 4-byte seed: 100 bytes. Before, the model
// counted the table twice and predicted 132 (an imported Llama predicted
// 1284 input bytes for 772 measured; the same model through the importer is
// Import/limits.test).
// RUN: mem-opt %s --train-autodiff=optimizer=sgd | mem-run - --steps 1 --measure-peak | FileCheck %s
// CHECK:      measured_input_bytes: 100{{$}}
// CHECK-NEXT: predicted_input_bytes: 100{{$}}

func.func @twin_tables(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<2x4xf32>
  %h = train.mul %x, %w : tensor<2x4xf32>
  %t0 = arith.constant {train.layer = "layer0"} dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32> loc("layer0.table")
  %a = train.mul %h, %t0 : tensor<2x4xf32>
  %t1 = arith.constant {train.layer = "layer1"} dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32> loc("layer1.table")
  %b = train.mul %a, %t1 : tensor<2x4xf32>
  %t2 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 9.0]]> : tensor<2x4xf32> loc("other")
  %c = train.mul %b, %t2 : tensor<2x4xf32>
  %l = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32> loc("loss")
  return %l : tensor<f32>
}
