//===- TrainMemoryReport.cpp - write the memory report of a step ----------===//

#include "memopt/Report/MemoryReport.h"
#include "memopt/Report/Passes.h"
#include "memopt/Support/AtomicFile.h"
#include "memopt/Transforms/PassOptions.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINMEMORYREPORTPASS
#include "memopt/Report/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

namespace {

struct TrainMemoryReportPass
    : public memopt::impl::TrainMemoryReportPassBase<TrainMemoryReportPass> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(checkEnumPassOption("train-memory-report", "report format",
                                   options, format, errorHandler)))
      return failure();
    return parseOptionsNamingPass(
        "train-memory-report", options, errorHandler,
        [&](StringRef text,
            function_ref<LogicalResult(const Twine &)> handler) {
          return Base::initializeOptions(text, handler);
        });
  }

  /// The function named by `function`.
  FailureOr<FunctionOpInterface> lookupFunction(ModuleOp module) {
    auto func = dyn_cast_or_null<FunctionOpInterface>(
        SymbolTable::lookupSymbolIn(module, function));
    if (!func)
      return emitError(module.getLoc())
             << "no function named '" << function << "' to report on";
    return func;
  }

  /// The only function of `module` with a body.
  FailureOr<FunctionOpInterface> selectFunction(ModuleOp module) {
    SmallVector<FunctionOpInterface> withBody;
    for (auto func : module.getOps<FunctionOpInterface>())
      if (!func.isExternal())
        withBody.push_back(func);
    if (withBody.empty())
      return emitError(module.getLoc(),
                       "no function with a body to report on; "
                       "expected a module holding a training step");
    if (withBody.size() > 1) {
      InFlightDiagnostic diag = emitError(module.getLoc())
                                << withBody.size()
                                << " functions with a body (";
      llvm::interleaveComma(withBody, diag, [&](FunctionOpInterface func) {
        diag << "@" << SymbolTable::getSymbolName(func).getValue();
      });
      diag << "); choose the one to report on with function=NAME";
      return diag;
    }
    return withBody.front();
  }

  /// The report of the function named by `function`, else of the stage of
  /// the highest peak of a pipelined step, else of the only function with a
  /// body. A stage's report has the pipeline section.
  FailureOr<MemoryReport> createReport(ModuleOp module) {
    FunctionOpInterface chosen;
    if (!function.empty()) {
      FailureOr<FunctionOpInterface> named = lookupFunction(module);
      if (failed(named))
        return failure();
      chosen = *named;
    }
    FailureOr<SmallVector<FunctionOpInterface>> stages =
        findPipelineStages(module, chosen);
    if (failed(stages))
      return failure();
    if (!stages->empty())
      return MemoryReport::createForPipeline(*stages, chosen);
    if (!chosen) {
      FailureOr<FunctionOpInterface> only = selectFunction(module);
      if (failed(only))
        return failure();
      chosen = *only;
    }
    return MemoryReport::create(chosen);
  }

  void runOnOperation() override {
    // The report reads the IR and never changes it.
    markAllAnalysesPreserved();
    ModuleOp module = getOperation();
    ReportFormat reportFormat = format;
    FailureOr<MemoryReport> report = createReport(module);
    if (failed(report))
      return signalPassFailure();
    if (output.empty() || output == "-") {
      report->print(llvm::outs(), reportFormat);
      llvm::outs().flush();
      return;
    }
    // Written whole or not at all (memopt/Support/AtomicFile.h). The error
    // is at the module's location, not on the op: an op diagnostic would
    // print the whole module, which says nothing about a path.
    if (llvm::Error error = writeFileAtomically(output, [&](raw_ostream &os) {
          report->print(os, reportFormat);
        })) {
      emitError(module.getLoc())
          << "memory report: " << llvm::toString(std::move(error));
      return signalPassFailure();
    }
  }
};

} // namespace
