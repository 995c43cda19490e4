//===- PipelineStage.h - the stage of a pipelined step a process runs -*- C++
//-*-===//
//
// A module train-pipeline produced holds one function per pipeline stage.
// Each process of a run keeps the stage its rank runs and compiles only that
// one; what it needs to know of the others (every parameter of the step, and
// how many stages hold each) is kept here, so that per-parameter summaries
// can be combined over the processes in the same order on all of them.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_EXECUTION_PIPELINESTAGE_H
#define MEMOPT_EXECUTION_PIPELINESTAGE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::memopt::execution {

/// A pipelined step's stages, as one process sees them.
struct PipelineRun {
  /// The stages (0 when the module is not pipelined), and this process's.
  int64_t stages = 0;
  int64_t stage = 0;
  /// Every parameter of the step, in the order the stages read them (stage
  /// 0's first), with the number of stages that hold a copy.
  struct Param {
    std::string name;
    RankedTensorType type;
    int64_t holders = 0;
    /// Its `train.split` triples (train-shard's), empty for a whole one.
    std::vector<int64_t> split;
  };
  std::vector<Param> params;
};

/// When `module` holds pipeline stages (functions with `train.pipeline`),
/// erases all but the stage of the process with world rank `rank` (or
/// `chosenStage`, when set: the build of one stage's binary) and sets
/// `stepName` to its name. `requested` is the name the user asked for (it must
/// be empty: each process runs its own stage). A module without stages is left
/// alone and gives `stages == 0`. Fails with a diagnostic at
/// getExecutionLoc() on an inconsistent module or a `chosenStage` it lacks.
FailureOr<PipelineRun>
selectPipelineStage(ModuleOp module, int64_t rank, StringRef requested,
                    std::string &stepName,
                    std::optional<int64_t> chosenStage = std::nullopt);

} // namespace mlir::memopt::execution

#endif // MEMOPT_EXECUTION_PIPELINESTAGE_H
