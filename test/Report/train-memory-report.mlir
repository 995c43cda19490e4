// The memory report of a small step whose numbers are derived by hand: the
// first function of test/Analysis/tensor-liveness.mlir (LOAD 1420 bytes at
// point 8, train.matmul). Every format is checked for its numbers and, with
// validate-report.py, for its structure.

// The pass is registered, with its options.
// RUN: mem-opt --help | FileCheck %s --check-prefix=HELP
// HELP:      --train-memory-report {{.*}}Writes the memory report of a training step
// HELP-NEXT:   --format=<value> {{.*}}Report format
// HELP-NEXT:     =text
// HELP-NEXT:     =json
// HELP-NEXT:     =html
// HELP-NEXT:     =trace
// HELP-NEXT:   --function=<string>
// HELP-NEXT:   --output=<string>

// The pass never changes the IR.
// RUN: mem-opt %s -o %t.before.mlir
// RUN: mem-opt %s --train-memory-report='output=%t.txt' -o %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir

// text, to stdout (the default) and to a file: the same bytes.
// RUN: mem-opt %s --train-memory-report -o /dev/null | FileCheck %s --check-prefix=TEXT --match-full-lines --strict-whitespace
// RUN: mem-opt %s --train-memory-report=format=text -o /dev/null | diff - %t.txt

// At point 8 (dw = train.matmul) live are: w (256 B), dw (256), the two Adam
// states (512), x = arg0 (128, last used at 8), the step counter arg1 (8),
// loss (4, returned), dflat (128, freed at 9) and dx (128, read at 8). h
// (live [1, 7]) is dead, so activations are 0. Temporaries: loss + dflat +
// dx = 260; inputs: 136. Shares of 1420: 256 -> 18.03%, 512 -> 36.06%,
// 260 -> 18.31%, 136 -> 9.58%. 1420 B = 1.39 KiB.
// FLOPs: relu 32 + reduce_sum 32 + relu_grad 32 + matmul 2*(8*8)*4 = 512 +
// adam 12*64 = 768; total 1376. One 8x8 parameter: 64 elements, 256 B.
// The arena (planned for the report, 256-byte alignment): at point 8 the six
// non-persistent live buffers (arg0, arg1, loss, dflat, dx, dw) take one
// 256-byte slot each: 1536 + 768 persistent = 2304 = the aligned LOAD, so
// the plan is optimal; 2304 / 1420 - 1 = 62.25% (padding of tiny tensors).
//      TEXT:memory report of @step (memopt.memory-report/1)
// TEXT-EMPTY:
// TEXT-NEXT:  peak (LOAD)  1.39 KiB (1420 B)
// TEXT-NEXT:  arena        2.25 KiB (2304 B), 62.25% above LOAD, planned for this report (alignment 256)
// TEXT-NEXT:  at           point 8 of 14: train.matmul at dw
// TEXT-NEXT:  persistent   768 B
// TEXT-NEXT:  parameters   64 elements, 256 B
// TEXT-NEXT:  total FLOPs  1.38 kFLOP (1376)
// TEXT-NEXT:  buffers      11 (9 live at the peak)
// TEXT-EMPTY:
// TEXT-NEXT:  class                bytes at peak    share
// TEXT-NEXT:  parameter                    256 B   18.03%
// TEXT-NEXT:  gradient                     256 B   18.03%
// TEXT-NEXT:  optimizer_state              512 B   36.06%
// TEXT-NEXT:  activation                     0 B    0.00%
// TEXT-NEXT:  temporary                    260 B   18.31%
// TEXT-NEXT:  input                        136 B    9.58%
// TEXT-NEXT:  total            1.39 KiB (1420 B)  100.00%
// TEXT-EMPTY:
// TEXT-NEXT:  top 9 of 9 tensors live at the peak
// TEXT-NEXT:  #  name          bytes  class            live     defined by
// TEXT-NEXT:  1  w             256 B  parameter        [0, 13]  train.param at w
// TEXT-NEXT:  2  dw            256 B  gradient         [8, 12]  train.matmul at dw
// TEXT-NEXT:  3  w.exp_avg     256 B  optimizer_state  [0, 13]  train.opt_state at {{.*}}train-memory-report.mlir:{{[0-9]+}}:{{[0-9]+}}
// TEXT-NEXT:  4  w.exp_avg_sq  256 B  optimizer_state  [0, 13]  train.opt_state at {{.*}}train-memory-report.mlir:{{[0-9]+}}:{{[0-9]+}}
// TEXT-NEXT:  5  arg0          128 B  input            [0, 8]   argument at {{.*}}train-memory-report.mlir:{{[0-9]+}}:{{[0-9]+}}
// TEXT-NEXT:  6  dflat         128 B  temporary        [5, 9]   train.broadcast at dflat
// TEXT-NEXT:  7  dx            128 B  temporary        [7, 8]   train.relu_grad at dx
// TEXT-NEXT:  8  arg1            8 B  input            [0, 12]  argument at {{.*}}train-memory-report.mlir:{{[0-9]+}}:{{[0-9]+}}
// TEXT-NEXT:  9  loss            4 B  temporary        [3, 13]  train.reduce_sum at loss
// Model states of the one 8x8 f32 parameter (64 elements) under Adam:
// weights 256 B (4 per parameter), no master copy, the gradient dw 256 B
// (4), the two moments 512 B (8): 1024 B, 16 per parameter.
// TEXT-EMPTY:
// TEXT-NEXT:  model states: fp32 (grads fp32), 64 parameters
// TEXT-NEXT:  state                         bytes  per parameter
// TEXT-NEXT:  weights                       256 B           4.00
// TEXT-NEXT:  master weights                  0 B           0.00
// TEXT-NEXT:  gradients                     256 B           4.00
// TEXT-NEXT:  optimizer states              512 B           8.00
// TEXT-NEXT:  total             1.00 KiB (1024 B)          16.00
// Saved for backward: h (relu, defined at 1, read by relu_grad at 7) spans
// the loss at point 3; flat is its view, x an input. No train.layer.
// TEXT-EMPTY:
// TEXT-NEXT:  activations saved for backward: 128 B in 1 buffer, defined before the loss (point 3) and live after it
// TEXT-NEXT:  layer    bytes  buffers
// TEXT-NEXT:  (other)  128 B        1
// TEXT-NOT:{{.}}

// json: parsed and checked by validate-report.py (key order, six classes
// everywhere, timeline sums, peak = first maximum, top tensors live at the
// peak, largest first), to a file and to stdout.
// RUN: mem-opt %s --train-memory-report='format=json output=%t.json' -o /dev/null
// RUN: %python %S/validate-report.py json %t.json | FileCheck %s --check-prefix=JSON
// RUN: mem-opt %s --train-memory-report='format=json output=-' -o /dev/null > %t.stdout.json
// RUN: diff %t.json %t.stdout.json
// JSON:      schema: memopt.memory-report/1{{$}}
// JSON-NEXT: function: step
// JSON-NEXT: num_points: 14{{$}}
// JSON-NEXT: num_buffers: 11{{$}}
// JSON-NEXT: peak_bytes: 1420{{$}}
// JSON-NEXT: load_bytes: 1420{{$}}
// JSON-NEXT: peak_point: 8{{$}}
// JSON-NEXT: persistent_bytes: 768{{$}}
// JSON-NEXT: parameter_count: 64{{$}}
// JSON-NEXT: parameter_bytes: 256{{$}}
// JSON-NEXT: total_flops: 1376{{$}}
// JSON-NEXT: peak_op: train.matmul at dw
// JSON-NEXT: by_class: parameter=256 gradient=256 optimizer_state=512 activation=0 temporary=260 input=136{{$}}
// JSON-NEXT: num_live_at_peak: 9{{$}}
// JSON-NEXT: top: w 256 parameter [0, 13] train.param at w
// JSON-NEXT: top: dw 256 gradient [8, 12] train.matmul at dw
// JSON-NEXT: top: w.exp_avg 256 optimizer_state [0, 13] train.opt_state at {{.*}}train-memory-report.mlir:{{[0-9]+}}:{{[0-9]+}}
// JSON-NEXT: top: w.exp_avg_sq 256 optimizer_state [0, 13] train.opt_state at {{.*}}.mlir:{{[0-9]+}}:{{[0-9]+}}
// JSON-NEXT: top: arg0 128 input [0, 8] argument at {{.*}}.mlir:{{[0-9]+}}:{{[0-9]+}}
// JSON-NEXT: top: dflat 128 temporary [5, 9] train.broadcast at dflat
// JSON-NEXT: top: dx 128 temporary [7, 8] train.relu_grad at dx
// JSON-NEXT: top: arg1 8 input [0, 12] argument at {{.*}}.mlir:{{[0-9]+}}:{{[0-9]+}}
// JSON-NEXT: top: loss 4 temporary [3, 13] train.reduce_sum at loss
// The live bytes at every point, as test/Analysis/tensor-liveness.mlir
// derives them.
// JSON-NEXT: point 0 train.param: 904{{$}}
// JSON-NEXT: point 1 train.relu: 1032{{$}}
// JSON-NEXT: point 2 train.reshape: 1032{{$}}
// JSON-NEXT: point 3 train.reduce_sum: 1036{{$}}
// JSON-NEXT: point 4 arith.constant: 1040{{$}}
// JSON-NEXT: point 5 train.broadcast: 1168{{$}}
// JSON-NEXT: point 6 train.reshape: 1164{{$}}
// JSON-NEXT: point 7 train.relu_grad: 1292{{$}}
// JSON-NEXT: point 8 train.matmul: 1420{{$}}
// JSON-NEXT: point 9 train.free: 1164{{$}}
// JSON-NEXT: point 10 train.opt_state: 1036{{$}}
// JSON-NEXT: point 11 train.opt_state: 1036{{$}}
// JSON-NEXT: point 12 train.adam: 1036{{$}}
// JSON-NEXT: point 13 func.return: 772{{$}}
// JSON-NEXT: arena_bytes: 2304 (report, alignment 256, fragmentation 0.622535)
// JSON-NEXT: model_states: fp32 grads fp32, 64 parameters
// JSON-NEXT:   weights: 256 B, 4 B/param
// JSON-NEXT:   master_weights: 0 B, 0 B/param
// JSON-NEXT:   gradients: 256 B, 4 B/param
// JSON-NEXT:   optimizer_states: 512 B, 8 B/param
// JSON-NEXT:   total: 1024 B, 16 B/param
// JSON-NEXT: saved_activations: 128 B in 1 buffers, loss at 3, parameter copies 0 B in 0
// JSON-NEXT:   layer (other): 128 B in 1
// The document itself: keys in schema order, exact integers.
// RUN: FileCheck %s --check-prefix=RAW < %t.json
// RAW:      {
// RAW-NEXT:   "schema": "memopt.memory-report/1",
// RAW-NEXT:   "function": "step",
// RAW:        "peak_bytes": 1420,
// RAW-NEXT:   "load_bytes": 1420,
// RAW-NEXT:   "arena_bytes": 2304,
// RAW-NEXT:   "fragmentation": 0.6225352112676{{[0-9]*}},
// RAW-NEXT:   "arena_source": "report",
// RAW-NEXT:   "plan_alignment": 256,
// RAW-NEXT:   "peak_point": 8,
// RAW-NEXT:   "peak_op": {
// RAW-NEXT:     "name": "train.matmul",
// RAW-NEXT:     "location": "dw"
// RAW-NEXT:   },
// RAW:        "timeline": [
// RAW-NEXT:     {"point":0,"op":"train.param","live_bytes":904,"by_class":{"parameter":256,"gradient":0,"optimizer_state":512,"activation":0,"temporary":0,"input":136}},
// RAW:          {"point":8,"op":"train.matmul","live_bytes":1420,"by_class":{"parameter":256,"gradient":256,"optimizer_state":512,"activation":0,"temporary":260,"input":136}},

// html: parsed with html.parser (elements nest and close, no scripts, no
// network) and its SVG with xml.etree: one path per class, a legend entry
// per class, axis labels, and the peak marker at the middle of point 8
// (x = 110 + 8.5 * 830 / 14 = 613.93) over the highest column (y = 30, the
// chart's top).
// RUN: mem-opt %s --train-memory-report='format=html output=%t.html' -o /dev/null
// RUN: %python %S/validate-report.py html %t.html | FileCheck %s --check-prefix=HTML
// HTML:      title: Memory report of @step
// HTML-NEXT: tables: summary by-class top-tensors model-states saved-activations{{$}}
// HTML-NEXT: paths: parameter gradient optimizer_state activation temporary input
// HTML-NEXT: axis labels: program point (op index) | live memory
// HTML-NEXT: peak marker x: 613.93, column top y: 30.00{{$}}
// HTML-NEXT: peak label: peak 1.39 KiB (1420 B) at point 8 (train.matmul)
// RUN: FileCheck %s --check-prefix=PAGE < %t.html
// PAGE: <tr><th>Peak (LOAD)</th><td>1.39 KiB (1420 B)</td></tr>
// PAGE: <tr><td><span class="swatch" style="background:#e15759"></span>optimizer_state</td><td class="num">512 B</td><td class="num">36.06%</td></tr>
// PAGE: <tr><td class="num">2</td><td>dw</td><td class="num">256 B</td><td>gradient</td><td>[8, 12]</td><td>train.matmul</td><td>dw</td></tr>
// PAGE: <p>fp32 (grads fp32), 64 parameters; unpadded bytes.</p>
// PAGE: <tr><td>optimizer states</td><td class="num">512 B</td><td class="num">8.00</td></tr>
// PAGE-NEXT: <tr><td>total</td><td class="num">1.00 KiB (1024 B)</td><td class="num">16.00</td></tr>
// PAGE: <p>128 B in 1 buffer, defined before the loss (point 3) and live after it.</p>
// PAGE: <tr><td>(other)</td><td class="num">128 B</td><td class="num">1</td></tr>

// trace: json.load; one counter of bytes per class and one of the total at
// every point (the totals above), the op slices, and the peak instant.
// RUN: mem-opt %s --train-memory-report='format=trace output=%t.trace.json' -o /dev/null
// RUN: %python %S/validate-report.py trace %t.trace.json | FileCheck %s --check-prefix=TRACE
// TRACE:      point 0 train.param: 904{{$}}
// TRACE-NEXT: point 1 train.relu: 1032{{$}}
// TRACE-NEXT: point 2 train.reshape: 1032{{$}}
// TRACE-NEXT: point 3 train.reduce_sum: 1036{{$}}
// TRACE-NEXT: point 4 arith.constant: 1040{{$}}
// TRACE-NEXT: point 5 train.broadcast: 1168{{$}}
// TRACE-NEXT: point 6 train.reshape: 1164{{$}}
// TRACE-NEXT: point 7 train.relu_grad: 1292{{$}}
// TRACE-NEXT: point 8 train.matmul: 1420{{$}}
// TRACE-NEXT: point 9 train.free: 1164{{$}}
// TRACE-NEXT: point 10 train.opt_state: 1036{{$}}
// TRACE-NEXT: point 11 train.opt_state: 1036{{$}}
// TRACE-NEXT: point 12 train.adam: 1036{{$}}
// TRACE-NEXT: point 13 func.return: 772{{$}}
// TRACE-NEXT: peak: ts=8 bytes=1420 op=train.matmul
// TRACE-NEXT: peak classes: parameter=256 gradient=256 optimizer_state=512 activation=0 temporary=260 input=136{{$}}

func.func @step(%x: tensor<4x8xf32>, %t: tensor<i64>) -> tensor<f32> {
  %w = train.param "w" : tensor<8x8xf32> loc("w")
  %h = train.relu %x : tensor<4x8xf32> loc("h")
  %flat = train.reshape %h : tensor<4x8xf32> -> tensor<32xf32> loc("flat")
  %l = train.reduce_sum %flat {dims = array<i64: 0>} : tensor<32xf32> -> tensor<f32> loc("loss")
  %seed = arith.constant dense<1.0> : tensor<f32> loc("seed")
  %dflat = train.broadcast %seed {dims = array<i64: 0>} : tensor<f32> -> tensor<32xf32> loc("dflat")
  %dh = train.reshape %dflat : tensor<32xf32> -> tensor<4x8xf32> loc("dh")
  %dx = train.relu_grad %dh, %h : tensor<4x8xf32> loc("dx")
  %dw = train.matmul %x, %dx {transpose_lhs} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32> loc("dw")
  train.free %dflat : tensor<32xf32>
  %m = train.opt_state "w.exp_avg" : tensor<8x8xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<8x8xf32>
  train.adam %w, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return %l : tensor<f32>
}
