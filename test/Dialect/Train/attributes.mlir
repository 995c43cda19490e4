// The attributes passes and mem-gen write verify and round-trip.
// RUN: mem-opt %s | FileCheck %s
// RUN: mem-opt %s | mem-opt | FileCheck %s

// CHECK-LABEL: func.func @step
// CHECK-SAME:    %{{.*}}: tensor<i64> {train.step}
// CHECK-SAME:    -> (tensor<f32>, tensor<4x4xf32> {train.grad_of = "h.0.weight"})
// CHECK-SAME:    attributes {train.remat = {algorithm = "greedy", budget = 950 : i64}}
// CHECK:       train.param "h.0.weight" {train.layer = "h.0"}
// CHECK:       train.relu %{{.*}} {train.layer = "h.0"}
func.func @step(%x: tensor<4x4xf32>, %t: tensor<i64> {train.step}, %g: tensor<4x4xf32>)
    -> (tensor<f32>, tensor<4x4xf32> {train.grad_of = "h.0.weight"})
    attributes {train.remat = {algorithm = "greedy", budget = 950 : i64}} {
  %w = train.param "h.0.weight" {train.layer = "h.0"} : tensor<4x4xf32>
  %y = train.relu %w {train.layer = "h.0"} : tensor<4x4xf32>
  %l = train.mse_loss %y, %x : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<f32>
  return %l, %g : tensor<f32>, tensor<4x4xf32>
}

// A float step counter, and a step recorded without a budget.
// CHECK-LABEL: func.func @float_step
// CHECK-SAME:    tensor<f32> {train.step}
// CHECK-SAME:    attributes {train.remat = {algorithm = "none"}}
func.func @float_step(%t: tensor<f32> {train.step}) attributes {train.remat = {algorithm = "none"}} {
  return
}

// A lowered step keeps its train.grad_of results: its parameters are read
// from globals, so there is no train.param left to check them against.
// CHECK-LABEL: func.func @lowered_gradients
// CHECK-SAME:    -> (tensor<f32>, tensor<4xf32> {train.grad_of = "w"})
func.func @lowered_gradients(%l: tensor<f32>, %g: tensor<4xf32>)
    -> (tensor<f32>, tensor<4xf32> {train.grad_of = "w"}) {
  return %l, %g : tensor<f32>, tensor<4xf32>
}
