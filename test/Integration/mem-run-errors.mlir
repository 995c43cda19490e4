// mem-run's errors: a clear message and a non-zero exit, never a crash.
// Each case is one file of this one, cut out by split-file.
// RUN: rm -rf %t && split-file %s %t

// A missing file.
// RUN: not mem-run %t/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: mem-run: error: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory

// A parse error points at the input.
// RUN: not mem-run %t/parse.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: parse.mlir:2:8: error: custom op 'train.nope' is unknown
// PARSE: mem-run: error: cannot parse {{.*}}parse.mlir

// No function with a body.
// RUN: not mem-run %t/no-step.mlir 2>&1 | FileCheck %s --check-prefix=NOSTEP
// NOSTEP: mem-run: error: no step function: {{.*}}no-step.mlir has no func.func with a body

// Several candidates: --func must choose; a wrong name is reported.
// RUN: not mem-run %t/two-steps.mlir 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: mem-run: error: several functions have a body (@a, @b); name the step with --func
// RUN: not mem-run %t/two-steps.mlir --func c 2>&1 | FileCheck %s --check-prefix=NOFUNC
// NOFUNC: mem-run: error: no func.func named 'c' in {{.*}}two-steps.mlir
// RUN: not mem-run %t/two-steps.mlir --func decl 2>&1 | FileCheck %s --check-prefix=DECL
// DECL: mem-run: error: 'decl' is a declaration; the step needs a body
// RUN: mem-run %t/two-steps.mlir --func b | FileCheck %s --check-prefix=B
// B: result 0: sum = 0.000000000e+00 sumsq = 0.000000000e+00{{$}}

// Argument types mem-run cannot fill.
// RUN: not mem-run %t/scalar-arg.mlir 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: scalar-arg.mlir:1:17: error: mem-run cannot feed or read argument #0 of type 'f32': expected a statically shaped tensor of 8, 16, 32 or 64-bit floats or integers, or of i1
// SCALAR: mem-run: error: cannot run @step (see above)
// RUN: not mem-run %t/dynamic-arg.mlir 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: error: mem-run cannot feed or read argument #0 of type 'tensor<?xf32>'
// RUN: not mem-run %t/dynamic-result.mlir 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: error: mem-run cannot feed or read result #0 of type 'tensor<?xf32>'

// An integer argument whose range no use tells.
// RUN: not mem-run %t/int-arg.mlir 2>&1 | FileCheck %s --check-prefix=INT
// INT: int-arg.mlir:1:17: error: cannot infer the range of integer argument #0 ('tensor<4xi64>'): it is not used as embedding or embedding_grad ids, cross_entropy labels or an optimizer step

// Ops the CPU pipeline cannot lower: the diagnostic of the pass that gives
// up surfaces at the op, then mem-run says what it was doing. (A train op
// without a lowering fails the same way, in convert-train-to-linalg:
// "failed to legalize operation 'train.<op>' that was explicitly marked
// illegal".) An elementwise op on whole tensors is not bufferized:
// RUN: not mem-run %t/unlowered.mlir 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// UNLOWERED: unlowered.mlir:2:8: error: op was not bufferized
// UNLOWERED: mem-run: error: cannot lower @step to LLVM (see the diagnostic above)
// A GPU op has no CPU translation:
// RUN: not mem-run %t/gpu-op.mlir 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: gpu-op.mlir:2:8: error: cannot be converted to LLVM IR: missing `LLVMTranslationDialectInterface` registration for dialect for op: gpu.thread_id
// GPU: mem-run: error: cannot compile the lowered step: could not convert to LLVM IR

// A step with collectives on a grid of two processes runs under mpiexec
// (test/Integration/shard), not as one process.
// RUN: not mem-run %t/collective.mlir 2>&1 | FileCheck %s --check-prefix=COLLECTIVE
// COLLECTIVE: mem-run: error: @step runs on a grid of 2 processes (2), but 1 process was started: run it with mpiexec -n 2

// Symbols mem-run adds must be free.
// RUN: not mem-run %t/reserved.mlir 2>&1 | FileCheck %s --check-prefix=RESERVED
// RESERVED: reserved.mlir:1:1: error: symbol '__memrun_arg0' is reserved by mem-run

// A bad --pipeline, and one that fails.
// RUN: not mem-run %t/two-steps.mlir --func b --pipeline='func.func(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: mem-run: error: invalid --pipeline 'func.func(no-such-pass)': {{.*}}no-such-pass
// RUN: not mem-run %t/verify.mlir --pipeline='func.func(train-verify-step)' 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: verify.mlir:3:8: error: 'train.param' op state "w" is read with type 'tensor<8xf32>', but earlier with type 'tensor<4xf32>'
// VERIFY: mem-run: error: --pipeline 'func.func(train-verify-step)' failed

// Globals larger than the machine's memory are refused before compiling
// (the JIT would abort): six 16 TiB parameters (the most one tensor may
// take), a 16-byte result and its 64-byte buffer.
// RUN: not mem-run %t/huge.mlir 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: mem-run: error: the step needs {{[0-9]+}} bytes, more than this machine's memory ({{[0-9]+}} bytes): its parameters, optimizer states, arguments and results take 105553116266512 bytes and it allocates 64 bytes at its peak

// Option checks.
// RUN: not mem-run %t/two-steps.mlir --func b --steps 0 --measure-peak 2>&1 | FileCheck %s --check-prefix=PEAK0
// PEAK0: mem-run: error: --measure-peak needs at least one step (--steps >= 1)
// RUN: not mem-run %t/two-steps.mlir --func b --opt-level 7 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: mem-run: error: --opt-level must be 0, 1, 2 or 3{{$}}

//--- parse.mlir
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = train.nope %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

//--- no-step.mlir
func.func private @step(tensor<4xf32>) -> tensor<4xf32>

//--- two-steps.mlir
func.func private @decl(tensor<4xf32>) -> tensor<4xf32>
func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = train.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @b() -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %y = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

//--- scalar-arg.mlir
func.func @step(%x: f32) -> f32 {
  return %x : f32
}

//--- dynamic-arg.mlir
func.func @step(%x: tensor<?xf32>) {
  return
}

//--- dynamic-result.mlir
func.func @step() -> tensor<?xf32> {
  %c = arith.constant 4 : index
  %e = tensor.empty(%c) : tensor<?xf32>
  return %e : tensor<?xf32>
}

//--- int-arg.mlir
func.func @step(%ids: tensor<4xi64>) {
  return
}

//--- unlowered.mlir
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = math.absf %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

//--- gpu-op.mlir
func.func @step() -> tensor<1xi64> {
  %i = gpu.thread_id x
  %c = arith.index_cast %i : index to i64
  %t = tensor.from_elements %c : tensor<1xi64>
  return %t : tensor<1xi64>
}

//--- huge.mlir
func.func @step() -> tensor<4xf32> {
  %w = train.param "w" : tensor<4398046511104xf32>
  %v = train.param "v" : tensor<4398046511104xf32>
  %u = train.param "u" : tensor<4398046511104xf32>
  %t = train.param "t" : tensor<4398046511104xf32>
  %s = train.param "s" : tensor<4398046511104xf32>
  %r = train.param "r" : tensor<4398046511104xf32>
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}

//--- reserved.mlir
memref.global @__memrun_arg0 : memref<4xf32> = uninitialized
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = train.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

//--- verify.mlir
func.func @step() -> tensor<4xf32> {
  %w = train.param "w" : tensor<4xf32>
  %v = train.param "w" : tensor<8xf32>
  %y = train.relu %w : tensor<4xf32>
  return %y : tensor<4xf32>
}

//--- collective.mlir
shard.grid @dp(shape = 2)
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = shard.all_reduce %x on @dp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
