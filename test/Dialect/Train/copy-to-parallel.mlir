// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file -verify-diagnostics | mem-opt --mlir-print-debuginfo=false -split-input-file | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file -verify-diagnostics --mlir-print-op-generic | mem-opt --mlir-print-debuginfo=false -split-input-file | FileCheck %s

// Round trip of train.copy_to_parallel through the custom and the generic
// form (the invalid cases below produce no output), and its verifier.

// CHECK-LABEL: func.func @copy(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4x8xf32>)
// CHECK-NEXT:    %[[Y:.+]] = train.copy_to_parallel %[[X]] on @grid grid_axes = [1] : tensor<4x8xf32>
// CHECK-NEXT:    %[[Z:.+]] = train.copy_to_parallel %[[Y]] on @grid grid_axes = [0, 1] : tensor<4x8xf32>
// CHECK-NEXT:    return %[[Z]] : tensor<4x8xf32>
shard.grid @grid(shape = 2x2)
func.func @copy(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = train.copy_to_parallel %x on @grid grid_axes = [1] : tensor<4x8xf32>
  %z = train.copy_to_parallel %y on @grid grid_axes = [0, 1] : tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}

// -----

// No grid axis.
shard.grid @grid(shape = 2x2)
func.func @empty_axes(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.copy_to_parallel' op expected at least one grid axis}}
  %y = train.copy_to_parallel %x on @grid grid_axes = [] : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// An axis named twice.
shard.grid @grid(shape = 2x2)
func.func @repeated_axes(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.copy_to_parallel' op grid axes must be distinct and non-negative, got 1}}
  %y = train.copy_to_parallel %x on @grid grid_axes = [1, 1] : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A negative axis.
shard.grid @grid(shape = 2x2)
func.func @negative_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.copy_to_parallel' op grid axes must be distinct and non-negative, got -1}}
  %y = train.copy_to_parallel %x on @grid grid_axes = [-1] : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The result has the input's type (identity forward).
shard.grid @grid(shape = 2x2)
func.func @result_type(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'train.copy_to_parallel' op failed to verify that all of {input, result} have same type}}
  %y = "train.copy_to_parallel"(%x) {grid = @grid, grid_axes = array<i16: 1>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// The grid must exist.
func.func @no_grid(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.copy_to_parallel' op no shard.grid named @nogrid}}
  %y = train.copy_to_parallel %x on @nogrid grid_axes = [0] : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Its axes are the grid's.
shard.grid @grid(shape = 2x2)
func.func @axis_out_of_range(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.copy_to_parallel' op grid axis 7 is out of range: @grid has 2 axes}}
  %y = train.copy_to_parallel %x on @grid grid_axes = [7] : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
