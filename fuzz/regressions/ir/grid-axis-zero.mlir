
shard.grid @grid(shape = 0)
func.func @i16(%a: tensor<4xi16>) -> tensor<4xi16> {
  // expected-error@+1 {{element type 'i16' has no NCCL type (f32, f64, f16, bf16, i8, i32, i64)}}
  %0 = shard.all_reduce %a on @grid grid_axes = [0] : tensor<4xi16> -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

