// RUN: mem-opt %s --train-lora='rank=2 alpha=4 targets=fc' | FileCheck %s

// GPT-2's input-major weight (in x out, no transpose): A is rank x in and
// B out x rank all the same; without a bias the sum follows the matmul.
// CHECK-LABEL: func.func @conv1d
// CHECK:       train.param "mlp.fc.weight" {trainable = false} : tensor<6x10xf32>
// CHECK:       %[[MM:.*]] = train.matmul %{{.*}}, %{{.*}} : tensor<3x6xf32>, tensor<6x10xf32> -> tensor<3x10xf32>
// CHECK-NEXT:  train.param "mlp.fc.lora_A.weight" : tensor<2x6xf32>
// CHECK-NEXT:  train.matmul {{.*}} : tensor<3x6xf32>, tensor<2x6xf32> -> tensor<3x2xf32>
// CHECK-NEXT:  train.param "mlp.fc.lora_B.weight" : tensor<10x2xf32>
// CHECK-NEXT:  train.matmul {{.*}} : tensor<3x2xf32>, tensor<10x2xf32> -> tensor<3x10xf32>
// CHECK-NEXT:  train.scale
// CHECK-NEXT:  %[[SUM:.*]] = train.add %[[MM]], %{{.*}} : tensor<3x10xf32>
// CHECK-NEXT:  train.relu %[[SUM]]
func.func @conv1d(%x: tensor<3x6xf32>, %y: tensor<3x10xf32>) -> tensor<f32> {
  %w = train.param "mlp.fc.weight" : tensor<6x10xf32>
  %h = train.matmul %x, %w : tensor<3x6xf32>, tensor<6x10xf32> -> tensor<3x10xf32>
  %r = train.relu %h : tensor<3x10xf32>
  %l = train.mse_loss %r, %y : tensor<3x10xf32>, tensor<3x10xf32> -> tensor<f32>
  return %l : tensor<f32>
}
