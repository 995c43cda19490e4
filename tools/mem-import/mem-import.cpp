//===- mem-import.cpp - PyTorch graphs to train dialect steps -------------===//
//
// Reads the JSON graph `python3 -m memopt_torch export` writes and prints the
// forward + loss function it describes in the train dialect (the library
// behind it is MemoptImport, include/memopt/Import/TorchImport.h). The
// workflow, the format and the supported ops are in docs/import.md.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Import/TorchImport.h"
#include "memopt/Models/Models.h"
#include "memopt/Support/AtomicFile.h"
#include "memopt/Support/Json.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace mlir::memopt;

namespace cl = llvm::cl;

static cl::OptionCategory importCategory("mem-import options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<graph.json>"),
                                      cl::init("-"), cl::cat(importCategory));

static cl::opt<std::string>
    outputFile("o", cl::desc("Output file (default: stdout)"),
               cl::value_desc("file"), cl::init("-"), cl::cat(importCategory));

static cl::opt<std::string>
    funcName("func-name",
             cl::desc("Name of the function built (default: forward)"),
             cl::init("forward"), cl::cat(importCategory));

static cl::opt<bool> printParamCount(
    "print-param-count",
    cl::desc("Print `param_count: N` (elements of every train.param of the "
             "function built) to stdout; with no -o, write no IR"),
    cl::init(false), cl::cat(importCategory));

static cl::opt<bool> printSupportedOps(
    "print-supported-ops",
    cl::desc("Print the ATen ops mem-import maps, as a Markdown table, and "
             "exit"),
    cl::init(false), cl::cat(importCategory));

static LogicalResult fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mem-import") << message << "\n";
  return failure();
}

/// The source lines the graph records (`loc.code` of its nodes), by
/// `file:line`.
static llvm::StringMap<std::string>
collectRecordedLines(const llvm::json::Value &document) {
  llvm::StringMap<std::string> lines;
  const llvm::json::Object *root = document.getAsObject();
  const llvm::json::Array *nodes = root ? root->getArray("nodes") : nullptr;
  if (!nodes)
    return lines;
  for (const llvm::json::Value &node : *nodes) {
    const llvm::json::Object *object = node.getAsObject();
    const llvm::json::Object *loc = object ? object->getObject("loc") : nullptr;
    if (!loc)
      continue;
    std::optional<StringRef> file = loc->getString("file");
    std::optional<int64_t> line = getJsonInteger(*loc, "line");
    std::optional<StringRef> code = loc->getString("code");
    if (file && line && code)
      lines[(*file + ":" + Twine(*line)).str()] = code->str();
  }
  return lines;
}

/// Line `line` (1-based) of the file `path`, trimmed: as the graph recorded
/// it, else read from the file; empty when neither has it.
static std::string
getSourceLine(llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> &cache,
              const llvm::StringMap<std::string> &recorded, StringRef path,
              unsigned line) {
  auto known = recorded.find((path + ":" + Twine(line)).str());
  if (known != recorded.end())
    return known->second;
  auto it = cache.find(path);
  if (it == cache.end()) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    it = cache.try_emplace(path, buffer ? std::move(*buffer) : nullptr).first;
  }
  if (!it->second)
    return "";
  SmallVector<StringRef> lines;
  it->second->getBuffer().split(lines, '\n');
  if (line == 0 || line > lines.size())
    return "";
  return lines[line - 1].trim().str();
}

static void printOpTable(llvm::raw_ostream &os) {
  os << "| ATen op | becomes |\n|---|---|\n";
  for (const import::SupportedOp &op : import::getSupportedOps())
    os << "| `" << op.target << "` | " << op.lowering << " |\n";
}

static LogicalResult runImport() {
  if (printSupportedOps) {
    printOpTable(llvm::outs());
    return success();
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (std::error_code error = buffer.getError())
    return fail("cannot read '" + inputFile + "': " + error.message());
  StringRef displayName = inputFile == "-" ? "<stdin>" : StringRef(inputFile);
  llvm::Expected<llvm::json::Value> document =
      parseJson((*buffer)->getBuffer());
  if (!document)
    return fail(displayName +
                ": not valid JSON: " + llvm::toString(document.takeError()));

  bool writeModule = !printParamCount || outputFile.getNumOccurrences();
  // Written whole or not at all (memopt/Support/AtomicFile.h).
  AtomicOutputFile output;
  if (writeModule)
    if (llvm::Error error = output.open(outputFile))
      return fail(llvm::toString(std::move(error)));

  MLIRContext context;
  context.loadDialect<func::FuncDialect, train::TrainDialect,
                      arith::ArithDialect>();
  // `file:line: error: message [module]`, then the user's source line.
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> sources;
  llvm::StringMap<std::string> recorded = collectRecordedLines(*document);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    Location loc = diag.getLocation();
    StringRef module;
    if (auto named = dyn_cast<NameLoc>(loc)) {
      module = named.getName().getValue();
      loc = named.getChildLoc();
    }
    std::string sourceLine;
    if (auto fileLoc = dyn_cast<FileLineColLoc>(loc)) {
      llvm::errs() << fileLoc.getFilename().getValue();
      if (fileLoc.getLine() > 0) {
        llvm::errs() << ":" << fileLoc.getLine();
        sourceLine =
            getSourceLine(sources, recorded, fileLoc.getFilename().getValue(),
                          fileLoc.getLine());
      }
    } else {
      llvm::errs() << loc;
    }
    llvm::errs() << ": ";
    llvm::WithColor::error(llvm::errs(), "") << diag;
    if (!module.empty())
      llvm::errs() << " [" << module << "]";
    llvm::errs() << "\n";
    if (!sourceLine.empty())
      llvm::errs() << "    " << sourceLine << "\n";
    for (Diagnostic &note : diag.getNotes())
      llvm::errs() << "  note: " << note << "\n";
    return success();
  });

  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  if (failed(import::importTorchGraph(*document, *module, funcName,
                                      displayName))) {
    output.discard();
    return failure();
  }
  if (printParamCount)
    llvm::outs() << "param_count: " << gen::countParameters(*module) << "\n";
  if (!writeModule)
    return success();
  OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  flags.useLocalScope();
  module->print(output.os(), flags);
  output.os() << "\n";
  if (llvm::Error error = output.commit())
    return fail(llvm::toString(std::move(error)));
  return success();
}

/// Debian's libLLVM.so registers options of every LLVM component; --help
/// shows mem-import's own.
int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions({&importCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "mem-import: builds the forward + loss function (train dialect) of a "
      "PyTorch model from the graph `python3 -m memopt_torch export` "
      "writes\n\n"
      "Example:\n"
      "  python3 -m memopt_torch export torchvision.models:resnet18 \\\n"
      "      --input 8x3x224x224 -o resnet18.json\n"
      "  mem-import resnet18.json -o resnet18.mlir\n"
      "  mem-opt resnet18.mlir --train-autodiff=optimizer=sgd "
      "--train-lifetimes --train-memory-report\n\n"
      "See docs/import.md for the graph format and the supported ops.\n");
  return failed(runImport()) ? 1 : 0;
}
