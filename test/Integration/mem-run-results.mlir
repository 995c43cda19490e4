// How results print: the first 0-d float result is the loss, other 0-d
// results follow on the step line as result<k> (floats %.9e, integers in
// decimal), and every other result is summarized after the last step
// (i1 elements count as 0 or 1).
//
// x = arg0 = [0.8910, 0.6665, 0.3519, -0.0104, -0.3713, -0.6820]
// (memrun_init.init_float_arg(0, [6])): three positive elements, and relu(x)
// keeps them.
// RUN: mem-run %s --steps 2 | FileCheck %s
// CHECK:      step 1: result0 = 6 loss = 1.500000000e+00 result3 = -3{{$}}
// CHECK-NEXT: step 2: result0 = 6 loss = 1.500000000e+00 result3 = -3{{$}}
// CHECK-NEXT: result 1: sum = 3.000000000e+00 sumsq = 3.000000000e+00{{$}}
// CHECK-NEXT: result 4: sum = 1.909406304e+00 sumsq = 1.361973375e+00{{$}}
// CHECK-NEXT: params_checksum: 0.000000000e+00{{$}}

#id = affine_map<(i) -> (i)>
func.func @step(%x: tensor<6xf32>) -> (tensor<i32>, tensor<6xi1>, tensor<f64>, tensor<i8>, tensor<6xf32>) {
  %six = arith.constant dense<6> : tensor<i32>
  %c0 = arith.constant 0 : i32
  %e0 = tensor.empty() : tensor<i32>
  %n = linalg.add ins(%six, %six : tensor<i32>, tensor<i32>) outs(%e0 : tensor<i32>) -> tensor<i32>
  %n2 = linalg.sub ins(%n, %six : tensor<i32>, tensor<i32>) outs(%e0 : tensor<i32>) -> tensor<i32>
  %zero = arith.constant 0.0 : f32
  %em = tensor.empty() : tensor<6xi1>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<6xf32>) outs(%em : tensor<6xi1>) {
  ^bb0(%a: f32, %o: i1):
    %c = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %c : i1
  } -> tensor<6xi1>
  %h = arith.constant dense<0.75> : tensor<f64>
  %ed = tensor.empty() : tensor<f64>
  %loss = linalg.add ins(%h, %h : tensor<f64>, tensor<f64>) outs(%ed : tensor<f64>) -> tensor<f64>
  %m3 = arith.constant dense<-3> : tensor<i8>
  %e8 = tensor.empty() : tensor<i8>
  %z8 = arith.constant dense<0> : tensor<i8>
  %r8 = linalg.add ins(%m3, %z8 : tensor<i8>, tensor<i8>) outs(%e8 : tensor<i8>) -> tensor<i8>
  %y = train.relu %x : tensor<6xf32>
  return %n2, %mask, %loss, %r8, %y : tensor<i32>, tensor<6xi1>, tensor<f64>, tensor<i8>, tensor<6xf32>
}
