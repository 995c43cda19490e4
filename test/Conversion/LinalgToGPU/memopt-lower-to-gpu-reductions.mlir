// REQUIRES: cuda-toolkit
// Block reductions through the whole of memopt-lower-to-gpu: the
// gpu.all_reduce ops, outlined into gpu.func kernels, are lowered by
// convert-gpu-to-nvvm to warp shuffles, workgroup (shared) memory and
// barriers, and ptxas assembles the kernels for sm_80 and sm_90.
// RUN: mem-opt %s --memopt-lower-to-gpu='chip=sm_90 format=isa' -o %t.ptx.mlir
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx.mlir
// RUN: grep -c 'gpu.launch_func' %t.ptx.mlir | FileCheck %s --check-prefix=LAUNCHES
// Two barriers per all-reduce, 7 all-reduces (the loss kernel has two).
// RUN: grep -o 'bar.sync' %t.ptx.mlir | wc -l | FileCheck %s --check-prefix=BARRIERS
// RUN: mem-opt %s --memopt-lower-to-gpu='chip=sm_80' | FileCheck %s --check-prefix=SM80 --implicit-check-not=gpu.all_reduce
// RUN: mem-opt %s --memopt-lower-to-gpu='chip=sm_90' | FileCheck %s --check-prefix=SM90 --implicit-check-not=gpu.all_reduce

// PTX: assembly = "{{.*}}.target sm_90
// PTX-SAME: .shared .align 4 .b8 __wg_{{[a-z_0-9]+}}[128]
// PTX-SAME: .shared .align 8 .b8 __wg_{{[a-z_0-9]+}}[256]
// PTX-SAME: shfl.sync.bfly.b32
// PTX-SAME: bar.sync
// LAUNCHES: {{^}}6{{$}}
// BARRIERS: {{^}}14{{$}}
// SM80: gpu.binary @memopt_kernels  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">, properties = {{{.*}}}, bin = "\7FELF
// SM90: gpu.binary @memopt_kernels  [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, properties = {{{.*}}}, bin = "\7FELF

#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1, d0)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @reductions(%x: memref<8x4096xf32>, %rowsum: memref<8xf32>,
                      %y: memref<64x64xf64>, %total: memref<f64>,
                      %h: memref<8x1000xbf16>, %hmax: memref<8xbf16>,
                      %n: memref<8x4096xi32>, %nsum: memref<8xi32>,
                      %g: memref<1024x64xf32>, %bias: memref<64xf32>,
                      %labels: memref<512xindex>, %logits: memref<512x16xf32>,
                      %loss: memref<f32>, %count: memref<f32>) {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [#row, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x4096xf32>) outs(%rowsum : memref<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#row, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%y : memref<64x64xf64>) outs(%total : memref<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %a, %acc : f64
    linalg.yield %s : f64
  }
  linalg.generic {indexing_maps = [#row, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%h : memref<8x1000xbf16>) outs(%hmax : memref<8xbf16>) {
  ^bb0(%a: bf16, %acc: bf16):
    %m = arith.maximumf %acc, %a : bf16
    linalg.yield %m : bf16
  }
  linalg.generic {indexing_maps = [#row, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%n : memref<8x4096xi32>) outs(%nsum : memref<8xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %a, %acc : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#col, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%g : memref<1024x64xf32>) outs(%bias : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%labels : memref<512xindex>) outs(%loss, %count : memref<f32>, memref<f32>) {
  ^bb0(%label: index, %l: f32, %c: f32):
    %i = linalg.index 0 : index
    %v = memref.load %logits[%i, %label] : memref<512x16xf32>
    %s = arith.addf %l, %v : f32
    %t = arith.addf %c, %one : f32
    linalg.yield %s, %t : f32, f32
  }
  return
}
