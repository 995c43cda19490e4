//===- TrainAutoplan.cpp - train-autoplan: the search as a pass -----------===//
//
// Runs mem-autoplan's search on the module's step and replaces the module by
// the best configuration's planned step (docs/autoplan.md).
//
//===----------------------------------------------------------------------===//

#include "memopt/Autoplan/Autoplan.h"
#include "memopt/Autoplan/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINAUTOPLANPASS
#include "memopt/Autoplan/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::autoplan;

namespace {
struct TrainAutoplanPass
    : public memopt::impl::TrainAutoplanPassBase<TrainAutoplanPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<StepSource> source = getModuleSource(module);
    if (failed(source))
      return signalPassFailure();
    std::string model = "@" + getModelName(module);
    // Errors about the search are located at the step.
    Location loc = module.getLoc();
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        loc = func.getLoc();

    SearchRequest request;
    request.devices = devices;
    request.device = device;
    request.deviceMemory = deviceMemory;
    request.reserve = reserve;
    if (globalBatch.hasValue())
      request.globalBatch = static_cast<int64_t>(globalBatch);
    request.precisions.assign(precision.begin(), precision.end());
    request.tensorParallel.assign(tp.begin(), tp.end());
    request.zeroStages.assign(zero.begin(), zero.end());
    request.sequenceParallel.assign(sp.begin(), sp.end());
    request.remat.assign(remat.begin(), remat.end());
    request.optimizer = optimizer;
    request.top = 1;
    llvm::Expected<SearchOptions> options =
        makeSearchOptions(request, *source);
    if (!options) {
      emitError(loc, "train-autoplan: ") << llvm::toString(options.takeError());
      return signalPassFailure();
    }

    SearchResult result = search(getContext(), *source, *options);
    if (result.ranked.empty()) {
      emitError(loc, "train-autoplan: ")
          << describeNoFit(result, *options, model);
      return signalPassFailure();
    }
    const Evaluation &best = result.ranked.front();
    FailureOr<OwningOpRef<ModuleOp>> chosen;
    {
      // The passes' remarks (train-schedule's) are the search's business;
      // errors go on.
      ScopedDiagnosticHandler quiet(&getContext(), [](Diagnostic &diag) {
        return LogicalResult::success(diag.getSeverity() !=
                                      DiagnosticSeverity::Error);
      });
      chosen =
          buildCandidateStep(getContext(), *source, *options, best.candidate);
    }
    if (failed(chosen)) {
      emitError(loc, "train-autoplan: the chosen configuration (")
          << best.candidate.describe() << ") could not be built again";
      return signalPassFailure();
    }

    // The module becomes the chosen step: its function (and grid).
    Block &body = module.getBodyRegion().front();
    body.clear();
    Block &chosenBody = (**chosen).getBodyRegion().front();
    body.getOperations().splice(body.end(), chosenBody.getOperations());

    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        loc = func.getLoc();
    emitRemark(loc) << llvm::formatv(
        "train-autoplan: chose {0} of {1} candidates ({2} planned in full): "
        "per-process peak {3} of a budget of {4} ({5} x {6}); estimated "
        "step {7:F6} s",
        best.candidate.describe(), result.numCandidates, result.numPlanned,
        formatSize(best.peakBytes), formatSize(options->getBudget()),
        options->devices, options->device.name, best.cost.stepSeconds);
  }

  static std::string getModelName(ModuleOp module) {
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        return func.getName().str();
    return "";
  }
};
} // namespace
