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
};

/// The schedule named `name` (`1f1b`, `gpipe`), or nullopt.
std::optional<PipelineSchedule> parsePipelineSchedule(StringRef name);

/// The name train-pipeline records for `schedule`.
StringRef getPipelineScheduleName(PipelineSchedule schedule);

/// One pass of one micro-batch on a stage.
struct PipelineAction {
  bool backward = false;
  int64_t microBatch = 0;
};

/// The passes stage `stage` of `stages` runs, in order, for `microBatches`
/// micro-batches. Backward passes run in micro-batch order on every
/// schedule.
SmallVector<PipelineAction> getStageSchedule(PipelineSchedule schedule,
                                             int64_t stages, int64_t stage,
                                             int64_t microBatches);

/// The most micro-batches whose forward pass stage `stage` has run and whose
/// backward pass it has not, over its schedule.
int64_t getMicroBatchesInFlight(ArrayRef<PipelineAction> schedule);

/// The fraction of a step a stage is idle under `schedule` with equal
/// forward and backward times per stage: (p - 1) / (m + p - 1) for both
/// 1F1B and GPipe.
double getBubbleFraction(PipelineSchedule schedule, int64_t stages,
                         int64_t microBatches);

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
/// counterpart, or exchanges that wait on each other forever; nullopt when
/// every exchange completes.
std::optional<std::string> checkExchanges(ArrayRef<StageExchanges> stages);

} // namespace mlir::memopt

#endif // MEMOPT_ANALYSIS_PIPELINESCHEDULE_H
