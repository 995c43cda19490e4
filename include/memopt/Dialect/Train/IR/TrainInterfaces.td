//===- TrainInterfaces.td - train op interfaces ------------*- tablegen -*-===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAININTERFACES_TD
#define MEMOPT_DIALECT_TRAIN_IR_TRAININTERFACES_TD

include "mlir/IR/OpBase.td"

def Train_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::mlir::memopt::train";
  let description = [{
    The cost of executing one op: floating-point operations, bytes read from
    and written to its operands and results, and the scratch (workspace) bytes
    the op needs while it runs. The memory model adds an op's workspace to the
    live bytes at that op's program point; the remat cost model uses FLOPs.

    Bytes follow the memory model: `n` elements of type `T` take
    `n * ceil(bitwidth(T) / 8)` bytes (i1 masks are stored as bytes). Views
    read and write nothing; in-place updates write the updated operands.
  }];
  let methods = [
    InterfaceMethod<
      "Returns the number of floating-point operations of the op.",
      "int64_t", "getFlops">,
    InterfaceMethod<
      "Returns the bytes the op reads from its operands.",
      "int64_t", "getBytesRead", (ins), "",
      [{ return ::mlir::memopt::train::detail::getDefaultBytesRead($_op); }]>,
    InterfaceMethod<
      "Returns the bytes the op writes: new results and in-place updates.",
      "int64_t", "getBytesWritten", (ins), "",
      [{ return ::mlir::memopt::train::detail::getDefaultBytesWritten($_op); }]>,
    InterfaceMethod<[{
        Returns the size in bytes of each scratch buffer (workspace) the op's
        lowering allocates and frees while the op executes, one entry per
        allocation: the memory model pads each to the allocation granularity
        separately and counts them all live together with the op's operands
        and results. Empty by default (the op computes straight into its
        results). An op whose scratch can exceed its largest operand or
        result says why in its description (test/Dialect/Train/
        workspace-ratios.mlir lists every op's ratio on reference shapes).
      }],
      "::llvm::SmallVector<int64_t>", "getWorkspaceBuffers", (ins), "",
      [{ return {}; }]>,
    InterfaceMethod<
      "Returns the scratch bytes live only while the op executes: the sum "
      "of getWorkspaceBuffers().",
      "int64_t", "getWorkspaceBytes", (ins), "", [{
        int64_t bytes = 0;
        for (int64_t buffer : $_op.getWorkspaceBuffers())
          bytes += buffer;
        return bytes;
      }]>,
  ];
}

def Train_AliasingOpInterface : OpInterface<"AliasingOpInterface"> {
  let cppNamespace = "::mlir::memopt::train";
  let description = [{
    Which results share storage with an operand. A view result (reshape,
    transpose, slice) is the same buffer as its source operand: it adds no
    bytes and extends the source buffer's live range. An operand updated in
    place (optimizer updates) is written without allocating. Ops with
    neither return the defaults: every result is a new buffer and no operand
    is written.
  }];
  let methods = [
    InterfaceMethod<
      "Returns the index of the operand that result `resultIndex` is a view "
      "of, or std::nullopt if the result is a new buffer.",
      "std::optional<unsigned>", "getViewSource", (ins "unsigned":$resultIndex),
      "", [{
        if constexpr (ConcreteOp::template hasTrait<
                          ::mlir::memopt::train::ViewOp>())
          return 0u;
        return std::nullopt;
      }]>,
    InterfaceMethod<
      "Returns true if the op overwrites operand `operandIndex` in place.",
      "bool", "isUpdatedInPlace", (ins "unsigned":$operandIndex), "",
      [{ return false; }]>,
  ];
}

def Train_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::memopt::train";
  let description = [{
    The gradient rule of a forward op: given the gradients flowing into its
    results, builds the ops that compute the gradients of its operands (the
    chain rule for this op). The rule uses gradient ops (`train.relu_grad`,
    ...) or forward ops (matmul is reused for both matmul gradients); the
    forward values it reads are exactly what a training step must keep alive
    between forward and backward ("saved for backward"), so each op's ODS
    description documents them. `train-autodiff` calls the rules in reverse
    program order and accumulates gradients of values with several uses.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds the gradients of the operands at the builder's insertion
        point. `resultGrads` has one value per result, null where no gradient
        flows into that result; `needed` says which operands need a
        gradient. On success `operandGrads` holds one value per operand (null
        where not needed or not differentiable, e.g. integer ids), each of
        the operand's type. Fails with a diagnostic at the op when no rule
        applies (e.g. a gradient flowing into normalization statistics).
      }],
      "::mlir::LogicalResult", "buildGradients",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultGrads,
           "::llvm::ArrayRef<bool>":$needed,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>,
  ];
}

def Train_IndexOperandsOpInterface : OpInterface<"IndexOperandsOpInterface"> {
  let cppNamespace = "::mlir::memopt::train";
  let description = [{
    What an op requires of the values of its integer operands, so that a
    runtime that fills a step's integer arguments (mem-run, docs/execution.md)
    can pick values the step accepts without knowing individual ops:

    * an index operand (embedding ids, cross_entropy labels) must hold values
      in `[0, n)`, `n` given by another operand's or the result's shape;
    * an optimizer's step count (`train.adam`/`adamw`'s `step`) is the
      1-based number of the step, whatever its element type;
    * a view or rearrangement (reshape, transpose, slice) holds only values of
      its source, so what its result's users need, the source needs too.

    Every method has a default that requires nothing, so an op implements
    only what applies to it; ops without the interface require nothing.

    Example: for `train.embedding %table, %ids : tensor<50257x768xf32>,
    tensor<8x1024xi64> -> ...`, `getIndexBound(1)` is 50257.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns `n` when the op reads operand `operandIndex` as indices that
        must lie in `[0, n)`, std::nullopt when it sets no such bound.
      }],
      "std::optional<int64_t>", "getIndexBound", (ins "unsigned":$operandIndex),
      "", [{ return std::nullopt; }]>,
    InterfaceMethod<
      "Returns true if operand `operandIndex` is an optimizer's 1-based step "
      "count.",
      "bool", "isStepCount", (ins "unsigned":$operandIndex), "",
      [{ return false; }]>,
    InterfaceMethod<[{
        Returns true if every result holds only values of operand
        `operandIndex` (rearranged or selected, never computed), so that the
        requirements of the results' users apply to that operand.
      }],
      "bool", "forwardsValues", (ins "unsigned":$operandIndex), "",
      [{ return false; }]>,
  ];
}

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAININTERFACES_TD
