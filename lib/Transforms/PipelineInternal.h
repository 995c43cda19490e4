//===- PipelineInternal.h - train-pipeline's partition and stages ---------===//
//
// train-pipeline in two parts: TrainPipeline.cpp checks the step and
// partitions its forward pass into stages (StagePartition);
// PipelineStages.cpp builds each stage's program from the partition.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TRANSFORMS_PIPELINEINTERNAL_H
#define MEMOPT_LIB_TRANSFORMS_PIPELINEINTERNAL_H

#include "memopt/Analysis/PipelineSchedule.h"
#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Transforms/Autodiff.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <set>

#include <string>

namespace mlir::memopt::train {
class P2POp;
} // namespace mlir::memopt::train

namespace mlir::memopt::pipeline {

/// The forward + loss function of a step, split into stages, each of one or
/// more model chunks: the step's layers form `stages * virtualStages`
/// contiguous chunks, and chunk `c` runs on stage `c % stages` (Megatron-LM's
/// interleaved assignment; with one chunk per stage, chunk `s` is stage `s`).
struct StagePartition {
  int64_t stages = 1;
  int64_t virtualStages = 1;
  int64_t getNumChunks() const { return stages * virtualStages; }
  int64_t getStageOfChunk(int64_t chunk) const { return chunk % stages; }
  /// The step's train.layer names in program order, and each one's chunk.
  SmallVector<std::string> layers;
  SmallVector<int64_t> layerChunk;
  /// The chunk of every forward op that runs on one chunk (not parameters,
  /// and not the ops that read only arguments and constants).
  llvm::DenseMap<Operation *, int64_t> chunkOf;
  /// The ops that read only arguments and constants: each chunk that needs
  /// one computes it.
  llvm::DenseSet<Operation *> replicated;
  /// boundary[b]: the values chunk b sends to chunk b + 1 (computed on chunk
  /// b or earlier, read on chunk b + 1 or later), in program order.
  SmallVector<SmallVector<Value>> boundary;
  /// Each parameter name's position in the step and the chunks that read
  /// it (several for a tied parameter).
  llvm::StringMap<int64_t> paramIndex;
  llvm::StringMap<std::set<int64_t>> holders;
  /// The values that need a gradient in the whole forward pass.
  llvm::DenseSet<Value> active;
  /// The loss (the forward function's only result).
  Value loss;
};

/// What every stage's program is built from.
struct StageOptions {
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  int64_t microBatches = 1;
  int64_t virtualStages = 1;
  /// The ZeRO stage train-shard partitioned the step with (0: none).
  int64_t zero = 0;
  AutodiffOptions autodiff;
  std::optional<train::PrecisionConfig> precision;
  /// The name of the step the stages come from.
  std::string stepName;
  /// The grid the stages run on, and its axis along which they are laid
  /// out (the last).
  std::string gridName = "grid";
  int64_t axis = 0;
};

/// Builds stage `stage`'s program from `forward` (a forward + loss function)
/// and `partition`, named `<step>_stage<stage>`, not yet in a module.
/// Emits a diagnostic and fails when it cannot.
FailureOr<func::FuncOp> buildStage(func::FuncOp forward,
                                   const StagePartition &partition,
                                   int64_t stage, const StageOptions &options);

/// The exchanges of a stage's program, in program order.
StageExchanges collectExchanges(func::FuncOp stage);

/// A train.p2p at `b`'s insertion point.
train::P2POp createExchange(OpBuilder &b, Location loc, ValueRange sends,
                            ArrayRef<int64_t> sendTo,
                            ArrayRef<int64_t> sendTags, TypeRange recvTypes,
                            ArrayRef<int64_t> recvFrom,
                            ArrayRef<int64_t> recvTags);

/// Splits a backward pass's ops (in program order) into its input-gradient
/// part and its weight-gradient part (PipelineExchanges.cpp).
std::pair<SmallVector<Operation *>, SmallVector<Operation *>>
splitWeightPass(ArrayRef<Operation *> ops);

/// Groups the exchanges of an interleaved stage's passes (`passes`, in the
/// order of `schedule`, already in place) as Megatron-LM does.
void groupExchanges(OpBuilder &b, Location loc,
                    ArrayRef<PipelineAction> schedule,
                    ArrayRef<ArrayRef<Operation *>> passes);

/// Merges adjacent exchanges of `block` into one, unless the second sends
/// what the first receives.
void mergeExchanges(OpBuilder &b, Location loc, Block &block);

/// Numbers the messages from each stage to each other stage 0, 1, 2, ... in
/// the order the sender posts them (its exchanges in program order, each
/// one's sends in operand order), as tag = 2 * number + the old tag's
/// parity (odd: backward), on both sides. `stages` holds every stage, in
/// stage order. NCCL pairs messages by order, not tag: ordering each
/// exchange's messages by tag then gives both sides the sender's order.
void numberMessagesInSendOrder(ArrayRef<func::FuncOp> stages);

} // namespace mlir::memopt::pipeline

#endif // MEMOPT_LIB_TRANSFORMS_PIPELINEINTERNAL_H
