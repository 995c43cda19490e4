// function=NAME chooses the step to report on in a module holding several.
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-memory-report='format=json function=second' -o /dev/null > %t.json
// RUN: %python %S/validate-report.py json %t.json | FileCheck %s

// CHECK: function: second
// CHECK: num_points: 2{{$}}
// x (32 B) and y (32 B) are live together at the relu.
// CHECK: peak_bytes: 64{{$}}
// CHECK: peak_point: 0{{$}}
// CHECK: peak_op: train.relu at y
// CHECK: point 0 train.relu: 64{{$}}
// CHECK: point 1 func.return: 32{{$}}

func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @second(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = train.relu %x : tensor<8xf32> loc("y")
  return %y : tensor<8xf32>
}
