// RUN: not mem-opt %s --train-autodiff='optimizer=rmsprop' 2>&1 | FileCheck %s
// RUN: not mem-opt %s --train-autodiff='lr=fast' 2>&1 | FileCheck %s --check-prefix=LR

// CHECK: error: train-autodiff: unknown optimizer 'rmsprop'; expected one of adam, adamw, adam8bit, adamw8bit, sgd, none{{$}}
// LR: for the --lr option: 'fast' value invalid for floating point argument
// LR-NEXT: error: train-autodiff: cannot parse the options 'lr=fast' (the line above says which value){{$}}
func.func @f(%x: tensor<4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4xf32>
  %y = train.mul %x, %w : tensor<4xf32>
  %l = train.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
