//===- Passes.td - memopt conversion passes ----------------*- tablegen -*-===//

#ifndef MEMOPT_CONVERSION_PASSES_TD
#define MEMOPT_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTrainToLinalgPass
    : Pass<"convert-train-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lowers train ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every train op into upstream ops on tensors: linalg named ops
    where upstream has them (matmul, batch_matmul, convolutions, pooling,
    transpose, broadcast, reduce, fill) and `linalg.generic` otherwise.

    Persistent state becomes module-level memory so that a step can run
    repeatedly and update it in place:

    * `train.param "N"` reads the global `@__param__N`, `train.opt_state "N"`
      the global `@__state__N` (both `memref.global`, uninitialized: the
      runtime initializes them);
    * optimizer ops compute the new values and write them back into those
      globals with `bufferization.materialize_in_destination`;
    * `train.dropout` reads the step's seed from the global `@__train_seed`
      (an `i64`) and derives each keep bit from (seed, op id, element index)
      with a counter-based hash, so a recomputed dropout reproduces its mask;
    * `train.free` is dropped: deallocation is left to bufferization.

    The conventions are what `mem-run` relies on to feed and read a step.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def MemoptFreeAfterLastUsePass
    : Pass<"memopt-free-after-last-use", "::mlir::func::FuncOp"> {
  let summary = "Moves each buffer's memref.dealloc right after its last use";
  let description = [{
    Ownership-based buffer deallocation frees buffers at the end of their
    block, so in a single-block training step every buffer would stay live
    until the step returns. This pass moves every unconditional
    `memref.dealloc` of a block up to just after the last op of that block
    that uses the buffer or anything derived from it (any memref result of an
    op using it counts as an alias, a conservative over-approximation), so
    the executed program frees each buffer where the memory model (and
    `train-lifetimes`) ends its lifetime. Part of `memopt-lower-to-cpu`,
    after deallocation is made explicit.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

#endif // MEMOPT_CONVERSION_PASSES_TD
