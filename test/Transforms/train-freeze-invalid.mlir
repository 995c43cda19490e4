// RUN: mem-opt %s --split-input-file --verify-diagnostics --train-freeze='params=fc1.*,fc3.*'
// RUN: not mem-opt %s --split-input-file --train-freeze 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not mem-opt %s --split-input-file --train-freeze='params=[' 2>&1 | FileCheck %s --check-prefix=GLOB

// EMPTY: error: 'func.func' op train-freeze: expected params=PATTERN[,PATTERN...]
// GLOB: error: 'func.func' op train-freeze: bad pattern '[': invalid glob pattern, unmatched '['

// A pattern that matches no parameter is an error: a misspelt name would
// otherwise train everything.
// expected-error @+1 {{train-freeze: no parameter matches 'fc3.*'}}
func.func @mlp(%x: tensor<4x8xf32>, %y: tensor<4x16xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %l = train.mse_loss %h, %y : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
