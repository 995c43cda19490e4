// Parameters of shapes around the 8-bit rule's edges (train-autodiff's
// optimizer=adam8bit gives 8-bit states to parameters of 4096 elements or
// more): each is fitted to a target by mse_loss, the losses summed.
func.func @shapes(%t0: tensor<4095xf32>, %t1: tensor<16x256xf32>,
                  %t2: tensor<4097xf32>, %t3: tensor<2049x3xf32>,
                  %t4: tensor<64x64x2xf32>, %t5: tensor<100x70x3xf32>,
                  %t6: tensor<20480xf32>, %t7: tensor<1x2047xf32>) -> tensor<f32> {
  %p0 = train.param "p0" : tensor<4095xf32>
  %p1 = train.param "p1" : tensor<16x256xf32>
  %p2 = train.param "p2" : tensor<4097xf32>
  %p3 = train.param "p3" : tensor<2049x3xf32>
  %p4 = train.param "p4" : tensor<64x64x2xf32>
  %p5 = train.param "p5" : tensor<100x70x3xf32>
  %p6 = train.param "p6" : tensor<20480xf32>
  %p7 = train.param "p7" : tensor<1x2047xf32>
  %l0 = train.mse_loss %p0, %t0 : tensor<4095xf32>, tensor<4095xf32> -> tensor<f32>
  %l1 = train.mse_loss %p1, %t1 : tensor<16x256xf32>, tensor<16x256xf32> -> tensor<f32>
  %l2 = train.mse_loss %p2, %t2 : tensor<4097xf32>, tensor<4097xf32> -> tensor<f32>
  %l3 = train.mse_loss %p3, %t3 : tensor<2049x3xf32>, tensor<2049x3xf32> -> tensor<f32>
  %l4 = train.mse_loss %p4, %t4 : tensor<64x64x2xf32>, tensor<64x64x2xf32> -> tensor<f32>
  %l5 = train.mse_loss %p5, %t5 : tensor<100x70x3xf32>, tensor<100x70x3xf32> -> tensor<f32>
  %l6 = train.mse_loss %p6, %t6 : tensor<20480xf32>, tensor<20480xf32> -> tensor<f32>
  %l7 = train.mse_loss %p7, %t7 : tensor<1x2047xf32>, tensor<1x2047xf32> -> tensor<f32>
  %s1 = train.add %l0, %l1 : tensor<f32>, tensor<f32> -> tensor<f32>
  %s2 = train.add %s1, %l2 : tensor<f32>, tensor<f32> -> tensor<f32>
  %s3 = train.add %s2, %l3 : tensor<f32>, tensor<f32> -> tensor<f32>
  %s4 = train.add %s3, %l4 : tensor<f32>, tensor<f32> -> tensor<f32>
  %s5 = train.add %s4, %l5 : tensor<f32>, tensor<f32> -> tensor<f32>
  %s6 = train.add %s5, %l6 : tensor<f32>, tensor<f32> -> tensor<f32>
  %s7 = train.add %s6, %l7 : tensor<f32>, tensor<f32> -> tensor<f32>
  return %s7 : tensor<f32>
}
