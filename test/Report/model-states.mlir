// Model states and saved activations on hand-written steps whose numbers
// are derived by hand (docs/report.md): a tied parameter, a parameter read
// in f32 next to one with a low copy, SGD with a momentum buffer, a state
// tied to no parameter, a step without an optimizer, and one without a loss.

// @mixed: parameters w (8x8 f32, read twice: 64 elements once) and b (8
// f32): 72 elements. weights: w's bf16 low copy 128 B + b itself 32 B =
// 160 B; master weights: w's 256 B (b has no low copy); gradients: the two
// sgd grads, dw.f32 256 B + db 32 B = 288 B; optimizer states: the momentum
// buffer "w.momentum_buffer" 256 B; other: "loss_scale.exponent" (an i64,
// tied to no parameter) 8 B. Total 968 B; per parameter 160/72 = 2.22,
// 256/72 = 3.56, 288/72 = 4.00, 8/72 = 0.11, 968/72 = 13.44.
// Saved activations (the loss, reduce_sum, is point 9): l0.fc (4x8 bf16,
// 64 B, train.layer l0), read by dh and dw; y (4x8 f32, 128 B, no layer),
// read by db; and w.tied.bf16, a parameter copy read by dh (128 B). l1.fc
// and l1.f32 are read by no backward op; x is an input.
// RUN: mem-opt %s --train-memory-report='function=mixed' -o /dev/null | FileCheck %s --check-prefix=MIXED
// MIXED:      model states: bf16-mixed (grads fp32), 72 parameters
// MIXED-NEXT:   state                       bytes  per parameter
// MIXED-NEXT:   weights                     160 B           2.22
// MIXED-NEXT:   master weights              256 B           3.56
// MIXED-NEXT:   gradients                   288 B           4.00
// MIXED-NEXT:   optimizer states            256 B           3.56
// MIXED-NEXT:   other: loss_scale.exponent    8 B           0.11
// MIXED-NEXT:   total                       968 B          13.44
// MIXED-EMPTY:
// MIXED-NEXT:   activations saved for backward: 192 B in 2 buffers, defined before the loss (point 9) and live after it
// MIXED-NEXT:   layer    bytes  buffers
// MIXED-NEXT:   l0        64 B        1
// MIXED-NEXT:   (other)  128 B        1
// MIXED-NEXT:   parameter copies: 128 B in 1 buffer (casts of parameters, not in the layers above)
// RUN: mem-opt %s --train-memory-report='function=mixed format=json output=%t.mixed.json' -o /dev/null
// RUN: %python %S/validate-report.py json %t.mixed.json | FileCheck %s --check-prefix=MIXED-JSON
// MIXED-JSON:      model_states: bf16-mixed grads fp32, 72 parameters
// MIXED-JSON-NEXT:   weights: 160 B, 2.2222222222222{{[0-9]*}} B/param
// MIXED-JSON-NEXT:   master_weights: 256 B, 3.5555555555555{{[0-9]*}} B/param
// MIXED-JSON-NEXT:   gradients: 288 B, 4 B/param
// MIXED-JSON-NEXT:   optimizer_states: 256 B, 3.5555555555555{{[0-9]*}} B/param
// MIXED-JSON-NEXT:   total: 968 B, 13.444444444444{{[0-9]*}} B/param
// MIXED-JSON-NEXT:   other: loss_scale.exponent 8 B
// MIXED-JSON-NEXT: saved_activations: 192 B in 2 buffers, loss at 9, parameter copies 128 B in 1
// MIXED-JSON-NEXT:   layer l0: 64 B in 1
// MIXED-JSON-NEXT:   layer (other): 128 B in 1
// RUN: mem-opt %s --train-memory-report='function=mixed format=html' -o /dev/null | FileCheck %s --check-prefix=MIXED-HTML
// MIXED-HTML: <tr><td>other: loss_scale.exponent</td><td class="num">8 B</td><td class="num">0.11</td></tr>

func.func @mixed(%x: tensor<4x8xbf16>) -> tensor<f32> attributes {train.precision = {grads = "fp32", mode = "bf16-mixed"}} {
  %w = train.param "w" : tensor<8x8xf32> loc("w")
  %wl = train.cast %w : tensor<8x8xf32> -> tensor<8x8xbf16> loc("w.bf16")
  %h = train.matmul %x, %wl {train.layer = "l0"} : tensor<4x8xbf16>, tensor<8x8xbf16> -> tensor<4x8xbf16> loc("l0.fc")
  %w2 = train.param "w" : tensor<8x8xf32> loc("w.tied")
  %w2l = train.cast %w2 : tensor<8x8xf32> -> tensor<8x8xbf16> loc("w.tied.bf16")
  %h2 = train.matmul %h, %w2l {train.layer = "l1"} : tensor<4x8xbf16>, tensor<8x8xbf16> -> tensor<4x8xbf16> loc("l1.fc")
  %b = train.param "b" : tensor<8xf32> loc("b")
  %hf = train.cast %h2 {train.layer = "l1"} : tensor<4x8xbf16> -> tensor<4x8xf32> loc("l1.f32")
  %y = train.bias_add %hf, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32> loc("y")
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
  %dh = train.matmul %h, %w2l {transpose_rhs} : tensor<4x8xbf16>, tensor<8x8xbf16> -> tensor<4x8xbf16> loc("dh")
  %dw = train.matmul %x, %dh {transpose_lhs} : tensor<4x8xbf16>, tensor<4x8xbf16> -> tensor<8x8xbf16> loc("dw")
  %dwf = train.cast %dw : tensor<8x8xbf16> -> tensor<8x8xf32> loc("dw.f32")
  %db = train.reduce_sum %y {dims = array<i64: 0>} : tensor<4x8xf32> -> tensor<8xf32> loc("db")
  %m = train.opt_state "w.momentum_buffer" : tensor<8x8xf32>
  train.sgd %w, %dwf momentum(%m : tensor<8x8xf32>) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<8x8xf32>, tensor<8x8xf32>
  train.sgd %b, %db {lr = 0.1 : f64} : tensor<8xf32>, tensor<8xf32>
  %e = train.opt_state "loss_scale.exponent" : tensor<i64>
  return %l : tensor<f32>
}

// @grads: no optimizer; the gradient of w (8x8 f32, 64 elements) is the
// result marked train.grad_of = "w": 4 + 0 + 4 + 0 = 8 per parameter. No
// forward value is read after the loss (dw reads x, an input): nothing is
// saved, and there is no table.
// RUN: mem-opt %s --train-memory-report='function=grads' -o /dev/null | FileCheck %s --check-prefix=GRADS
// GRADS:      model states: fp32 (grads fp32), 64 parameters
// GRADS:        gradients         256 B           4.00
// GRADS-NEXT:   optimizer states    0 B           0.00
// GRADS-NEXT:   total             512 B           8.00
// GRADS-EMPTY:
// GRADS-NEXT:   activations saved for backward: 0 B in 0 buffers, defined before the loss (point 2) and live after it
// GRADS-NOT:  {{.}}
func.func @grads(%x: tensor<4x8xf32>) -> (tensor<f32>, tensor<8x8xf32> {train.grad_of = "w"}) {
  %w = train.param "w" : tensor<8x8xf32>
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %l = train.reduce_sum %h {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  %dw = train.matmul %x, %x {transpose_lhs} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  return %l, %dw : tensor<f32>, tensor<8x8xf32>
}

// @no_loss returns nothing: the model states are still counted (a 4-element
// parameter and its gradient: 8 per parameter); no loss, nothing saved.
// RUN: mem-opt %s --train-memory-report='function=no_loss' -o /dev/null | FileCheck %s --check-prefix=NO-LOSS
// NO-LOSS:      total              32 B           8.00
// NO-LOSS-EMPTY:
// NO-LOSS-NEXT:   activations saved for backward: none (the step returns no loss)
// RUN: mem-opt %s --train-memory-report='function=no_loss format=json output=%t.no_loss.json' -o /dev/null
// RUN: %python %S/validate-report.py json %t.no_loss.json | FileCheck %s --check-prefix=NO-LOSS-JSON
// NO-LOSS-JSON: saved_activations: 0 B in 0 buffers, loss at None, parameter copies 0 B in 0
// RUN: mem-opt %s --train-memory-report='function=no_loss format=html' -o /dev/null | FileCheck %s --check-prefix=NO-LOSS-HTML
// NO-LOSS-HTML: <h2>Activations saved for backward</h2>
// NO-LOSS-HTML-NEXT: <p>None: the step returns no loss.</p>
func.func @no_loss(%g: tensor<4xf32>) {
  %a = train.param "a" : tensor<4xf32>
  train.sgd %a, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}
