//===- TrainShardInternal.h - shared by the train-shard files ---*- C++ -*-===//
//
// Internal to the transforms library: the Sharder, which plans the
// partition of one function (TrainShardPlan.cpp: tensor, sequence, data and
// vocabulary parallelism, KV-head replication) and rewrites it into one
// process's program (TrainShardRewrite.cpp), and the grid both use. The pass
// (TrainShard.cpp) runs a Sharder per function; the per-op tensor-parallel
// rules are ShardPropagationOpInterface models (ShardingModels.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TRANSFORMS_TRAINSHARDINTERNAL_H
#define MEMOPT_LIB_TRANSFORMS_TRAINSHARDINTERNAL_H

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Transforms/ShardingInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <utility>

namespace mlir::memopt::detail {

/// The grid train-shard creates: axis 0 data-parallel, axis 1 tensor-parallel.
/// When tp exceeds a model's KV heads, the tensor-parallel axis is two: axis 1
/// numbers the KV heads and axis 2 the processes that replicate each (a
/// process's tensor-parallel index is then `kv * replicas + replica`).
inline constexpr StringLiteral kGridName = "grid";
inline constexpr int16_t kDataAxis = 0;
inline constexpr int16_t kTensorAxis = 1;
inline constexpr int16_t kReplicaAxis = 2;

/// What compute reads of `param`: its single cast (its low-precision copy),
/// else the parameter itself.
Value getParamRead(train::ParamOp param);

class Sharder {
public:
  Sharder(func::FuncOp func, int64_t dp, int64_t tp, int64_t zero,
          bool sequenceParallel, bool vocabParallel)
      : func(func), dp(dp), tp(tp), zero(zero),
        sequenceParallel(sequenceParallel),
        vocabParallel(vocabParallel && tp > 1), body(func.getBody().front()) {}

  /// Plans the partition; then `getReplicas` says how many processes each
  /// KV head needs (1 when none is replicated).
  LogicalResult analyze();
  int64_t getReplicas() const { return kvHeads ? tp / kvHeads : 1; }
  /// Rewrites the function into one process's program on a grid whose
  /// tensor-parallel axis replicates each KV head `replicas` times.
  LogicalResult rewrite(int64_t replicas);

private:
  // Planning (TrainShardPlan.cpp).
  LogicalResult planTensorParallel();
  LogicalResult planKvReplication();
  LogicalResult failNoColumnParallel();
  LogicalResult checkSplitsDivide();
  Simulation simulate(const llvm::BitVector &dropped);
  LogicalResult propagate(Operation *op, Simulation &sim);
  LogicalResult planDataParallel();
  LogicalResult planSequenceParallel();
  LogicalResult planSequenceArguments();
  LogicalResult planSequenceOp(Operation &op);
  LogicalResult propagateSequenceSplit(Operation &op,
                                       ArrayRef<std::optional<int64_t>> in,
                                       int64_t dim);
  LogicalResult setSeqDim(Operation &op, Value value, int64_t dim);
  void planVocabEmbeddings();

  // Rewriting (TrainShardRewrite.cpp), in the order rewrite() runs it.
  LogicalResult splitParameters(OpBuilder &builder,
                                SmallVectorImpl<Value> &replicatedWeights);
  SmallVector<Type> rewriteArguments(OpBuilder &builder);
  void enterReplicatedReads(OpBuilder &builder);
  void rewriteOps(OpBuilder &builder);
  void partitionDropouts(
      OpBuilder &builder,
      ArrayRef<std::pair<train::DropoutOp, SmallVector<int64_t>>> dropouts);
  void enterReplicatedWeights(OpBuilder &builder,
                              ArrayRef<Value> replicatedWeights);
  void rewriteVocabParallel(OpBuilder &builder);
  void averageLoss(OpBuilder &builder);
  void partitionParameters(OpBuilder &builder);
  void setShardAttr(OpBuilder &builder);
  void warnUnsplitLayers();
  RankedTensorType getLocalType(Value value);
  /// The number of parts a tensor-parallel split makes.
  int64_t getParts(const TensorSplit &split) const {
    return split.kvOnly ? kvHeads : tp;
  }
  /// The grid axes of tensor-parallel collectives.
  SmallVector<int16_t> getTensorAxes() const {
    if (replicas > 1)
      return {kTensorAxis, kReplicaAxis};
    return {kTensorAxis};
  }
  /// The `train.split` triples of a tensor-parallel split of `dim`.
  SmallVector<int64_t> getSplitTriples(int64_t dim, int64_t blocks,
                                       bool kvOnly) const;
  /// This process's index on the tensor-parallel axes.
  Value buildTensorIndex(OpBuilder &builder, Location loc);

  /// The parameter a candidate matmul reads as its rhs (through a cast), or
  /// null.
  train::ParamOp getWeight(train::MatmulOp matmul);
  /// The parameter of a column-parallel matmul: its own weight, or (a
  /// vocabulary-parallel head) an embedding table it shares.
  train::ParamOp getRegionWeight(train::MatmulOp matmul) {
    if (train::ParamOp param = getWeight(matmul))
      return param;
    return getTiedTable(matmul);
  }
  train::ParamOp getTiedTable(train::MatmulOp matmul);

  func::FuncOp func;
  int64_t dp, tp, zero;
  bool sequenceParallel, vocabParallel;
  Block &body;
  /// Candidate column-parallel matmuls, indexed by region number.
  SmallVector<train::MatmulOp> candidates;
  /// What the ops' rules know of the partition, among it the candidates
  /// whose weight is an embedding table too (they can only end at a
  /// vocabulary-parallel cross-entropy).
  ShardPropagationConfig rules;
  /// Vocabulary parallelism: the embeddings split along the vocabulary,
  /// their tables, and (with sequence parallelism) those whose summed rows
  /// are reduce-scattered along the sequence.
  SmallVector<train::EmbeddingOp> vocabEmbeddings;
  SmallVector<Value> vocabTables;
  llvm::SmallPtrSet<Operation *, 2> seqScatteredEmbeddings;
  Simulation plan;
  /// KV-head replication: the candidate regions whose splits are over the
  /// KV heads only, the KV heads (0 when none is replicated), and the
  /// grid's replicas of each.
  llvm::BitVector kvRegions;
  int64_t kvHeads = 0;
  int64_t replicas = 1;
  /// Values split along the batch: the dimension.
  llvm::DenseMap<Value, int64_t> batchDims;
  /// Sequence parallelism: values split along the sequence over the
  /// tensor-parallel axis (the dimension); the inputs of column-parallel
  /// matmuls gathered along it (the dimension); the sequence dimension of
  /// each region's partial sums, by candidate region; the operands that
  /// read a parameter whole from a per-token op; whether the returned loss
  /// is a process's share.
  llvm::DenseMap<Value, int64_t> seqDims;
  llvm::MapVector<Value, int64_t> seqGathers;
  llvm::DenseMap<unsigned, int64_t> regionSeqDims;
  SmallVector<OpOperand *> replicatedReads;
  bool seqLoss = false;
};

} // namespace mlir::memopt::detail

#endif // MEMOPT_LIB_TRANSFORMS_TRAINSHARDINTERNAL_H
