//===- FuzzTorchGraph.cpp - mem-import's graph reader ---------------------===//
//
// libFuzzer target: parses the input as JSON (memopt::parseJson, as
// mem-import does; its run-length escapes expanded first, FuzzExpand.h, so
// that a small input reaches 100,000 levels of nesting) and imports it as an
// exported PyTorch graph (importTorchGraph, what mem-import runs). A
// document the importer rejects (with a message) is a correct answer; a
// crash, a sanitizer report, or an accepted document whose module does not
// verify is a finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzExpand.h"

#include "memopt/Import/TorchImport.h"

#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Support/Json.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;

static MLIRContext &getContext() {
  static MLIRContext *context = [] {
    auto *context = new MLIRContext(MLIRContext::Threading::DISABLED);
    context->loadDialect<memopt::train::TrainDialect, func::FuncDialect,
                         arith::ArithDialect>();
    // Rejections are diagnostics; they are correct answers.
    context->getDiagEngine().registerHandler([](Diagnostic &) {});
    return context;
  }();
  return *context;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::optional<std::string> text =
      mlir::memopt::fuzz::expandJsonInput(data, size);
  if (!text)
    return -1;
  llvm::Expected<llvm::json::Value> document = mlir::memopt::parseJson(*text);
  if (!document) {
    llvm::consumeError(document.takeError());
    return 0;
  }
  MLIRContext &context = getContext();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  if (failed(memopt::import::importTorchGraph(*document, *module, "forward",
                                              "graph.json")))
    return 0;
  if (failed(verify(*module))) {
    llvm::errs() << "memopt-fuzz-torch-graph: an accepted graph does not "
                    "verify\n";
    std::abort();
  }
  return 0;
}
