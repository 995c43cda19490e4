// RUN: mem-opt %s -split-input-file --test-print-op-interfaces -o /dev/null | FileCheck %s

// The cost, aliasing and precision-class interfaces of every train op. The
// expected numbers follow the documented formulas (ODS descriptions and
// TrainInterfaces.td): n elements of type T take n * ceil(bitwidth(T) / 8)
// bytes (f32 4, bf16/f16 2, f8/i8/i1 1, i32 4, i64 8); read = all operands,
// written = all results plus operands updated in place; views read and write
// nothing; param/opt_state write nothing; free reads nothing. Workspace is
// the list of scratch buffers the CPU lowering allocates (`buffers=[...]`,
// bytes each, documented in each op's description); e.g. softmax over rows
// of 30 f32 keeps a row maximum and a row sum of 4 * 30 = 120 B each. Shapes are non-square with distinct
// dimensions so that a swapped dimension changes the numbers.
//
// One function per split: the print pass runs on functions in parallel and
// writes to stdout, so functions of one module may interleave their lines.

// CHECK-LABEL: func @state
// CHECK-NEXT:  train.param loc("w"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.opt_state loc("m"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.cast loc("cast_bf16"): flops=60 read=240 written=120 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.cast loc("cast_f8"): flops=60 read=240 written=60 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.cast loc("cast_e5"): flops=60 read=120 written=60 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.free loc("free_a"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.free loc("free_m"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe{{$}}
func.func @state(%a: tensor<6x10xf32>, %mask: tensor<6x10xi1>, %h: tensor<6x10xf16>) {
  // w: names an existing buffer: no bytes
  %w = train.param "w" : tensor<24x40xf32> loc("w")
  // m: names an existing buffer: no bytes
  %m = train.opt_state "m" : tensor<24x40xf32> loc("m")
  // cast_bf16: 1 FLOP/element (implemented, not documented); read 60*4, write 60*2
  %c0 = train.cast %a : tensor<6x10xf32> -> tensor<6x10xbf16> loc("cast_bf16")
  // cast_f8: read 60*4, write 60*1
  %c1 = train.cast %a : tensor<6x10xf32> -> tensor<6x10xf8E4M3FN> loc("cast_f8")
  // cast_e5: read 60*2, write 60*1
  %c2 = train.cast %h : tensor<6x10xf16> -> tensor<6x10xf8E5M2> loc("cast_e5")
  // free_a: a free moves no bytes
  train.free %a : tensor<6x10xf32> loc("free_a")
  train.free %mask : tensor<6x10xi1> loc("free_m")
  return
}

// -----

// CHECK-LABEL: func @elementwise
// CHECK-NEXT:  train.add loc("add"): flops=60 read=480 written=240 workspace=0 precision=promote-to-widest{{$}}
// CHECK-NEXT:  train.add loc("add_mixed"): flops=60 read=360 written=240 workspace=0 precision=promote-to-widest{{$}}
// CHECK-NEXT:  train.sub loc("sub_mixed"): flops=60 read=180 written=120 workspace=0 precision=promote-to-widest{{$}}
// CHECK-NEXT:  train.mul loc("mul_f8"): flops=60 read=120 written=240 workspace=0 precision=promote-to-widest{{$}}
// CHECK-NEXT:  train.scale loc("scale"): flops=42 read=84 written=84 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.bias_add loc("bias_add"): flops=504 read=1024 written=2016 workspace=0 precision=promote-to-widest{{$}}
// CHECK-NEXT:  train.relu loc("relu"): flops=60 read=240 written=240 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.gelu loc("gelu"): flops=336 read=84 written=84 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.gelu loc("gelu_tanh"): flops=336 read=84 written=84 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.silu loc("silu"): flops=160 read=80 written=80 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.swiglu loc("swiglu"): flops=210 read=168 written=84 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.softmax loc("softmax"): flops=1050 read=840 written=840 workspace=240 buffers=[120, 120] precision=keep-fp32{{$}}
// CHECK-NEXT:  train.softmax loc("softmax_causal"): flops=1050 read=840 written=840 workspace=240 buffers=[120, 120] precision=keep-fp32{{$}}
func.func @elementwise(%x: tensor<6x10xf32>, %bf: tensor<6x10xbf16>, %h: tensor<6x10xf16>, %f8: tensor<6x10xf8E4M3FN>, %e5: tensor<6x10xf8E5M2>, %s: tensor<3x14xbf16>, %f: tensor<5x8xf16>, %c: tensor<2x4x7x9xbf16>, %cb: tensor<4xf32>, %sm: tensor<2x3x5x7xf32>) {
  // add: 1 FLOP/element; read 2*60*4
  %0 = train.add %x, %x : tensor<6x10xf32> loc("add")
  // add_mixed: read 60*2 + 60*4, write f32
  %1 = train.add %bf, %x : tensor<6x10xbf16>, tensor<6x10xf32> -> tensor<6x10xf32> loc("add_mixed")
  // sub_mixed: read 60*2 + 60*1
  %2 = train.sub %h, %f8 : tensor<6x10xf16>, tensor<6x10xf8E4M3FN> -> tensor<6x10xf16> loc("sub_mixed")
  // mul_f8: two fp8 formats promote to f32
  %3 = train.mul %f8, %e5 : tensor<6x10xf8E4M3FN>, tensor<6x10xf8E5M2> -> tensor<6x10xf32> loc("mul_f8")
  // scale: 1 FLOP/element of tensor<3x14xbf16>
  %4 = train.scale %s {factor = 5.000000e-01 : f64} : tensor<3x14xbf16> loc("scale")
  // bias_add: read 504*2 + 4*4, write 504*4
  %5 = train.bias_add %c, %cb {dim = 1 : i64} : tensor<2x4x7x9xbf16>, tensor<4xf32> -> tensor<2x4x7x9xf32> loc("bias_add")
  %6 = train.relu %x : tensor<6x10xf32> loc("relu")
  // gelu: 8 FLOPs/element
  %7 = train.gelu %s : tensor<3x14xbf16> loc("gelu")
  %8 = train.gelu %s {approximate} : tensor<3x14xbf16> loc("gelu_tanh")
  // silu: 4 FLOPs/element
  %9 = train.silu %f : tensor<5x8xf16> loc("silu")
  // swiglu: 5 FLOPs/element; reads gate and up
  %10 = train.swiglu %s, %s : tensor<3x14xbf16> loc("swiglu")
  // softmax: 5 FLOPs/element
  %11 = train.softmax %sm : tensor<2x3x5x7xf32> loc("softmax")
  // softmax_causal: causal does not change the count
  %12 = train.softmax %sm {causal, scale = 1.250000e-01 : f64} : tensor<2x3x5x7xf32> loc("softmax_causal")
  return
}

// -----

// CHECK-LABEL: func @norms
// CHECK-NEXT:  train.layer_norm loc("layer_norm"): flops=1440 read=408 written=480 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.rms_norm loc("rms_norm"): flops=900 read=384 written=420 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.batch_norm loc("batch_norm"): flops=1440 read=768 written=768 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.dropout loc("dropout_i8"): flops=120 read=120 written=180 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.dropout loc("dropout_i1"): flops=72 read=144 written=180 workspace=0 precision=low-precision-safe{{$}}
func.func @norms(%x: tensor<3x5x12xbf16>, %g: tensor<12xbf16>, %b: tensor<12xbf16>, %c: tensor<2x6x5x3xf32>, %cg: tensor<6xf32>, %cb: tensor<6xf32>, %d: tensor<6x10xbf16>, %df: tensor<4x9xf32>) {
  // layer_norm: 8 FLOPs/element; read 180*2 + 2*12*2; write 180*2 + 2*15*4
  %y, %mean, %rstd = train.layer_norm %x, %g, %b : tensor<3x5x12xbf16>, tensor<12xbf16>, tensor<12xbf16> -> tensor<3x5x12xbf16>, tensor<3x5xf32>, tensor<3x5xf32> loc("layer_norm")
  // rms_norm: 5 FLOPs/element
  %y2, %rstd2 = train.rms_norm %x, %g : tensor<3x5x12xbf16>, tensor<12xbf16> -> tensor<3x5x12xbf16>, tensor<3x5xf32> loc("rms_norm")
  // batch_norm: 8 FLOPs/element
  %y3, %mean3, %rstd3 = train.batch_norm %c, %cg, %cb : tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32> loc("batch_norm")
  // dropout_i8: 2 FLOPs/element; write 60*2 + 60*1 (mask)
  %y4, %mask4 = train.dropout %d {id = 1 : i64, rate = 1.000000e-01 : f64} : tensor<6x10xbf16> -> tensor<6x10xbf16>, tensor<6x10xi8> loc("dropout_i8")
  // dropout_i1: an i1 mask takes 1 byte per element
  %y5, %mask5 = train.dropout %df {id = 2 : i64, rate = 2.500000e-01 : f64} : tensor<4x9xf32> -> tensor<4x9xf32>, tensor<4x9xi1> loc("dropout_i1")
  return
}

// -----

// CHECK-LABEL: func @linalg
// CHECK-NEXT:  train.matmul loc("mm"): flops=1680 read=800 written=336 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.matmul loc("mm_tl"): flops=1680 read=800 written=336 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.matmul loc("mm_shared_rhs"): flops=6720 read=1520 written=1344 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.matmul loc("mm_tr"): flops=3360 read=1152 written=840 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.matmul loc("mm_tt"): flops=3360 read=1092 written=480 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.embedding loc("emb"): flops=0 read=2520 written=720 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.embedding loc("emb_bf16"): flops=0 read=1228 written=168 workspace=0 precision=low-precision-safe{{$}}
func.func @linalg(%x: tensor<6x10xf32>, %w: tensor<10x14xf32>, %xt: tensor<10x6xf32>, %q: tensor<2x3x5x8xbf16>, %k: tensor<2x3x7x8xbf16>, %s: tensor<2x3x5x7xbf16>, %b3: tensor<4x6x10xf32>, %t: tensor<50x12xf32>, %ids: tensor<3x5xi64>, %th: tensor<50x12xbf16>, %ids32: tensor<7xi32>) {
  // mm: 2*M*N*K = 2*6*14*10
  %0 = train.matmul %x, %w : tensor<6x10xf32>, tensor<10x14xf32> -> tensor<6x14xf32> loc("mm")
  // mm_tl: lhs is K x M = 10x6: 2*6*14*10
  %1 = train.matmul %xt, %w {transpose_lhs} : tensor<10x6xf32>, tensor<10x14xf32> -> tensor<6x14xf32> loc("mm_tl")
  // mm_shared_rhs: rhs shared by 4 batches: 4*2*6*14*10
  %2 = train.matmul %b3, %w : tensor<4x6x10xf32>, tensor<10x14xf32> -> tensor<4x6x14xf32> loc("mm_shared_rhs")
  // mm_tr: B=2*3, M=5, N=7, K=8; f32 accumulation result
  %3 = train.matmul %q, %k {transpose_rhs} : tensor<2x3x5x8xbf16>, tensor<2x3x7x8xbf16> -> tensor<2x3x5x7xf32> loc("mm_tr")
  // mm_tt: B=2*3, M=8, N=5, K=7
  %4 = train.matmul %k, %s {transpose_lhs, transpose_rhs} : tensor<2x3x7x8xbf16>, tensor<2x3x5x7xbf16> -> tensor<2x3x8x5xbf16> loc("mm_tt")
  // emb: no FLOPs; read 50*12*4 + 15*8
  %5 = train.embedding %t, %ids : tensor<50x12xf32>, tensor<3x5xi64> -> tensor<3x5x12xf32> loc("emb")
  // emb_bf16: read 50*12*2 + 7*4
  %6 = train.embedding %th, %ids32 : tensor<50x12xbf16>, tensor<7xi32> -> tensor<7x12xbf16> loc("emb_bf16")
  return
}

// -----

// CHECK-LABEL: func @attention
// CHECK-NEXT:  train.attention loc("attn"): flops=13440 read=1856 written=1200 workspace=3840 buffers=[1680, 240, 1920] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.attention loc("attn_causal"): flops=6720 read=1856 written=1200 workspace=3840 buffers=[1680, 240, 1920] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.attention loc("attn_mha"): flops=38016 read=23808 written=7344 workspace=5184 buffers=[4752, 432] precision=low-precision-safe{{$}}
// Tiles of 3 query rows (the largest divisor of Sq = 9 not above block_rows = 4):
// one tile's scores and row maxima.
// CHECK-NEXT:  train.attention loc("attn_mha_tiled"): flops=38016 read=23808 written=7344 workspace=1728 buffers=[1584, 144] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.rotary loc("rotary"): flops=2880 read=960 written=960 workspace=1120 buffers=[80, 80, 480, 480] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.rotary loc("rotary_f32"): flops=120 read=80 written=80 workspace=160 buffers=[40, 40, 40, 40] precision=low-precision-safe{{$}}
func.func @attention(%q: tensor<2x6x5x8xbf16>, %k: tensor<2x2x7x8xbf16>, %v: tensor<2x2x7x8xbf16>, %mq: tensor<3x4x9x16xf32>, %mk: tensor<3x4x11x16xf32>, %r: tensor<5x4xf32>) {
  // attn: 4*B*Hq*Sq*Sk*D = 4*2*6*5*7*8; write out + fp32 lse
  %o, %lse = train.attention %q, %k, %v {scale = 5.000000e-01 : f64} : tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16> -> tensor<2x6x5x8xbf16>, tensor<2x6x5xf32> loc("attn")
  // attn_causal: halved when causal
  %oc, %lsec = train.attention %q, %k, %v {causal, scale = 5.000000e-01 : f64} : tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16> -> tensor<2x6x5x8xbf16>, tensor<2x6x5xf32> loc("attn_causal")
  // attn_mha: 4*3*4*9*11*16 / 2
  %om, %lsem = train.attention %mq, %mk, %mk {causal, scale = 2.500000e-01 : f64} : tensor<3x4x9x16xf32>, tensor<3x4x11x16xf32>, tensor<3x4x11x16xf32> -> tensor<3x4x9x16xf32>, tensor<3x4x9xf32> loc("attn_mha")
  %ot, %lset = train.attention %mq, %mk, %mk {block_rows = 4 : i64, causal, scale = 2.500000e-01 : f64} : tensor<3x4x9x16xf32>, tensor<3x4x11x16xf32>, tensor<3x4x11x16xf32> -> tensor<3x4x9x16xf32>, tensor<3x4x9xf32> loc("attn_mha_tiled")
  // rotary: 6 FLOPs/element
  %r0 = train.rotary %q : tensor<2x6x5x8xbf16> loc("rotary")
  %r1 = train.rotary %r {theta = 5.000000e+05 : f64} : tensor<5x4xf32> loc("rotary_f32")
  return
}

// -----

// CHECK-LABEL: func @losses
// CHECK-NEXT:  train.cross_entropy loc("ce"): flops=825 read=780 written=4 workspace=128 buffers=[60, 60, 4, 4] precision=keep-fp32{{$}}
// CHECK-NEXT:  train.cross_entropy loc("ce_bf16"): flops=385 read=182 written=2 workspace=64 buffers=[28, 28, 4, 4] precision=keep-fp32{{$}}
// CHECK-NEXT:  train.mse_loss loc("mse"): flops=180 read=480 written=4 workspace=4 buffers=[4] precision=keep-fp32{{$}}
// CHECK-NEXT:  train.reduce_sum loc("rsum"): flops=180 read=720 written=48 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.reduce_sum loc("rsum_mid"): flops=180 read=720 written=144 workspace=0 precision=keep-fp32{{$}}
func.func @losses(%l: tensor<3x5x11xf32>, %y: tensor<3x5xi64>, %lh: tensor<7x11xbf16>, %yh: tensor<7xi32>, %a: tensor<6x10xf32>, %t: tensor<6x10xf32>, %r: tensor<3x5x12xf32>) {
  // ce: 5 FLOPs/logit; write a 0-d f32
  %0 = train.cross_entropy %l, %y : tensor<3x5x11xf32>, tensor<3x5xi64> -> tensor<f32> loc("ce")
  %1 = train.cross_entropy %lh, %yh : tensor<7x11xbf16>, tensor<7xi32> -> tensor<bf16> loc("ce_bf16")
  // mse: 3 FLOPs/element
  %2 = train.mse_loss %a, %t : tensor<6x10xf32>, tensor<6x10xf32> -> tensor<f32> loc("mse")
  // rsum: 1 FLOP per input element
  %3 = train.reduce_sum %r {dims = array<i64: 0, 1>} : tensor<3x5x12xf32> -> tensor<12xf32> loc("rsum")
  %4 = train.reduce_sum %r {dims = array<i64: 1>} : tensor<3x5x12xf32> -> tensor<3x12xf32> loc("rsum_mid")
  return
}

// -----

// CHECK-LABEL: func @shapes
// CHECK-NEXT:  train.reshape loc("reshape"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe view(result 0 of operand 0){{$}}
// CHECK-NEXT:  train.transpose loc("transpose"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe view(result 0 of operand 0){{$}}
// CHECK-NEXT:  train.slice loc("slice"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe view(result 0 of operand 0){{$}}
// CHECK-NEXT:  train.reshape loc("reshape_i1"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe view(result 0 of operand 0){{$}}
// CHECK-NEXT:  train.concat loc("concat"): flops=0 read=1960 written=1960 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.concat loc("concat3"): flops=0 read=360 written=360 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.concat loc("concat_i1"): flops=0 read=120 written=120 workspace=0 precision=low-precision-safe{{$}}
func.func @shapes(%x: tensor<3x5x12xf32>, %q: tensor<2x7x3x4xbf16>, %m: tensor<6x10xi1>, %a: tensor<2x3x7x5xf32>, %b: tensor<2x4x7x5xf32>, %h: tensor<6x10xbf16>) {
  // reshape: a view: no bytes
  %0 = train.reshape %x : tensor<3x5x12xf32> -> tensor<15x12xf32> loc("reshape")
  %1 = train.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x7x3x4xbf16> -> tensor<2x3x7x4xbf16> loc("transpose")
  %2 = train.slice %x {offsets = array<i64: 0, 1, 1>, strides = array<i64: 2, 3, 4>} : tensor<3x5x12xf32> -> tensor<2x2x3xf32> loc("slice")
  %3 = train.reshape %m : tensor<6x10xi1> -> tensor<60xi1> loc("reshape_i1")
  // concat: copies: read 210*4 + 280*4
  %4 = train.concat %a, %b {axis = 1 : i64} : tensor<2x3x7x5xf32>, tensor<2x4x7x5xf32> -> tensor<2x7x7x5xf32> loc("concat")
  %5 = train.concat %h, %h, %h {axis = 1 : i64} : tensor<6x10xbf16>, tensor<6x10xbf16>, tensor<6x10xbf16> -> tensor<6x30xbf16> loc("concat3")
  // concat_i1: i1 takes 1 byte per element
  %6 = train.concat %m, %m {axis = 0 : i64} : tensor<6x10xi1>, tensor<6x10xi1> -> tensor<12x10xi1> loc("concat_i1")
  return
}

// -----

// CHECK-LABEL: func @conv
// CHECK-NEXT:  train.conv2d loc("conv"): flops=233280 read=9744 written=5184 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.conv2d loc("conv_grouped"): flops=12960 read=7512 written=1440 workspace=8112 buffers=[8112] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.conv2d loc("conv_1x1"): flops=4032 read=3480 written=672 workspace=1344 buffers=[1344] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.max_pool2d loc("maxpool"): flops=720 read=2880 written=720 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.max_pool2d loc("maxpool_3x2"): flops=3240 read=2880 written=2160 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.avg_pool2d loc("avgpool"): flops=252 read=504 written=8 workspace=16 buffers=[16] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.avg_pool2d loc("avgpool_pad"): flops=1440 read=2880 written=720 workspace=4704 buffers=[4704] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.upsample_nearest2d loc("upsample"): flops=0 read=240 written=960 workspace=0 precision=low-precision-safe{{$}}
func.func @conv(%x: tensor<2x6x11x13xf32>, %w: tensor<8x6x3x5xf32>, %wg: tensor<9x2x3x3xf32>, %xh: tensor<2x6x11x13xbf16>, %wh: tensor<4x6x1x1xbf16>, %p: tensor<2x3x12x10xf32>, %ph: tensor<1x4x7x9xf16>, %u: tensor<2x3x4x5xbf16>) {
  // conv: 2*N*O*OH*OW*(C/groups)*KH*KW = 2*2*8*9*9*6*3*5
  %0 = train.conv2d %x, %w : tensor<2x6x11x13xf32>, tensor<8x6x3x5xf32> -> tensor<2x8x9x9xf32> loc("conv")
  // conv_grouped: 2*2*9*5*4*(6/3)*3*3
  %1 = train.conv2d %x, %wg {dilation = array<i64: 2, 1>, groups = 3 : i64, padding = array<i64: 1, 0>, strides = array<i64: 2, 3>} : tensor<2x6x11x13xf32>, tensor<9x2x3x3xf32> -> tensor<2x9x5x4xf32> loc("conv_grouped")
  // conv_1x1: 2*2*4*6*7*6*1*1
  %2 = train.conv2d %xh, %wh {strides = array<i64: 2, 2>} : tensor<2x6x11x13xbf16>, tensor<4x6x1x1xbf16> -> tensor<2x4x6x7xbf16> loc("conv_1x1")
  // maxpool: KH*KW FLOPs per output element
  %3 = train.max_pool2d %p {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x12x10xf32> -> tensor<2x3x6x5xf32> loc("maxpool")
  %4 = train.max_pool2d %p {kernel = array<i64: 3, 2>} : tensor<2x3x12x10xf32> -> tensor<2x3x10x9xf32> loc("maxpool_3x2")
  %5 = train.avg_pool2d %ph {kernel = array<i64: 7, 9>} : tensor<1x4x7x9xf16> -> tensor<1x4x1x1xf16> loc("avgpool")
  %6 = train.avg_pool2d %p {kernel = array<i64: 2, 4>, padding = array<i64: 1, 2>, strides = array<i64: 3, 2>} : tensor<2x3x12x10xf32> -> tensor<2x3x5x6xf32> loc("avgpool_pad")
  // upsample: no FLOPs
  %7 = train.upsample_nearest2d %u {scale = 2 : i64} : tensor<2x3x4x5xbf16> -> tensor<2x3x8x10xbf16> loc("upsample")
  return
}

// -----

// CHECK-LABEL: func @activation_grads
// CHECK-NEXT:  train.relu_grad loc("relu_grad"): flops=60 read=480 written=240 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.gelu_grad loc("gelu_grad"): flops=504 read=168 written=84 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.silu_grad loc("silu_grad"): flops=360 read=480 written=240 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.swiglu_grad loc("swiglu_grad"): flops=420 read=252 written=168 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.softmax_grad loc("softmax_grad"): flops=840 read=1680 written=840 workspace=120 buffers=[120] precision=keep-fp32{{$}}
func.func @activation_grads(%d: tensor<6x10xf32>, %s: tensor<6x10xf32>, %dh: tensor<3x14xbf16>, %sh: tensor<3x14xbf16>, %dp: tensor<2x3x5x7xf32>, %p: tensor<2x3x5x7xf32>) {
  // relu_grad: 1 FLOP/element
  %0 = train.relu_grad %d, %s : tensor<6x10xf32> loc("relu_grad")
  // gelu_grad: 12 FLOPs/element
  %1 = train.gelu_grad %dh, %sh {approximate} : tensor<3x14xbf16> loc("gelu_grad")
  // silu_grad: 6 FLOPs/element
  %2 = train.silu_grad %d, %s : tensor<6x10xf32> loc("silu_grad")
  // swiglu_grad: 10 FLOPs/element; two results
  %3, %4 = train.swiglu_grad %dh, %sh, %sh : tensor<3x14xbf16>, tensor<3x14xbf16>, tensor<3x14xbf16> -> tensor<3x14xbf16>, tensor<3x14xbf16> loc("swiglu_grad")
  // softmax_grad: 4 FLOPs/element
  %5 = train.softmax_grad %dp, %p {scale = 1.250000e-01 : f64} : tensor<2x3x5x7xf32> loc("softmax_grad")
  return
}

// -----

// CHECK-LABEL: func @norm_grads
// CHECK-NEXT:  train.layer_norm_grad loc("layer_norm_grad"): flops=2160 read=888 written=456 workspace=120 buffers=[60, 60] precision=keep-fp32{{$}}
// CHECK-NEXT:  train.rms_norm_grad loc("rms_norm_grad"): flops=1620 read=828 written=408 workspace=60 buffers=[60] precision=keep-fp32{{$}}
// CHECK-NEXT:  train.batch_norm_grad loc("batch_norm_grad"): flops=2160 read=1512 written=768 workspace=48 buffers=[24, 24] precision=keep-fp32{{$}}
// CHECK-NEXT:  train.dropout_grad loc("dropout_grad"): flops=120 read=180 written=120 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.dropout_grad loc("dropout_grad_i1"): flops=72 read=180 written=144 workspace=0 precision=low-precision-safe{{$}}
func.func @norm_grads(%d: tensor<3x5x12xbf16>, %x: tensor<3x5x12xbf16>, %g: tensor<12xf32>, %mean: tensor<3x5xf32>, %rstd: tensor<3x5xf32>, %dc: tensor<2x6x5x3xf32>, %xc: tensor<2x6x5x3xf32>, %gc: tensor<6xf32>, %d8: tensor<6x10xbf16>, %m8: tensor<6x10xi8>, %d1: tensor<4x9xf32>, %m1: tensor<4x9xi1>) {
  // layer_norm_grad: 12 FLOPs per input element
  %0, %1, %2 = train.layer_norm_grad %d, %x, %g, %mean, %rstd : tensor<3x5x12xbf16>, tensor<3x5x12xbf16>, tensor<12xf32>, tensor<3x5xf32>, tensor<3x5xf32> -> tensor<3x5x12xbf16>, tensor<12xf32>, tensor<12xf32> loc("layer_norm_grad")
  // rms_norm_grad: 9 FLOPs per input element
  %3, %4 = train.rms_norm_grad %d, %x, %g, %rstd : tensor<3x5x12xbf16>, tensor<3x5x12xbf16>, tensor<12xf32>, tensor<3x5xf32> -> tensor<3x5x12xbf16>, tensor<12xf32> loc("rms_norm_grad")
  // batch_norm_grad: 12 FLOPs per input element
  %5, %6, %7 = train.batch_norm_grad %dc, %xc, %gc, %gc, %gc : tensor<2x6x5x3xf32>, tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32> loc("batch_norm_grad")
  // dropout_grad: 2 FLOPs/element
  %8 = train.dropout_grad %d8, %m8 {rate = 1.000000e-01 : f64} : tensor<6x10xbf16>, tensor<6x10xi8> -> tensor<6x10xbf16> loc("dropout_grad")
  %9 = train.dropout_grad %d1, %m1 {rate = 5.000000e-01 : f64} : tensor<4x9xf32>, tensor<4x9xi1> -> tensor<4x9xf32> loc("dropout_grad_i1")
  return
}

// -----

// CHECK-LABEL: func @loss_grads
// CHECK-NEXT:  train.embedding_grad loc("embedding_grad"): flops=180 read=840 written=2400 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.cross_entropy_grad loc("ce_grad"): flops=990 read=784 written=660 workspace=120 buffers=[60, 60] precision=keep-fp32{{$}}
// CHECK-NEXT:  train.mse_loss_grad loc("mse_grad"): flops=180 read=484 written=240 workspace=0 precision=keep-fp32{{$}}
func.func @loss_grads(%de: tensor<3x5x12xf32>, %ids: tensor<3x5xi64>, %dl: tensor<f32>, %l: tensor<3x5x11xf32>, %a: tensor<6x10xf32>, %t: tensor<6x10xf32>) {
  // embedding_grad: 1 FLOP per element of grad; write the 50x12 table
  %0 = train.embedding_grad %de, %ids : tensor<3x5x12xf32>, tensor<3x5xi64> -> tensor<50x12xf32> loc("embedding_grad")
  // ce_grad: 6 FLOPs/logit
  %1 = train.cross_entropy_grad %dl, %l, %ids : tensor<f32>, tensor<3x5x11xf32>, tensor<3x5xi64> -> tensor<3x5x11xf32> loc("ce_grad")
  // mse_grad: 3 FLOPs/element
  %2 = train.mse_loss_grad %dl, %a, %t : tensor<f32>, tensor<6x10xf32>, tensor<6x10xf32> -> tensor<6x10xf32> loc("mse_grad")
  return
}

// -----

// CHECK-LABEL: func @conv_grads
// CHECK-NEXT:  train.conv2d_grad_input loc("conv_gi"): flops=233280 read=8064 written=6864 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.conv2d_grad_input loc("conv_gi_grouped"): flops=12960 read=2088 written=6864 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.conv2d_grad_filter loc("conv_gf"): flops=233280 read=12048 written=2880 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.conv2d_grad_filter loc("conv_gf_grouped"): flops=12960 read=8304 written=648 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.max_pool2d_grad loc("maxpool_grad"): flops=720 read=3600 written=2880 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.max_pool2d_grad loc("maxpool_grad_3x3"): flops=1620 read=3600 written=2880 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.avg_pool2d_grad loc("avgpool_grad"): flops=252 read=8 written=504 workspace=1008 buffers=[1008] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.avg_pool2d_grad loc("avgpool_grad_2x2"): flops=720 read=720 written=2880 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.upsample_nearest2d_grad loc("upsample_grad"): flops=480 read=960 written=240 workspace=480 buffers=[480] precision=low-precision-safe{{$}}
func.func @conv_grads(%dy: tensor<2x8x9x9xf32>, %w: tensor<8x6x3x5xf32>, %x: tensor<2x6x11x13xf32>, %dyg: tensor<2x9x5x4xf32>, %wg: tensor<9x2x3x3xf32>, %dp: tensor<2x3x6x5xf32>, %p: tensor<2x3x12x10xf32>, %dph: tensor<1x4x1x1xf16>, %du: tensor<2x3x8x10xbf16>) {
  // conv_gi: the forward FLOPs
  %0 = train.conv2d_grad_input %dy, %w : tensor<2x8x9x9xf32>, tensor<8x6x3x5xf32> -> tensor<2x6x11x13xf32> loc("conv_gi")
  %1 = train.conv2d_grad_input %dyg, %wg {dilation = array<i64: 2, 1>, groups = 3 : i64, padding = array<i64: 1, 0>, strides = array<i64: 2, 3>} : tensor<2x9x5x4xf32>, tensor<9x2x3x3xf32> -> tensor<2x6x11x13xf32> loc("conv_gi_grouped")
  %2 = train.conv2d_grad_filter %dy, %x : tensor<2x8x9x9xf32>, tensor<2x6x11x13xf32> -> tensor<8x6x3x5xf32> loc("conv_gf")
  %3 = train.conv2d_grad_filter %dyg, %x {dilation = array<i64: 2, 1>, groups = 3 : i64, padding = array<i64: 1, 0>, strides = array<i64: 2, 3>} : tensor<2x9x5x4xf32>, tensor<2x6x11x13xf32> -> tensor<9x2x3x3xf32> loc("conv_gf_grouped")
  // maxpool_grad: KH*KW FLOPs per element of grad
  %4 = train.max_pool2d_grad %dp, %p {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x6x5xf32>, tensor<2x3x12x10xf32> -> tensor<2x3x12x10xf32> loc("maxpool_grad")
  %5 = train.max_pool2d_grad %dp, %p {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x6x5xf32>, tensor<2x3x12x10xf32> -> tensor<2x3x12x10xf32> loc("maxpool_grad_3x3")
  %6 = train.avg_pool2d_grad %dph {kernel = array<i64: 7, 9>} : tensor<1x4x1x1xf16> -> tensor<1x4x7x9xf16> loc("avgpool_grad")
  %7 = train.avg_pool2d_grad %dp {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x6x5xf32> -> tensor<2x3x12x10xf32> loc("avgpool_grad_2x2")
  // upsample_grad: 1 FLOP per element of grad
  %8 = train.upsample_nearest2d_grad %du {scale = 2 : i64} : tensor<2x3x8x10xbf16> -> tensor<2x3x4x5xbf16> loc("upsample_grad")
  return
}

// -----

// CHECK-LABEL: func @attention_grad
// CHECK-NEXT:  train.attention_grad loc("attn_grad"): flops=33600 read=4016 written=1856 workspace=7312 buffers=[1680, 1680, 240, 1920, 896, 896] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.attention_grad loc("attn_grad_causal"): flops=16800 read=4016 written=1856 workspace=7312 buffers=[1680, 1680, 240, 1920, 896, 896] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.attention_grad loc("attn_grad_mha"): flops=95040 read=38064 written=23808 workspace=9936 buffers=[4752, 4752, 432] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.attention_grad loc("attn_grad_mha_tiled"): flops=95040 read=38064 written=23808 workspace=3312 buffers=[1584, 1584, 144] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.rotary_grad loc("rotary_grad"): flops=2880 read=960 written=960 workspace=1120 buffers=[80, 80, 480, 480] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.slice_grad loc("slice_grad"): flops=0 read=432 written=660 workspace=0 precision=low-precision-safe{{$}}
func.func @attention_grad(%do: tensor<2x6x5x8xbf16>, %q: tensor<2x6x5x8xbf16>, %k: tensor<2x2x7x8xbf16>, %v: tensor<2x2x7x8xbf16>, %o: tensor<2x6x5x8xbf16>, %lse: tensor<2x6x5xf32>, %mdo: tensor<3x4x9x16xf32>, %mq: tensor<3x4x9x16xf32>, %mk: tensor<3x4x11x16xf32>, %mo: tensor<3x4x9x16xf32>, %mlse: tensor<3x4x9xf32>) {
  // attn_grad: 10*B*Hq*Sq*Sk*D; workspace 2*6*5*8*4 + 2*6*5*4 + 2*2*6*7*8*2 (GQA, bf16 keys)
  %0, %1, %2 = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 5.000000e-01 : f64} : tensor<2x6x5x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x6x5xf32> -> tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16> loc("attn_grad")
  // attn_grad_causal: halved when causal
  %3, %4, %5 = train.attention_grad %do, %q, %k, %v, %o, %lse {causal, scale = 5.000000e-01 : f64} : tensor<2x6x5x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x6x5xf32> -> tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16> loc("attn_grad_causal")
  // attn_grad_mha: Hkv = Hq: no per-head dk/dv; workspace 3*4*9*16*4 + 3*4*9*4
  %6, %7, %8 = train.attention_grad %mdo, %mq, %mk, %mk, %mo, %mlse {causal, scale = 2.500000e-01 : f64} : tensor<3x4x9x16xf32>, tensor<3x4x9x16xf32>, tensor<3x4x11x16xf32>, tensor<3x4x11x16xf32>, tensor<3x4x9x16xf32>, tensor<3x4x9xf32> -> tensor<3x4x9x16xf32>, tensor<3x4x11x16xf32>, tensor<3x4x11x16xf32> loc("attn_grad_mha")
  %t0, %t1, %t2 = train.attention_grad %mdo, %mq, %mk, %mk, %mo, %mlse {block_rows = 4 : i64, causal, scale = 2.500000e-01 : f64} : tensor<3x4x9x16xf32>, tensor<3x4x9x16xf32>, tensor<3x4x11x16xf32>, tensor<3x4x11x16xf32>, tensor<3x4x9x16xf32>, tensor<3x4x9xf32> -> tensor<3x4x9x16xf32>, tensor<3x4x11x16xf32>, tensor<3x4x11x16xf32> loc("attn_grad_mha_tiled")
  // rotary_grad: 6 FLOPs/element
  %9 = train.rotary_grad %do : tensor<2x6x5x8xbf16> loc("rotary_grad")
  // slice_grad: no FLOPs; writes the whole zero-filled result
  %10 = train.slice_grad %mlse {offsets = array<i64: 0, 1, 2>} : tensor<3x4x9xf32> -> tensor<3x5x11xf32> loc("slice_grad")
  return
}

// -----

// CHECK-LABEL: func @optimizers
// CHECK-NEXT:  train.param loc("p"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.opt_state loc("buf"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.opt_state loc("exp_avg"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.opt_state loc("exp_avg_sq"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.sgd loc("sgd"): flops=2880 read=7680 written=3840 workspace=0 precision=keep-fp32 in-place(operand 0){{$}}
// CHECK-NEXT:  train.sgd loc("sgd_bf16"): flops=2880 read=5760 written=3840 workspace=0 precision=keep-fp32 in-place(operand 0){{$}}
// CHECK-NEXT:  train.sgd loc("sgd_momentum"): flops=4800 read=11520 written=7680 workspace=0 precision=keep-fp32 in-place(operand 0) in-place(operand 2){{$}}
// CHECK-NEXT:  train.adam loc("adam"): flops=11520 read=15368 written=11520 workspace=0 precision=keep-fp32 in-place(operand 0) in-place(operand 2) in-place(operand 3){{$}}
// CHECK-NEXT:  train.adamw loc("adamw"): flops=12480 read=13444 written=11520 workspace=0 precision=keep-fp32 in-place(operand 0) in-place(operand 2) in-place(operand 3){{$}}
// CHECK-NEXT:  train.opt_state loc("acc"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.opt_state loc("index"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.micro_batch_skip loc("skip"): flops=2 read=8 written=1 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.accumulate loc("accumulate"): flops=1920 read=5768 written=3840 workspace=0 precision=keep-fp32 in-place(operand 0){{$}}
// CHECK-NEXT:  train.param loc("host_master"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.opt_state loc("copy"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.refresh loc("refresh"): flops=960 read=5768 written=1920 workspace=0 precision=keep-fp32 in-place(operand 0){{$}}
// CHECK-NEXT:  train.micro_batch_advance loc("advance"): flops=2 read=8 written=8 workspace=0 precision=keep-fp32 in-place(operand 0){{$}}
func.func @optimizers(%dw: tensor<24x40xf32>, %dwh: tensor<24x40xbf16>, %t: tensor<i64>, %tf: tensor<f32>) {
  %w = train.param "w" : tensor<24x40xf32> loc("p")
  %buf = train.opt_state "buf" : tensor<24x40xf32> loc("buf")
  %m = train.opt_state "exp_avg" : tensor<24x40xf32> loc("exp_avg")
  %v = train.opt_state "exp_avg_sq" : tensor<24x40xf32> loc("exp_avg_sq")
  // sgd: 3 FLOPs/element; writes the parameter in place
  train.sgd %w, %dw {lr = 1.000000e-02 : f64} : tensor<24x40xf32>, tensor<24x40xf32> loc("sgd")
  train.sgd %w, %dwh {lr = 1.000000e-02 : f64, weight_decay = 1.000000e-04 : f64} : tensor<24x40xf32>, tensor<24x40xbf16> loc("sgd_bf16")
  // sgd_momentum: 5 FLOPs/element; parameter and buffer in place
  train.sgd %w, %dw momentum(%buf : tensor<24x40xf32>) {lr = 1.000000e-02 : f64, momentum = 9.000000e-01 : f64} : tensor<24x40xf32>, tensor<24x40xf32> loc("sgd_momentum")
  // adam: 12 FLOPs/element; read includes the 8-byte step
  train.adam %w, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32> loc("adam")
  // adamw: 13 FLOPs/element; bf16 grad, f32 step
  train.adamw %w, %dwh, %m, %v step(%tf : tensor<f32>) {lr = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64} : tensor<24x40xf32>, tensor<24x40xbf16>, tensor<24x40xf32>, tensor<24x40xf32> loc("adamw")
  // accumulate: 2 FLOPs/element; reads the buffer, the bf16 gradient and
  // the 8-byte micro-batch index, writes the buffer in place
  %acc = train.opt_state "w.grad_accumulator" : tensor<24x40xf32> loc("acc")
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64> loc("index")
  // micro_batch_skip: reads the index, writes a 1-byte flag
  %skip = train.micro_batch_skip %i {micro_batches = 4 : i64} : tensor<i64> -> tensor<i1> loc("skip")
  train.accumulate %acc, %dwh micro_batch(%i : tensor<i64>) {scale = 2.500000e-01 : f64} : tensor<24x40xf32>, tensor<24x40xbf16> loc("accumulate")
  // refresh: 1 FLOP/element (the conversion); reads the bf16 copy, the
  // host's f32 master and the index, writes the copy in place
  %wh = train.param "wh" {train.space = "host"} : tensor<24x40xf32> loc("host_master")
  %copy = train.opt_state "wh.device_copy" : tensor<24x40xbf16> loc("copy")
  train.refresh %copy, %wh micro_batch(%i : tensor<i64>) : tensor<24x40xbf16>, tensor<24x40xf32> loc("refresh")
  // micro_batch_advance: the index in place
  train.micro_batch_advance %i {micro_batches = 4 : i64} : tensor<i64> loc("advance")
  return
}

// -----

// A reshape is a view only when the new shape can stride over the source
// buffer (PyTorch's `view` rule); merging dimensions that a transpose has
// separated copies into a new buffer, as PyTorch's `reshape` does.
// CHECK-LABEL: func @reshape_views
// CHECK-NEXT:  train.transpose loc("split_heads"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe view(result 0 of operand 0){{$}}
// CHECK-NEXT:  train.reshape loc("merge_heads"): flops=0 read=1536 written=1536 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.reshape loc("split_dim"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe view(result 0 of operand 0){{$}}
// CHECK-NEXT:  train.reshape loc("of_copy"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe view(result 0 of operand 0){{$}}
// CHECK-NEXT:  train.slice loc("cols"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe view(result 0 of operand 0){{$}}
// CHECK-NEXT:  train.reshape loc("flatten_cols"): flops=0 read=128 written=128 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.slice loc("rows"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe view(result 0 of operand 0){{$}}
// CHECK-NEXT:  train.reshape loc("flatten_rows"): flops=0 read=0 written=0 workspace=0 precision=low-precision-safe view(result 0 of operand 0){{$}}
// CHECK-NEXT:  train.broadcast loc("bcast"): flops=0 read=48 written=720 workspace=0 precision=low-precision-safe{{$}}
func.func @reshape_views(%x: tensor<2x4x6x8xf32>, %m: tensor<8x12xf32>, %b: tensor<12xf32>) {
  // [B, H, S, D] -> [B, S, H, D]
  %t = train.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x6x8xf32> -> tensor<2x6x4x8xf32> loc("split_heads")
  // merging H and D, no longer adjacent: copy of 384 f32
  %r = train.reshape %t : tensor<2x6x4x8xf32> -> tensor<2x6x32xf32> loc("merge_heads")
  // splitting D of the transposed view stays a view
  %s = train.reshape %t : tensor<2x6x4x8xf32> -> tensor<2x6x4x2x4xf32> loc("split_dim")
  // a reshape of the (contiguous) copy is a view again
  %c = train.reshape %r : tensor<2x6x32xf32> -> tensor<12x32xf32> loc("of_copy")
  // columns 4..7 of an 8x12 matrix are strided: flattening copies 8*4 f32
  %cols = train.slice %m {offsets = array<i64: 0, 4>} : tensor<8x12xf32> -> tensor<8x4xf32> loc("cols")
  %f = train.reshape %cols : tensor<8x4xf32> -> tensor<32xf32> loc("flatten_cols")
  // rows 2..5 are contiguous: flattening is a view
  %rows = train.slice %m {offsets = array<i64: 2, 0>} : tensor<8x12xf32> -> tensor<4x12xf32> loc("rows")
  %g = train.reshape %rows : tensor<4x12xf32> -> tensor<48xf32> loc("flatten_rows")
  // broadcast copies: read 12*4, write 15*12*4
  %bb = train.broadcast %b {dims = array<i64: 0, 1>} : tensor<12xf32> -> tensor<3x5x12xf32> loc("bcast")
  return
}

// -----

// CHECK-LABEL: func @vocab_parallel
// CHECK-NEXT:  train.embedding loc("emb_part"): flops=0 read=192 written=384 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.embedding_grad loc("emb_part_grad"): flops=96 read=480 written=96 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.row_max loc("row_max"): flops=36 read=72 written=48 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.vocab_parallel_stats loc("stats"): flops=144 read=216 written=96 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.cross_entropy_from_stats loc("from_stats"): flops=24 read=192 written=4 workspace=8 buffers=[4, 4] precision=keep-fp32{{$}}
// CHECK-NEXT:  train.cross_entropy_from_stats_grad loc("from_stats_grad"): flops=24 read=196 written=96 workspace=0 precision=keep-fp32{{$}}
// CHECK-NEXT:  train.cross_entropy_from_stats_grad loc("from_stats_grad_ignore"): flops=24 read=196 written=96 workspace=4 buffers=[4] precision=keep-fp32{{$}}
// CHECK-NEXT:  train.vocab_parallel_stats_grad loc("stats_grad"): flops=108 read=312 written=72 workspace=0 precision=keep-fp32{{$}}
func.func @vocab_parallel(%t: tensor<3x8xf32>, %ids: tensor<3x4xi64>, %x: tensor<3x4x3xbf16>, %y: tensor<3x4xi64>, %g: tensor<f32>) {
  %p = arith.constant 1 : index
  // embedding: the table (96) and the ids (96) read; 12 rows of 8 f32 written
  %e = train.embedding %t, %ids part %p of 2 : tensor<3x8xf32>, tensor<3x4xi64> -> tensor<3x4x8xf32> loc("emb_part")
  // embedding_grad: 1 FLOP per element of grad
  %dt = train.embedding_grad %e, %ids part %p of 2 : tensor<3x4x8xf32>, tensor<3x4xi64> -> tensor<3x8xf32> loc("emb_part_grad")
  // row_max: 1 FLOP/logit; stats: 4 FLOPs/logit; their grad: 3 FLOPs/logit
  %m = train.row_max %x : tensor<3x4x3xbf16> -> tensor<3x4xf32> loc("row_max")
  %s = train.vocab_parallel_stats %x, %m, %y part %p of 2 : tensor<3x4x3xbf16>, tensor<3x4xf32>, tensor<3x4xi64> -> tensor<2x3x4xf32> loc("stats")
  // from_stats and its gradient: 2 FLOPs per position
  %l = train.cross_entropy_from_stats %s, %y : tensor<2x3x4xf32>, tensor<3x4xi64> -> tensor<f32> loc("from_stats")
  %ds = train.cross_entropy_from_stats_grad %g, %s, %y : tensor<f32>, tensor<2x3x4xf32>, tensor<3x4xi64> -> tensor<2x3x4xf32> loc("from_stats_grad")
  %di = train.cross_entropy_from_stats_grad %g, %s, %y {ignore_index = 0 : i64} : tensor<f32>, tensor<2x3x4xf32>, tensor<3x4xi64> -> tensor<2x3x4xf32> loc("from_stats_grad_ignore")
  %dx = train.vocab_parallel_stats_grad %ds, %x, %m, %y part %p of 2 : tensor<2x3x4xf32>, tensor<3x4x3xbf16>, tensor<3x4xf32>, tensor<3x4xi64> -> tensor<3x4x3xbf16> loc("stats_grad")
  return
}

// -----

// CHECK-LABEL: func @gates
// CHECK-NEXT:  train.sigmoid loc("sigmoid"): flops=64 read=32 written=32 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.sigmoid_grad loc("sigmoid_grad"): flops=48 read=64 written=32 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.tanh loc("tanh"): flops=64 read=32 written=32 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.tanh_grad loc("tanh_grad"): flops=48 read=64 written=32 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.hardsigmoid loc("hardsigmoid"): flops=64 read=32 written=32 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.hardsigmoid_grad loc("hardsigmoid_grad"): flops=16 read=64 written=32 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.hardswish loc("hardswish"): flops=80 read=32 written=32 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.hardswish_grad loc("hardswish_grad"): flops=48 read=64 written=32 workspace=0 precision=low-precision-safe{{$}}
func.func @gates(%x: tensor<2x8x1x1xf16>, %d: tensor<2x8x1x1xf16>) {
  // sigmoid and hardsigmoid: 4 FLOPs/element, hardswish 5; 16 elements of 2 bytes
  %0 = train.sigmoid %x : tensor<2x8x1x1xf16> loc("sigmoid")
  // sigmoid_grad: 3 FLOPs/element, reads grad and the saved output
  %1 = train.sigmoid_grad %d, %0 : tensor<2x8x1x1xf16> loc("sigmoid_grad")
  // tanh: 4 FLOPs/element, its gradient 3
  %t = train.tanh %x : tensor<2x8x1x1xf16> loc("tanh")
  %dt = train.tanh_grad %d, %t : tensor<2x8x1x1xf16> loc("tanh_grad")
  %2 = train.hardsigmoid %x : tensor<2x8x1x1xf16> loc("hardsigmoid")
  // hardsigmoid_grad: 1 FLOP/element
  %3 = train.hardsigmoid_grad %d, %x : tensor<2x8x1x1xf16> loc("hardsigmoid_grad")
  %4 = train.hardswish %x : tensor<2x8x1x1xf16> loc("hardswish")
  // hardswish_grad: 3 FLOPs/element
  %5 = train.hardswish_grad %d, %x : tensor<2x8x1x1xf16> loc("hardswish_grad")
  return
}

// -----

// ceil_mode: the -inf-padded copy grows by what the partial windows reach
// past the input: (6 - 1) * 2 + 3 = 13 rows for 12, (5 - 1) * 2 + 3 = 11
// columns for 10, 2*3*13*11*4 bytes; with padding 1 on 6 rows the fourth
// window reaches (4 - 1) * 2 + 3 = 9 = 1 + 6 + 2 padded rows: 9*9*4 bytes.
// CHECK-LABEL: func @max_pool_ceil
// CHECK-NEXT:  train.max_pool2d loc("ceil"): flops=1620 read=2880 written=720 workspace=3432 buffers=[3432] precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.max_pool2d loc("ceil_pad"): flops=144 read=144 written=64 workspace=324 buffers=[324] precision=low-precision-safe{{$}}
func.func @max_pool_ceil(%p: tensor<2x3x12x10xf32>, %q: tensor<1x1x6x6xf32>) {
  %0 = train.max_pool2d %p {ceil_mode, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<2x3x12x10xf32> -> tensor<2x3x6x5xf32> loc("ceil")
  %1 = train.max_pool2d %q {ceil_mode, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<1x1x6x6xf32> -> tensor<1x1x4x4xf32> loc("ceil_pad")
  return
}

// -----

// 8-bit Adam on 64x80 = 5120 elements (3 blocks of 2048, the last partial):
// it reads the parameter, the gradient, the four states (2 x 5120 codes,
// 2 x 3 absmax) and the 8-byte step, 51232 bytes (the bf16 gradient of
// adamw8bit: 10240 fewer), and writes the parameter and the four states in
// place, 20480 + 10264 = 30744 bytes; no workspace (the lowering recomputes
// the moments rather than keeping them). 26 FLOPs/element (27 for adamw8bit).
// CHECK-LABEL: func @optimizers_8bit
// CHECK:       train.adam8bit loc("adam8bit"): flops=133120 read=51232 written=30744 workspace=0 precision=keep-fp32 in-place(operand 0) in-place(operand 2) in-place(operand 3) in-place(operand 4) in-place(operand 5){{$}}
// CHECK-NEXT:  train.adamw8bit loc("adamw8bit"): flops=138240 read=40992 written=30744 workspace=0 precision=keep-fp32 in-place(operand 0) in-place(operand 2) in-place(operand 3) in-place(operand 4) in-place(operand 5){{$}}
func.func @optimizers_8bit(%dw: tensor<64x80xf32>, %dwh: tensor<64x80xbf16>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x80xf32> loc("p")
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x80xi8> loc("mc")
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<3xf32> loc("ma")
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x80xi8> loc("vc")
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<3xf32> loc("va")
  train.adam8bit %w, %dw exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<64x80xf32>, tensor<64x80xf32>, tensor<64x80xi8>, tensor<3xf32>, tensor<64x80xi8>, tensor<3xf32> loc("adam8bit")
  train.adamw8bit %w, %dwh exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64} : tensor<64x80xf32>, tensor<64x80xbf16>, tensor<64x80xi8>, tensor<3xf32>, tensor<64x80xi8>, tensor<3xf32> loc("adamw8bit")
  return
}

// -----

// Quantized frozen weights (train-quantize-frozen) on a 64x80 weight, 5120
// elements in 80 NF4 blocks of 64. With double quantization the op reads
// the 2560 code bytes, 80 absmax codes, one f32 scale and the f32 offset
// (2648 bytes) and writes the f32 weight (20480 bytes): 3 FLOPs an element
// (the product, and the absmax's own product and sum). Without it, 80 f32
// absmaxes (2880 bytes read), 1 FLOP an element, a bf16 result (10240
// bytes). int8 reads a code an element and 80 f32 scales (5440 bytes), 2
// FLOPs an element. No workspace: the lowering writes only the result.
// CHECK-LABEL: func @dequantize
// CHECK:       train.dequantize_nf4 loc("nf4"): flops=15360 read=2648 written=20480 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.dequantize_nf4 loc("nf4_single"): flops=5120 read=2880 written=10240 workspace=0 precision=low-precision-safe{{$}}
// CHECK-NEXT:  train.dequantize_int8 loc("int8"): flops=10240 read=5440 written=20480 workspace=0 precision=low-precision-safe{{$}}
func.func @dequantize() {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<2560xi8> loc("c")
  %q = train.param "w.nf4.absmax" {trainable = false} : tensor<80xi8> loc("q")
  %s = train.param "w.nf4.absmax.scale" {trainable = false} : tensor<1xf32> loc("s")
  %o = train.param "w.nf4.absmax.offset" {trainable = false} : tensor<f32> loc("o")
  %a = train.param "v.nf4.absmax" {trainable = false} : tensor<80xf32> loc("a")
  %ic = train.param "u.int8.codes" {trainable = false} : tensor<64x80xi8> loc("ic")
  %is = train.param "u.int8.scale" {trainable = false} : tensor<80xf32> loc("is")
  %w = train.dequantize_nf4 %c, %q double_quant(%s, %o : tensor<1xf32>, tensor<f32>) {weight = "w"} : tensor<2560xi8>, tensor<80xi8> -> tensor<64x80xf32> loc("nf4")
  %v = train.dequantize_nf4 %c, %a {weight = "v"} : tensor<2560xi8>, tensor<80xf32> -> tensor<64x80xbf16> loc("nf4_single")
  %u = train.dequantize_int8 %ic, %is {axis = 1 : i64, weight = "u"} : tensor<64x80xi8>, tensor<80xf32> -> tensor<64x80xf32> loc("int8")
  return
}
