// Every train op's workspace (the scratch of its CPU lowering, CostOpInterface)
// relative to its largest operand or result, on reference shapes: the
// mem-gen models below at published sizes, and for the ops no model uses
// (fp8, loss scaling, collectives' copies), the shapes of the dialect's own
// tests. A regression in an op's scratch changes its line. Ratios above 1
// are marked `over`; each op's description gives the reason (a padded or
// halo, a 16-bit result's f32 accumulator, the row sums
// next to attention_grad's two score tiles).
//
// Every op with a cost appears in at least one of the inputs (COVER).
// RUN: mem-opt %S/op-interfaces.mlir --test-print-workspace-ratios -o /dev/null > %t.ops
// RUN: mem-opt %S/fp8-ops.mlir --test-print-workspace-ratios -o /dev/null > %t.fp8
// RUN: mem-opt %S/loss-scaling.mlir --test-print-workspace-ratios -o /dev/null > %t.scale
// RUN: mem-opt %s --test-print-workspace-ratios -o /dev/null > %t.here
// RUN: %python -c "import sys; sets = [{l.split()[1] for l in open(f) if l.startswith('missing ')} for f in sys.argv[1:]]; print('uncovered:' + ''.join(' ' + n for n in sorted(set.intersection(*sets))))" %t.ops %t.fp8 %t.scale %t.here | FileCheck %s --check-prefix=COVER
// COVER: uncovered:{{$}}

// RUN: mem-gen resnet18 --batch 8 --train | mem-opt --test-print-workspace-ratios -o /dev/null | FileCheck %s --check-prefix=RESNET
// RESNET: train.adam {{.+}}: ratio=0.000 workspace=0 largest=37632{{$}}
// RESNET-NEXT: train.add {{.+}}: ratio=0.000 workspace=0 largest=6422528{{$}}
// RESNET-NEXT: train.avg_pool2d {{.+}}: ratio=0.000 workspace=0 largest=802816{{$}}
// RESNET-NEXT: train.avg_pool2d_grad {{.+}}: ratio=0.000 workspace=0 largest=802816{{$}}
// RESNET-NEXT: train.batch_norm {{.+}}: ratio=0.000 workspace=0 largest=25690112{{$}}
// RESNET-NEXT: train.batch_norm_grad {{.+}}: ratio=0.005 workspace=4096 largest=802816{{$}}
// RESNET-NEXT: train.bias_add {{.+}}: ratio=0.000 workspace=0 largest=32000{{$}}
// RESNET-NEXT: train.conv2d {{.+}}: ratio=1.148 workspace=3686400 largest=3211264 over{{$}}
// RESNET-NEXT: train.conv2d_grad_filter {{.+}}: ratio=0.000 workspace=0 largest=9437184{{$}}
// RESNET-NEXT: train.conv2d_grad_input {{.+}}: ratio=0.000 workspace=0 largest=9437184{{$}}
// RESNET-NEXT: train.cross_entropy {{.+}}: ratio=0.002 workspace=72 largest=32000{{$}}
// RESNET-NEXT: train.cross_entropy_grad {{.+}}: ratio=0.002 workspace=64 largest=32000{{$}}
// RESNET-NEXT: train.matmul {{.+}}: ratio=0.000 workspace=0 largest=2048000{{$}}
// RESNET-NEXT: train.max_pool2d {{.+}}: ratio=1.036 workspace=26615808 largest=25690112 over{{$}}
// RESNET-NEXT: train.max_pool2d_grad {{.+}}: ratio=0.000 workspace=0 largest=25690112{{$}}
// RESNET-NEXT: train.opt_state {{.+}}: ratio=0.000 workspace=0 largest=37632{{$}}
// RESNET-NEXT: train.param {{.+}}: ratio=0.000 workspace=0 largest=37632{{$}}
// RESNET-NEXT: train.reduce_sum {{.+}}: ratio=0.000 workspace=0 largest=32000{{$}}
// RESNET-NEXT: train.relu {{.+}}: ratio=0.000 workspace=0 largest=25690112{{$}}
// RESNET-NEXT: train.relu_grad {{.+}}: ratio=0.000 workspace=0 largest=802816{{$}}
// RESNET-NEXT: train.reshape {{.+}}: ratio=0.000 workspace=0 largest=16384{{$}}
// RESNET-NEXT: missing

// RUN: mem-gen mobilenet_v2 --batch 8 --train | mem-opt --test-print-workspace-ratios -o /dev/null | FileCheck %s --check-prefix=MOBILENET
// MOBILENET: train.adam {{.+}}: ratio=0.000 workspace=0 largest=3456{{$}}
// MOBILENET-NEXT: train.add {{.+}}: ratio=0.000 workspace=0 largest=2408448{{$}}
// MOBILENET-NEXT: train.avg_pool2d {{.+}}: ratio=0.000 workspace=0 largest=2007040{{$}}
// MOBILENET-NEXT: train.avg_pool2d_grad {{.+}}: ratio=0.000 workspace=0 largest=2007040{{$}}
// MOBILENET-NEXT: train.batch_norm {{.+}}: ratio=0.000 workspace=0 largest=12845056{{$}}
// MOBILENET-NEXT: train.batch_norm_grad {{.+}}: ratio=0.005 workspace=10240 largest=2007040{{$}}
// MOBILENET-NEXT: train.bias_add {{.+}}: ratio=0.000 workspace=0 largest=32000{{$}}
// MOBILENET-NEXT: train.conv2d {{.+}}: ratio=1.653 workspace=2488320 largest=1505280 over{{$}}
// MOBILENET-NEXT: train.conv2d_grad_filter {{.+}}: ratio=0.000 workspace=0 largest=2007040{{$}}
// MOBILENET-NEXT: train.conv2d_grad_input {{.+}}: ratio=0.000 workspace=0 largest=2007040{{$}}
// MOBILENET-NEXT: train.cross_entropy {{.+}}: ratio=0.002 workspace=72 largest=32000{{$}}
// MOBILENET-NEXT: train.cross_entropy_grad {{.+}}: ratio=0.002 workspace=64 largest=32000{{$}}
// MOBILENET-NEXT: train.dropout {{.+}}: ratio=0.000 workspace=0 largest=40960{{$}}
// MOBILENET-NEXT: train.dropout_grad {{.+}}: ratio=0.000 workspace=0 largest=40960{{$}}
// MOBILENET-NEXT: train.matmul {{.+}}: ratio=0.000 workspace=0 largest=5120000{{$}}
// MOBILENET-NEXT: train.opt_state {{.+}}: ratio=0.000 workspace=0 largest=3456{{$}}
// MOBILENET-NEXT: train.param {{.+}}: ratio=0.000 workspace=0 largest=3456{{$}}
// MOBILENET-NEXT: train.reduce_sum {{.+}}: ratio=0.000 workspace=0 largest=32000{{$}}
// MOBILENET-NEXT: train.relu {{.+}}: ratio=0.000 workspace=0 largest=12845056{{$}}
// MOBILENET-NEXT: train.relu_grad {{.+}}: ratio=0.000 workspace=0 largest=2007040{{$}}
// MOBILENET-NEXT: train.reshape {{.+}}: ratio=0.000 workspace=0 largest=40960{{$}}
// MOBILENET-NEXT: missing

// RUN: mem-gen unet --batch 1 --train | mem-opt --test-print-workspace-ratios -o /dev/null | FileCheck %s --check-prefix=UNET
// UNET: train.adam {{.+}}: ratio=0.000 workspace=0 largest=6912{{$}}
// UNET-NEXT: train.add {{.+}}: ratio=0.000 workspace=0 largest=4046848{{$}}
// UNET-NEXT: train.batch_norm {{.+}}: ratio=0.000 workspace=0 largest=2023424{{$}}
// UNET-NEXT: train.batch_norm_grad {{.+}}: ratio=0.002 workspace=4096 largest=2023424{{$}}
// UNET-NEXT: train.bias_add {{.+}}: ratio=0.000 workspace=0 largest=64749568{{$}}
// UNET-NEXT: train.concat {{.+}}: ratio=0.000 workspace=0 largest=12140544{{$}}
// UNET-NEXT: train.conv2d {{.+}}: ratio=1.066 workspace=12939264 largest=12140544 over{{$}}
// UNET-NEXT: train.conv2d_grad_filter {{.+}}: ratio=0.000 workspace=0 largest=16187392{{$}}
// UNET-NEXT: train.conv2d_grad_input {{.+}}: ratio=0.000 workspace=0 largest=16187392{{$}}
// UNET-NEXT: train.cross_entropy {{.+}}: ratio=0.105 workspace=505864 largest=4805632{{$}}
// UNET-NEXT: train.cross_entropy_grad {{.+}}: ratio=0.105 workspace=505856 largest=4805632{{$}}
// UNET-NEXT: train.max_pool2d {{.+}}: ratio=0.000 workspace=0 largest=64749568{{$}}
// UNET-NEXT: train.max_pool2d_grad {{.+}}: ratio=0.000 workspace=0 largest=8093696{{$}}
// UNET-NEXT: train.opt_state {{.+}}: ratio=0.000 workspace=0 largest=6912{{$}}
// UNET-NEXT: train.param {{.+}}: ratio=0.000 workspace=0 largest=6912{{$}}
// UNET-NEXT: train.reduce_sum {{.+}}: ratio=0.000 workspace=0 largest=4805632{{$}}
// UNET-NEXT: train.relu {{.+}}: ratio=0.000 workspace=0 largest=64749568{{$}}
// UNET-NEXT: train.relu_grad {{.+}}: ratio=0.000 workspace=0 largest=16187392{{$}}
// UNET-NEXT: train.slice {{.+}}: ratio=0.000 workspace=0 largest=48562176{{$}}
// UNET-NEXT: train.transpose {{.+}}: ratio=0.000 workspace=0 largest=4805632{{$}}
// UNET-NEXT: train.upsample_nearest2d {{.+}}: ratio=0.000 workspace=0 largest=8093696{{$}}
// UNET-NEXT: train.upsample_nearest2d_grad {{.+}}: ratio=0.000 workspace=0 largest=32374784{{$}}
// UNET-NEXT: missing

// RUN: mem-gen gpt2 --layers 2 --batch 4 --dropout 0.1 --train | mem-opt --test-print-workspace-ratios -o /dev/null | FileCheck %s --check-prefix=GPT2
// GPT2: train.adam {{.+}}: ratio=0.000 workspace=0 largest=154389504{{$}}
// GPT2-NEXT: train.add {{.+}}: ratio=0.000 workspace=0 largest=12582912{{$}}
// GPT2-NEXT: train.bias_add {{.+}}: ratio=0.000 workspace=0 largest=37748736{{$}}
// GPT2-NEXT: train.cross_entropy {{.+}}: ratio=0.000 workspace=32776 largest=823410688{{$}}
// GPT2-NEXT: train.cross_entropy_grad {{.+}}: ratio=0.000 workspace=32768 largest=823410688{{$}}
// GPT2-NEXT: train.dropout {{.+}}: ratio=0.000 workspace=0 largest=12582912{{$}}
// GPT2-NEXT: train.dropout_grad {{.+}}: ratio=0.000 workspace=0 largest=12582912{{$}}
// GPT2-NEXT: train.embedding {{.+}}: ratio=0.000 workspace=0 largest=154389504{{$}}
// GPT2-NEXT: train.embedding_grad {{.+}}: ratio=0.000 workspace=0 largest=12582912{{$}}
// GPT2-NEXT: train.gelu {{.+}}: ratio=0.000 workspace=0 largest=50331648{{$}}
// GPT2-NEXT: train.gelu_grad {{.+}}: ratio=0.000 workspace=0 largest=50331648{{$}}
// GPT2-NEXT: train.layer_norm {{.+}}: ratio=0.000 workspace=0 largest=12582912{{$}}
// GPT2-NEXT: train.layer_norm_grad {{.+}}: ratio=0.003 workspace=32768 largest=12582912{{$}}
// GPT2-NEXT: train.matmul {{.+}}: ratio=0.000 workspace=0 largest=37748736{{$}}
// GPT2-NEXT: train.opt_state {{.+}}: ratio=0.000 workspace=0 largest=154389504{{$}}
// GPT2-NEXT: train.param {{.+}}: ratio=0.000 workspace=0 largest=154389504{{$}}
// GPT2-NEXT: train.reduce_sum {{.+}}: ratio=0.000 workspace=0 largest=12582912{{$}}
// GPT2-NEXT: train.reshape {{.+}}: ratio=0.000 workspace=0 largest=12582912{{$}}
// GPT2-NEXT: train.slice {{.+}}: ratio=0.000 workspace=0 largest=37748736{{$}}
// GPT2-NEXT: train.slice_grad {{.+}}: ratio=0.000 workspace=0 largest=37748736{{$}}
// GPT2-NEXT: train.softmax {{.+}}: ratio=0.002 workspace=393216 largest=201326592{{$}}
// GPT2-NEXT: train.softmax_grad {{.+}}: ratio=0.001 workspace=196608 largest=201326592{{$}}
// GPT2-NEXT: train.transpose {{.+}}: ratio=0.000 workspace=0 largest=12582912{{$}}
// GPT2-NEXT: missing

// RUN: mem-gen llama-2-7b --layers 2 --batch 1 --train | mem-opt --test-print-workspace-ratios -o /dev/null | FileCheck %s --check-prefix=LLAMA
// LLAMA: train.adam {{.+}}: ratio=0.000 workspace=0 largest=524288000{{$}}
// LLAMA-NEXT: train.add {{.+}}: ratio=0.000 workspace=0 largest=67108864{{$}}
// LLAMA-NEXT: train.attention {{.+}}: ratio=0.500 workspace=33562624 largest=67108864{{$}}
// LLAMA-NEXT: train.attention_grad {{.+}}: ratio=1.000 workspace=67117056 largest=67108864 over{{$}}
// LLAMA-NEXT: train.cross_entropy {{.+}}: ratio=0.000 workspace=32776 largest=524288000{{$}}
// LLAMA-NEXT: train.cross_entropy_grad {{.+}}: ratio=0.000 workspace=32768 largest=524288000{{$}}
// LLAMA-NEXT: train.embedding {{.+}}: ratio=0.000 workspace=0 largest=524288000{{$}}
// LLAMA-NEXT: train.embedding_grad {{.+}}: ratio=0.000 workspace=0 largest=524288000{{$}}
// LLAMA-NEXT: train.matmul {{.+}}: ratio=0.000 workspace=0 largest=67108864{{$}}
// LLAMA-NEXT: train.opt_state {{.+}}: ratio=0.000 workspace=0 largest=524288000{{$}}
// LLAMA-NEXT: train.param {{.+}}: ratio=0.000 workspace=0 largest=524288000{{$}}
// LLAMA-NEXT: train.reshape {{.+}}: ratio=0.000 workspace=0 largest=67108864{{$}}
// LLAMA-NEXT: train.rms_norm {{.+}}: ratio=0.000 workspace=0 largest=67108864{{$}}
// LLAMA-NEXT: train.rms_norm_grad {{.+}}: ratio=0.000 workspace=16384 largest=67108864{{$}}
// LLAMA-NEXT: train.rotary {{.+}}: ratio=1.031 workspace=69206016 largest=67108864 over{{$}}
// LLAMA-NEXT: train.rotary_grad {{.+}}: ratio=1.031 workspace=69206016 largest=67108864 over{{$}}
// LLAMA-NEXT: train.swiglu {{.+}}: ratio=0.000 workspace=0 largest=180355072{{$}}
// LLAMA-NEXT: train.swiglu_grad {{.+}}: ratio=0.000 workspace=0 largest=180355072{{$}}
// LLAMA-NEXT: train.transpose {{.+}}: ratio=0.000 workspace=0 largest=67108864{{$}}
// LLAMA-NEXT: missing

// The ops no other input covers: a copy into the tensor-parallel region,
// a pipeline stage's exchange (no scratch: the received tensors are its
// results), and the copies between device and host memory (none either).
shard.grid @grid(shape = 2x2)
func.func @copy(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = train.copy_to_parallel %x on @grid grid_axes = [1] : tensor<4x8xf32>
  %z = train.p2p send %y to [1] tags [0] : tensor<4x8xf32> recv from [1] tags [1] : tensor<4x8xf32>
  %h = train.to_host %z : tensor<4x8xf32>
  %d = train.to_device %h : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
