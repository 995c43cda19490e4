//===- FineTuning.cpp - the largest micro-batch that fits one device ------===//
//
// mem-autoplan's answer to "does this fine-tuning fit my card, and with
// what micro-batch and sequence" (docs/autoplan.md#fitting-one-device): for
// each sequence length and recomputation choice, the largest micro-batch
// whose step fits, found on screens (LOAD composed from 2 and 3 layers) by
// doubling and bisection, then planned in full.
//
//===----------------------------------------------------------------------===//

#include "memopt/Autoplan/Autoplan.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::autoplan;

/// `candidate` at micro-batch `microBatch`, its options' global batch the
/// micro-batch (for tokens per second).
static Evaluation evaluateAt(MLIRContext &context, const StepSource &source,
                             SearchOptions options, Candidate candidate,
                             int64_t microBatch, bool planned) {
  candidate.microBatch = microBatch;
  options.globalBatch = microBatch;
  return planned ? evaluateCandidate(context, source, options, candidate)
                 : screenCandidate(context, source, options, candidate);
}

FitRow mlir::memopt::autoplan::findLargestFit(MLIRContext &context,
                                              const StepSource &source,
                                              const SearchOptions &options,
                                              const Candidate &base,
                                              int64_t maxMicroBatch) {
  FitRow row;
  row.candidate = base;
  auto fits = [&](int64_t microBatch) {
    Evaluation evaluation =
        evaluateAt(context, source, options, base, microBatch, false);
    ++row.screens;
    if (evaluation.status == Evaluation::Status::Invalid && row.reason.empty())
      row.reason = evaluation.reason;
    if (evaluation.status != Evaluation::Status::Fits && !row.smallest)
      row.smallest = evaluation;
    return evaluation.status == Evaluation::Status::Fits;
  };
  // Doubling, then bisection between the last micro-batch that fits and the
  // first that does not (memory never shrinks as the micro-batch grows).
  int64_t low = 0, high = 0;
  for (int64_t microBatch = 1; microBatch <= maxMicroBatch; microBatch *= 2) {
    if (!fits(microBatch)) {
      high = microBatch;
      break;
    }
    low = microBatch;
  }
  if (low == 0)
    return row;
  if (high == 0)
    high = std::min<int64_t>(2 * low, maxMicroBatch + 1);
  while (high - low > 1) {
    int64_t middle = low + (high - low) / 2;
    (fits(middle) ? low : high) = middle;
  }
  // The planned arena is the LOAD plus the planner's fragmentation: step
  // down until the plan fits.
  for (; low >= 1; --low) {
    Evaluation planned = evaluateAt(context, source, options, base, low, true);
    ++row.plans;
    if (planned.status == Evaluation::Status::Fits) {
      row.largest = planned;
      break;
    }
  }
  return row;
}
