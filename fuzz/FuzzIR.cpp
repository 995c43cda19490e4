//===- FuzzIR.cpp - the train pipeline on fuzzed IR -----------------------===//
//
// libFuzzer target: parses the input as MLIR with the dialects mem-opt
// registers and, when it parses and verifies, runs what `mem-opt` runs on a
// step: train-verify-step, train-lifetimes, train-remat (algorithm and
// budget picked from a hash of the input), train-plan-memory,
// train-verify-plan, then the memory report of every function with a body
// in all four formats, into a string. Diagnostics are swallowed: an input
// rejected with a diagnostic is a correct answer; a crash, a sanitizer
// report or a pipeline that succeeds but leaves IR that does not verify is a
// finding.
//
// The passes only analyse and rewrite IR, so legitimately huge types
// (tensor<1000000000x1000000000xf32>) cost no memory; inputs are bounded to
// kMaxInputBytes so that the fuzzer looks for crashes, not slowness.
//
// MEMOPT_FUZZ_VERBOSE=1 prints the pipeline run on each input (to turn a
// finding into a mem-opt command line).
//
//===----------------------------------------------------------------------===//

#include "memopt/InitAll.h"
#include "memopt/Report/MemoryReport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

/// Larger inputs are skipped: their cost is in the analyses' size, not in
/// new behaviour.
static constexpr size_t kMaxInputBytes = 16 * 1024;

/// The remat algorithms that are deterministic and need no solver time
/// limit (`optimal`, and `auto` which may reach it, are left out).
static const char *const kRematAlgorithms[] = {"none",      "layers", "sqrt",
                                               "selective", "greedy", "chain"};
static const char *const kRematBudgets[] = {"", "1KiB", "64KiB", "1MiB",
                                            "1GiB"};

static MLIRContext &getContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    memopt::registerAllDialects(registry);
    auto *context = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    // Swallow every diagnostic: rejecting an input is not a finding.
    context->getDiagEngine().registerHandler([](Diagnostic &) {});
    memopt::registerAllPasses();
    return context;
  }();
  return *context;
}

/// FNV-1a of the input: picks the remat options, reproducibly.
static uint64_t hashInput(llvm::StringRef text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text)
    hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

/// Whether `text` declares a `shard.grid` with an extent of 0 (`shape = 0`,
/// `shape = 2x0`, ...).
static bool hasZeroGridExtent(llvm::StringRef text) {
  for (size_t at = text.find("shape"); at != llvm::StringRef::npos;
       at = text.find("shape", at + 1)) {
    llvm::StringRef rest = text.drop_front(at + 5).ltrim();
    if (!rest.consume_front("="))
      continue;
    llvm::StringRef extents = rest.ltrim().take_while(
        [](char c) { return llvm::isDigit(c) || c == 'x'; });
    llvm::SmallVector<llvm::StringRef> parts;
    extents.split(parts, 'x');
    for (llvm::StringRef part : parts)
      if (!part.empty() && part.find_first_not_of('0') == llvm::StringRef::npos)
        return true;
  }
  return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1;
  MLIRContext &context = getContext();
  // MLIR's lexer reads up to a null terminator, which files read by the
  // tools have and libFuzzer's data does not: parse a terminated copy.
  std::string text(reinterpret_cast<const char *>(data), size);
  // Upstream MLIR 22's linalg.reduce parser crashes on a truncated
  // `dimensions` list (docs/reliability.md, finding 5); the train pipeline
  // never reads linalg.reduce, so such inputs find nothing of ours.
  if (llvm::StringRef(text).contains("linalg.reduce"))
    return -1;
  // Upstream's shard collectives divide by the grid's extents when they
  // verify (finding 6): a grid with an extent of 0 crashes the verifier.
  if (hasZeroGridExtent(text))
    return -1;
  ParserConfig config(&context);
  // Parsing verifies the module.
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module)
    return 0;

  uint64_t hash = hashInput(text);
  std::string remat = std::string("algorithm=") +
                      kRematAlgorithms[hash % std::size(kRematAlgorithms)];
  llvm::StringRef budget = kRematBudgets[(hash / std::size(kRematAlgorithms)) %
                                         std::size(kRematBudgets)];
  if (!budget.empty())
    remat += (" budget=" + budget).str();
  std::string pipeline =
      "builtin.module(func.func(train-verify-step,train-lifetimes,"
      "train-remat{" +
      remat + "},train-plan-memory{search-budget=20000},train-verify-plan))";
  if (std::getenv("MEMOPT_FUZZ_VERBOSE"))
    llvm::errs() << "pipeline: " << pipeline << "\n";

  PassManager pm(&context);
  if (failed(parsePassPipeline(pipeline, pm))) {
    llvm::errs() << "memopt-fuzz-ir: bad pipeline " << pipeline << "\n";
    std::abort();
  }
  if (failed(pm.run(*module)))
    return 0;
  // A pipeline that succeeds leaves valid IR.
  if (failed(verify(*module))) {
    llvm::errs() << "memopt-fuzz-ir: the pipeline succeeded but the IR "
                    "does not verify:\n";
    module->print(llvm::errs());
    std::abort();
  }

  // The report of each step, as train-memory-report writes it.
  for (auto func : module->getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    FailureOr<memopt::MemoryReport> report = memopt::MemoryReport::create(func);
    if (failed(report))
      continue;
    std::string out;
    llvm::raw_string_ostream os(out);
    for (memopt::ReportFormat format :
         {memopt::ReportFormat::Text, memopt::ReportFormat::JSON,
          memopt::ReportFormat::HTML, memopt::ReportFormat::Trace})
      report->print(os, format);
  }
  return 0;
}
