//===- FitTable.h - mem-autoplan on one device without a batch --*- C++ -*-===//
//
// `mem-autoplan --devices 1` without `--global-batch`: per sequence length
// and recomputation choice, the largest micro-batch whose step fits the
// device (fine-tuning's question: "does it fit my card, and with what?").
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TOOLS_MEM_AUTOPLAN_FITTABLE_H
#define MEMOPT_TOOLS_MEM_AUTOPLAN_FITTABLE_H

#include "memopt/Autoplan/Autoplan.h"

#include <functional>

namespace mlir::memopt::autoplan {

struct FitTableRequest {
  /// The model at sequence length `seq` (its forward + loss, fine-tuning
  /// passes applied); fails with a diagnostic.
  std::function<FailureOr<StepSource>(int64_t seq)> makeSource;
  SmallVector<int64_t> sequences;
  /// One device; the precision is options.precisions.front().
  SearchOptions options;
  SmallVector<RematChoice> remat;
  int64_t maxMicroBatch = 1024;
  std::string description;
  int64_t parameterCount = 0;
  int64_t trainableCount = 0;
  bool json = false;
};

/// Prints the table (or its JSON, schema memopt.autoplan-fit/1). Fails
/// when nothing fits, with the smallest configuration's verdict.
LogicalResult runFitTable(MLIRContext &context, const FitTableRequest &request);

} // namespace mlir::memopt::autoplan

#endif // MEMOPT_TOOLS_MEM_AUTOPLAN_FITTABLE_H
