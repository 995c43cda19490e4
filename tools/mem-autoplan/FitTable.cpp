//===- FitTable.cpp - mem-autoplan on one device without a batch ----------===//

#include "FitTable.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::autoplan;

namespace {
struct FitResultRow {
  int64_t seq;
  FitRow fit;
};
} // namespace

static llvm::json::Value toJSON(const FitResultRow &row,
                                const SearchOptions &options) {
  const FitRow &fit = row.fit;
  llvm::json::Object object{
      {"seq", row.seq},
      {"remat", getRematChoiceName(fit.candidate.remat)},
      {"precision", train::stringifyPrecisionMode(fit.candidate.precision)},
      {"screens", fit.screens},
      {"plans", fit.plans},
      {"offload_optimizer", fit.candidate.offloadOptimizer}};
  if (!fit.largest) {
    object["micro_batch"] = nullptr;
    object["reason"] = fit.smallest ? fit.smallest->reason : fit.reason;
    return object;
  }
  const Evaluation &e = *fit.largest;
  object["micro_batch"] = e.candidate.microBatch;
  object["tokens"] = e.candidate.microBatch * row.seq;
  object["peak_bytes"] = e.peakBytes;
  object["headroom_bytes"] = options.getBudget() - e.peakBytes;
  object["model_state_bytes"] = e.modelStateBytes;
  object["saved_activation_bytes"] = e.savedActivationBytes;
  object["peak_op"] = e.peakOp;
  object["estimated_step_seconds"] = e.cost.stepSeconds;
  object["estimated_tokens_per_second"] = e.tokensPerSecond;
  object["host_peak_bytes"] = e.hostPeakBytes;
  return object;
}

static void printHeader(const FitTableRequest &request, llvm::raw_ostream &os) {
  const SearchOptions &options = request.options;
  os << "mem-autoplan: " << request.description << "\n"
     << "parameters: " << request.parameterCount << ", trainable "
     << request.trainableCount
     << llvm::formatv(" ({0:F2}%)",
                      100.0 * static_cast<double>(request.trainableCount) /
                          std::max<int64_t>(request.parameterCount, 1))
     << "\n"
     << "device: " << options.device.name << ", "
     << formatSize(options.deviceMemory) << ", reserve "
     << formatSize(options.reserve) << ": budget "
     << formatSize(options.getBudget()) << "; precision "
     << train::stringifyPrecisionMode(options.precisions.front()) << "\n"
     << "per sequence length and recomputation: the largest micro-batch "
        "whose planned step fits (memory from the passes; time estimated by "
        "the cost model)\n\n";
  os << llvm::formatv("{0,6} {1,-10} {2,5} {3,8} {4,11} {5,12} {6,12} "
                      "{7,11} {8,12}\n",
                      "seq", "remat", "mb", "tokens", "peak", "model states",
                      "activations", "headroom", "est. tok/s");
}

static void printRow(const FitResultRow &row, const SearchOptions &options,
                     llvm::raw_ostream &os) {
  const FitRow &fit = row.fit;
  StringRef remat = getRematChoiceName(fit.candidate.remat);
  if (!fit.largest) {
    std::string why = fit.smallest ? fit.smallest->reason : fit.reason;
    os << llvm::formatv(
        "{0,6} {1,-10} {2,5}   does not fit{3}: {4}\n", row.seq, remat, "-",
        fit.candidate.offloadOptimizer ? " with offload=optimizer" : "", why);
    return;
  }
  const Evaluation &e = *fit.largest;
  int64_t mb = e.candidate.microBatch;
  os << llvm::formatv(
      "{0,6} {1,-10} {2,5} {3,8} {4,11} {5,12} {6,12} "
      "{7,11} {8,12:F0}",
      row.seq, remat, mb, mb * row.seq, formatSize(e.peakBytes),
      formatSize(e.modelStateBytes), formatSize(e.savedActivationBytes),
      formatSize(options.getBudget() - e.peakBytes), e.tokensPerSecond);
  // The optimizer on the host: its memory there, beside the device's.
  if (fit.candidate.offloadOptimizer)
    os << "  offload=optimizer, host " << formatSize(e.hostPeakBytes);
  os << "\n";
}

/// The row of most tokens per micro-batch (ties: the longer sequence).
static const FitResultRow *findLargest(ArrayRef<FitResultRow> rows) {
  const FitResultRow *best = nullptr;
  auto tokens = [](const FitResultRow &row) {
    return row.fit.largest->candidate.microBatch * row.seq;
  };
  for (const FitResultRow &row : rows)
    if (row.fit.largest &&
        (!best || tokens(row) > tokens(*best) ||
         (tokens(row) == tokens(*best) && row.seq > best->seq)))
      best = &row;
  return best;
}

/// The largest micro-batch of one recomputation choice, with or without the
/// optimizer on the host.
static FitRow findFit(MLIRContext &context, const StepSource &source,
                      const FitTableRequest &request, RematChoice remat,
                      bool offloadOptimizer) {
  Candidate candidate;
  candidate.precision = request.options.precisions.front();
  candidate.remat = remat;
  candidate.offloadOptimizer = offloadOptimizer;
  return findLargestFit(context, source, request.options, candidate,
                        request.maxMicroBatch);
}

LogicalResult
mlir::memopt::autoplan::runFitTable(MLIRContext &context,
                                    const FitTableRequest &request) {
  auto start = std::chrono::steady_clock::now();
  const SearchOptions &options = request.options;
  std::vector<FitResultRow> rows;
  for (int64_t seq : request.sequences) {
    FailureOr<StepSource> source = request.makeSource(seq);
    if (failed(source))
      return failure();
    // The optimizer on the host: with offload=optimizer or all, and (auto)
    // where nothing fits on the device alone.
    using Mode = SearchOptions::OffloadMode;
    size_t first = rows.size();
    if (options.offload != Mode::Optimizer)
      for (RematChoice remat : request.remat)
        rows.push_back({seq, findFit(context, *source, request, remat,
                                     /*offloadOptimizer=*/false)});
    bool fits = llvm::any_of(
        ArrayRef(rows).drop_front(first),
        [](const FitResultRow &row) { return row.fit.largest.has_value(); });
    // (Auto shows only the offloaded rows that fit: those that do not
    // would repeat the rows above.)
    if (options.offload == Mode::Optimizer || options.offload == Mode::All ||
        (options.offload == Mode::Auto && !fits))
      for (RematChoice remat : request.remat) {
        FitRow fit = findFit(context, *source, request, remat,
                             /*offloadOptimizer=*/true);
        if (fit.largest || options.offload != Mode::Auto)
          rows.push_back({seq, std::move(fit)});
      }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const FitResultRow *best = findLargest(rows);
  llvm::raw_ostream &os = llvm::outs();
  if (request.json) {
    llvm::json::Array array;
    for (const FitResultRow &row : rows)
      array.push_back(toJSON(row, options));
    llvm::json::Object document{
        {"schema", "memopt.autoplan-fit/1"},
        {"model", request.description},
        {"parameters", request.parameterCount},
        {"trainable_parameters", request.trainableCount},
        {"device", options.device.name},
        {"device_memory_bytes", options.deviceMemory},
        {"reserve_bytes", options.reserve},
        {"budget_bytes", options.getBudget()},
        {"fits", best != nullptr},
        {"rows", std::move(array)}};
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(document)))
       << "\n";
  } else {
    printHeader(request, os);
    for (const FitResultRow &row : rows)
      printRow(row, options, os);
    os << llvm::formatv("\nsearched in {0:F1} s\n", seconds);
    if (best)
      os << "fits: the most tokens per micro-batch are "
         << best->fit.largest->candidate.microBatch * best->seq << " (seq "
         << best->seq << ", micro-batch "
         << best->fit.largest->candidate.microBatch << ", remat "
         << getRematChoiceName(best->fit.candidate.remat)
         << best->fit.candidate.describeOffload() << ")\n";
  }
  if (best)
    return success();
  llvm::WithColor::error(llvm::errs(), "mem-autoplan")
      << "nothing fits " << formatSize(options.getBudget())
      << ": not even a micro-batch of 1 at the shortest sequence tried\n";
  return failure();
}
