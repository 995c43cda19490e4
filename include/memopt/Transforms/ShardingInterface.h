//===- ShardingInterface.h - train-shard's per-op rules ---------*- C++ -*-===//
//
// ShardPropagationOpInterface (ShardingInterface.td): how a tensor-parallel
// split of an op's operands propagates to its results. This header holds
// what the rules read and decide (TensorSplit, the Simulation of a set of
// candidate regions, and ShardPropagationState, one op's view of it), the
// shape helpers the rules share with train-shard's planning, and the
// registration of the train ops' rules (lib/Transforms/ShardingModels.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_SHARDINGINTERFACE_H
#define MEMOPT_TRANSFORMS_SHARDINGINTERFACE_H

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;

namespace memopt {

/// How a value is split over the tensor-parallel axis: dimension `dim`,
/// viewed as `blocks x tp x n`, keeps one `n`-block per block.
struct TensorSplit {
  int64_t dim = -1;
  int64_t blocks = 1;
  /// The candidate regions this value belongs to.
  llvm::BitVector starts;
  /// Split over the KV heads only (grid axis 1), each part replicated over
  /// axis 2: the keys and values of an attention with fewer KV heads than
  /// tp, and the projections that compute them.
  bool kvOnly = false;
};

/// The result of simulating a set of candidate regions.
struct Simulation {
  llvm::DenseMap<Value, TensorSplit> splits;
  /// Matmuls that start a region (column-parallel) and end one
  /// (row-parallel), in program order.
  llvm::SetVector<Operation *> columnParallel, rowParallel;
  /// The candidate regions left out of this simulation.
  llvm::BitVector dropped;
  /// Vocabulary parallelism: the cross-entropies that end a region (their
  /// logits split along the classes), and those regions.
  llvm::SetVector<Operation *> vocabLosses;
  llvm::BitVector vocabRegions;
  /// Set when a region reached an op without a rule: the op and the regions.
  Operation *failedAt = nullptr;
  llvm::BitVector blamed;
  std::string reason;
};

/// What the rules know of the partition train-shard plans.
struct ShardPropagationConfig {
  /// The tensor-parallel degree.
  int64_t tp = 1;
  /// The KV heads each replicated over tp / kvHeads processes (0 when none
  /// is replicated).
  int64_t kvHeads = 0;
  /// Whether a cross-entropy of logits split along the classes ends a
  /// region (vocabulary parallelism).
  bool vocabParallel = false;
  /// One bit per candidate region: set for the regions a matmul by an
  /// embedding table starts (a tied LM head), which only a vocabulary-
  /// parallel cross-entropy may end.
  llvm::BitVector tiedRegions;
};

/// One op's view of a simulation: its operands' splits, and what its rule
/// (ShardPropagationOpInterface) decides. Every result split it records
/// belongs to the regions of the op's split operands.
class ShardPropagationState {
public:
  /// Collects the splits of `op`'s operands in `sim`.
  ShardPropagationState(Operation *op, Simulation &sim,
                        const ShardPropagationConfig &config);

  Operation *getOp() const { return op; }
  /// The split of each operand, in order; std::nullopt where it is whole.
  ArrayRef<std::optional<TensorSplit>> getOperandSplits() const {
    return operandSplits;
  }
  const std::optional<TensorSplit> &getOperandSplit(unsigned index) const {
    return operandSplits[index];
  }
  /// Whether some operand is split.
  bool hasSplitOperand() const { return anySplit; }
  /// Whether some operand is split over the KV heads only; the results'
  /// splits are too unless a rule clears it (an attention's outputs are
  /// split over all the heads).
  bool isKvOnly() const { return kvOnly; }
  void setKvOnly(bool value) { kvOnly = value; }

  int64_t getTensorParallelSize() const { return config.tp; }
  bool isVocabParallel() const { return config.vocabParallel; }
  /// The number of parts a split makes: the KV heads for a split over them
  /// only, else tp.
  int64_t getParts(const TensorSplit &split) const {
    return split.kvOnly ? config.kvHeads : config.tp;
  }

  /// Records that `value` (a result) is split along `dim` in `blocks`.
  void setSplit(Value value, int64_t dim, int64_t blocks = 1);
  /// Records that the split cannot pass the op, blaming the operands'
  /// regions; returns failure.
  LogicalResult fail(const Twine &reason);
  /// The failure of an op without a rule.
  LogicalResult failNoRule() { return fail("no tensor-parallel rule"); }
  /// Ends the regions at a row-parallel matmul (its partial sums are
  /// summed over the processes); fails where they cannot end there.
  LogicalResult endRowParallel();
  /// Ends the regions at a vocabulary-parallel cross-entropy.
  void endVocabParallel();

private:
  Operation *op;
  Simulation &sim;
  const ShardPropagationConfig &config;
  /// Copies: setSplit inserts into sim.splits, which may move its entries.
  SmallVector<std::optional<TensorSplit>> operandSplits;
  llvm::BitVector starts;
  bool anySplit = false;
  bool kvOnly = false;
};

/// The parameter `value` is, directly or through a cast (its low-precision
/// copy), when neither has another use; null otherwise.
train::ParamOp getOwnParam(Value value);

/// The dimension of `type` a reshape to `resultType` maps dimension `dim`
/// onto, when a split of `dim` into contiguous chunks is a split of that
/// dimension into contiguous chunks (whether `parts` divides it is the
/// caller's check); std::nullopt otherwise. A split into one part (one KV
/// head) stays on the group's leading dimension even when it is a unit one
/// (the heads of `b x s x 1 x d`).
std::optional<int64_t> mapReshapeDim(RankedTensorType type,
                                     RankedTensorType resultType, int64_t dim,
                                     int64_t parts);

/// Whether `attention` has fewer KV heads than tp (a divisor of it), and as
/// many query heads as tp divides.
bool needsKvReplication(train::AttentionOp attention, int64_t tp);

/// Attaches the train ops' ShardPropagationOpInterface rules (a dialect
/// extension of the train dialect).
void registerShardingInterfaceModels(DialectRegistry &registry);

} // namespace memopt
} // namespace mlir

#include "memopt/Transforms/ShardingInterface.h.inc"

#endif // MEMOPT_TRANSFORMS_SHARDINGINTERFACE_H
