//===- ShardingInterface.td - train-shard's per-op rules ---*- tablegen -*-===//

#ifndef MEMOPT_TRANSFORMS_SHARDINGINTERFACE_TD
#define MEMOPT_TRANSFORMS_SHARDINGINTERFACE_TD

include "mlir/IR/OpBase.td"

def Memopt_ShardPropagationOpInterface
    : OpInterface<"ShardPropagationOpInterface"> {
  let cppNamespace = "::mlir::memopt";
  let description = [{
    How a tensor-parallel split of an op's operands propagates to its
    results: train-shard's rule for the op (Megatron-LM tensor parallelism;
    docs/sharding.md, "Simulation"). train-shard simulates candidate
    column-parallel regions in program order; at every op one of whose
    operands is split, it calls the op's rule with a
    `ShardPropagationState`, which holds the operands' splits (dimension,
    blocks, KV heads only) and records what the rule decides:

    * the split of each result (`setSplit`), when the op works per head or
      per column along the split;
    * the end of the region: a row-parallel matmul (`endRowParallel`) or a
      vocabulary-parallel loss (`endVocabParallel`);
    * or that the split cannot pass this op (`fail` with a reason): the
      regions that reach it are dropped and the simulation runs again
      without them.

    An op without the interface has no rule: a split reaching it fails with
    "no tensor-parallel rule". The rules are attached to the train ops as
    external models (`registerShardingInterfaceModels`).

    Upstream's `shard::ShardingInterface` describes an op by loop iterators
    and indexing maps over `shard.sharding` annotations; it has no notion of
    the candidate regions a split belongs to (which train-shard drops and
    retries), of splits in blocks (a fused QKV output), of splits over the
    KV heads only, or of where a region ends, so train-shard has its own.

    Example: the rule of `train.transpose` moves the split to the dimension
    its permutation maps the operand's split dimension to:

    ```mlir
    // %q is split along dimension 2 (the heads):
    %t = train.transpose %q {permutation = array<i64: 0, 2, 1, 3>}
        : tensor<8x128x12x64xf32> -> tensor<8x12x128x64xf32>
    // so %t is split along dimension 1.
    ```
  }];
  let methods = [
    InterfaceMethod<[{
        Applies the op's rule to the operands' splits in `state` (at least
        one operand is split): records the results' splits or the end of a
        region and returns success, or returns `state.fail(reason)` when the
        split cannot pass the op.
      }],
      "::llvm::LogicalResult", "propagateSharding",
      (ins "::mlir::memopt::ShardPropagationState &":$state)>,
  ];
}

#endif // MEMOPT_TRANSFORMS_SHARDINGINTERFACE_TD
