//===- TrainMemoryReport.cpp - write the memory report of a step ----------===//

#include "memopt/Report/MemoryReport.h"
#include "memopt/Report/Passes.h"

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

/// Writes `path` atomically: `write` fills a temporary file in the same
/// directory, which is then renamed over `path`. On any error the temporary
/// file is removed and `path` is left as it was.
static LogicalResult
writeFileAtomically(Operation *anchor, StringRef path,
                    function_ref<void(raw_ostream &)> write) {
  // Diagnostics at a location, not at the op: an op diagnostic would print
  // the whole module (mem-opt's default), which says nothing about a path.
  auto fail = [&](const Twine &reason) {
    return emitError(anchor->getLoc())
           << "cannot write the memory report to '" << path << "': " << reason;
  };
  SmallString<256> model(llvm::sys::path::parent_path(path));
  llvm::sys::path::append(model, "." + llvm::sys::path::filename(path) +
                                     ".tmp-%%%%%%%%");
  llvm::Expected<llvm::sys::fs::TempFile> temp =
      llvm::sys::fs::TempFile::create(model);
  if (!temp)
    return fail(llvm::toString(temp.takeError()));
  std::error_code error;
  {
    llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
    write(os);
    os.flush();
    error = os.error();
    // The stream would abort on destruction with a pending error.
    os.clear_error();
  }
  if (error) {
    llvm::consumeError(temp->discard());
    return fail(error.message());
  }
  if (llvm::Error keepError = temp->keep(path))
    return fail(llvm::toString(std::move(keepError)));
  return success();
}

namespace {

struct TrainMemoryReportPass
    : public memopt::impl::TrainMemoryReportPassBase<TrainMemoryReportPass> {
  using Base::Base;

  /// The function to report on: `function`, or the only one with a body.
  FailureOr<FunctionOpInterface> selectFunction(ModuleOp module) {
    if (!function.empty()) {
      auto func = dyn_cast_or_null<FunctionOpInterface>(
          SymbolTable::lookupSymbolIn(module, function));
      if (!func)
        return emitError(module.getLoc())
               << "no function named '" << function << "' to report on";
      return func;
    }
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

  void runOnOperation() override {
    // The report reads the IR and never changes it.
    markAllAnalysesPreserved();
    ModuleOp module = getOperation();
    std::optional<ReportFormat> reportFormat = parseReportFormat(format);
    if (!reportFormat) {
      emitError(module.getLoc())
          << "unknown report format '" << format
          << "'; expected one of: " << getReportFormatNames();
      return signalPassFailure();
    }
    FailureOr<FunctionOpInterface> func = selectFunction(module);
    if (failed(func))
      return signalPassFailure();
    FailureOr<MemoryReport> report = MemoryReport::create(*func);
    if (failed(report))
      return signalPassFailure();
    if (output.empty() || output == "-") {
      report->print(llvm::outs(), *reportFormat);
      llvm::outs().flush();
      return;
    }
    if (failed(writeFileAtomically(module, output, [&](raw_ostream &os) {
          report->print(os, *reportFormat);
        })))
      return signalPassFailure();
  }
};

} // namespace
