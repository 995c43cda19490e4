//===- PipelineSchedule.h - pipeline schedules and stage splits -*- C++ -*-===//
//
// What train-pipeline decides before it builds any IR: the order in which a
// stage runs its micro-batches' forward and backward passes, the split of a
// step's layers into stages, the schedule's idle fraction, and a check that
// the stages' point-to-point exchanges complete.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_PIPELINESCHEDULE_H
#define MEMOPT_ANALYSIS_PIPELINESCHEDULE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::memopt {

/// The pipeline schedules train-pipeline builds.
enum class PipelineSchedule {
  /// PipeDream-Flush (Narayanan et al. 2021), Megatron-LM's default.
  OneFOneB,
  /// Every forward pass, then every backward pass (Huang et al. 2019).
  GPipe,
  /// 1F1B over `v` model chunks per stage (Narayanan et al. 2021,
  /// Megatron-LM's interleaved schedule).
  Interleaved,
  /// 1F1B with each backward pass split into its input-gradient part (B)
  /// and its weight-gradient part (W), stage `s` deferring `s` weight
  /// passes into the cool-down (Qi et al. 2024, ZB-H1).
  ZeroBubbleH1,
};

/// The schedule named `name` (`1f1b`, `gpipe`, `interleaved`, `zb-h1`), or
/// nullopt.
std::optional<PipelineSchedule> parsePipelineSchedule(StringRef name);

/// The name train-pipeline records for `schedule`.
StringRef getPipelineScheduleName(PipelineSchedule schedule);

/// The kinds of pass a stage runs.
enum class PipelinePass {
  Forward,
  /// The backward pass; under ZB-H1 its input-gradient part only.
  Backward,
  /// ZB-H1's weight-gradient part of a backward pass.
  Weight,
};

/// One pass of one micro-batch through one of a stage's model chunks.
struct PipelineAction {
  PipelinePass pass = PipelinePass::Forward;
  int64_t microBatch = 0;
  /// The stage's model chunk (0 to v - 1; always 0 but for the interleaved
  /// schedule). Chunk `c` of stage `s` holds the step's `c * p + s`-th run
  /// of layers.
  int64_t chunk = 0;
};

/// Why `microBatches` micro-batches and `virtualStages` chunks per stage
/// do not suit `schedule` over `stages` stages, or nullopt when they do:
/// the interleaved schedule needs `virtualStages` >= 2 and a multiple of
/// `stages` micro-batches (as Megatron-LM), the others one chunk.
std::optional<std::string> checkScheduleShape(PipelineSchedule schedule,
                                              int64_t stages,
                                              int64_t microBatches,
                                              int64_t virtualStages);

/// The passes stage `stage` of `stages` runs, in order, for `microBatches`
/// micro-batches through `virtualStages` chunks (a shape
/// checkScheduleShape accepts). Each chunk runs its backward passes (and
/// weight passes) in micro-batch order.
SmallVector<PipelineAction> getStageSchedule(PipelineSchedule schedule,
                                             int64_t stages, int64_t stage,
                                             int64_t microBatches,
                                             int64_t virtualStages = 1);

/// The most passes of a stage's schedule that are in flight at once: a
/// chunk's forward pass of a micro-batch that has run and whose backward
/// pass (under ZB-H1, whose weight pass) has not. With one chunk, the most
/// micro-batches whose activations the stage holds.
int64_t getMicroBatchesInFlight(ArrayRef<PipelineAction> schedule);

/// The fraction of a step a stage is idle under `schedule` with every
/// stage's passes of equal time: (p - 1) / (m + p - 1) for 1F1B and
/// GPipe; (p - 1) / (v m + p - 1) interleaved (a chunk's pass is 1/v of the
/// stage's); ZB-H1, with the forward, input-gradient and weight-gradient
/// parts equal, (p - 1) / (3 m + p - 1) (its bubble is a third of 1F1B's).
double getBubbleFraction(PipelineSchedule schedule, int64_t stages,
                         int64_t microBatches, int64_t virtualStages = 1);

/// The first layer of each of `stages` contiguous stages over layers of
/// costs `layerCosts`, with `firstExtra` added to the first stage and
/// `lastExtra` to the last, that minimizes the largest stage's cost (ties:
/// the earliest boundaries). Needs at least `stages` layers.
SmallVector<int64_t> balanceStages(ArrayRef<int64_t> layerCosts,
                                   int64_t firstExtra, int64_t lastExtra,
                                   int64_t stages);

/// One message of a point-to-point exchange.
struct PipelineMessage {
  int64_t peer = 0;
  int64_t tag = 0;
  bool send = false;
};

/// Each stage's exchanges, in program order (each exchange starts all its
/// messages and ends when all have completed).
using StageExchanges = SmallVector<SmallVector<PipelineMessage>>;

/// Runs the stages' exchanges to the end under MPI's rules for
/// non-blocking transfers (a message completes once both sides have posted
/// it). Returns a description of the first problem: a message without its
/// counterpart, exchanges that wait on each other forever, or messages
/// between two stages that NCCL would pair wrongly (it pairs them in the
/// order they are issued, and the runtime issues each exchange's messages
/// by tag: every stage must receive another's messages in the order it
/// sends them, exchange by exchange, by tag within each); nullopt when
/// every exchange completes.
std::optional<std::string> checkExchanges(ArrayRef<StageExchanges> stages);

} // namespace mlir::memopt

#endif // MEMOPT_ANALYSIS_PIPELINESCHEDULE_H
