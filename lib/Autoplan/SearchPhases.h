//===- SearchPhases.h - the phases of mem-autoplan's search -----*- C++ -*-===//
//
// Internal to lib/Autoplan: search() (Ranking.cpp) runs phase 1, the
// candidates screened with monotonicity pruning (Candidates.cpp), then
// phase 2, the screened candidates planned in full, fastest first.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_AUTOPLAN_SEARCHPHASES_H
#define MEMOPT_LIB_AUTOPLAN_SEARCHPHASES_H

#include "memopt/Autoplan/Autoplan.h"

#include <vector>

namespace mlir::memopt::autoplan {

/// What phase 1 hands to phase 2.
struct ScreenedCandidates {
  /// Every candidate but greedy's that was screened (composed from 2 and 3
  /// layers where the model allows it, else planned in full), in search
  /// order.
  std::vector<Evaluation> screens;
  /// The greedy candidates, not planned, each with a lower bound of its
  /// time.
  std::vector<Evaluation> greedy;
};

/// Phase 1: every candidate of `options` but greedy's, screened, with
/// monotonicity pruning; greedy candidates wait for phase 2 with a lower
/// bound of their time. Every candidate offloads what the round's flags
/// say. Counts the candidates, the pruned ones and the composition checks
/// in `result`; reports each screen to `progress`.
ScreenedCandidates
screenCandidates(MLIRContext &context, const StepSource &source,
                 const SearchOptions &options,
                 llvm::function_ref<void(const Evaluation &)> progress,
                 SearchResult &result, bool offloadOptimizer,
                 bool offloadActivations);

} // namespace mlir::memopt::autoplan

#endif // MEMOPT_LIB_AUTOPLAN_SEARCHPHASES_H
