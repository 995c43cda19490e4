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

#endif // MEMOPT_CONVERSION_PASSES_TD
