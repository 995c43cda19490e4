//===- mem-report.cpp - the memory report of a PyTorch eager step ---------===//
//
// Reads a trace of a PyTorch eager training step (schema
// `memopt.eager-trace/1`, written by `python3 -m memopt_torch predict ...
// --trace FILE`) and prints memopt's memory report of it
// (MemoryReport::createFromTrace) as text, JSON, HTML or a Chrome/Perfetto
// trace: the same writers as `mem-opt --train-memory-report` on memopt's
// own steps (docs/report.md).
//
//===----------------------------------------------------------------------===//

#include "memopt/Report/MemoryReport.h"
#include "memopt/Support/AtomicFile.h"
#include "memopt/Support/Json.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::memopt;
namespace cl = llvm::cl;
using llvm::StringRef;
using llvm::Twine;

static cl::OptionCategory reportCategory("mem-report options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<trace.json | ->"),
                                      cl::init(""), cl::cat(reportCategory));

static cl::opt<std::string>
    format("format",
           cl::desc("text (default): a summary table; json: the whole "
                    "report, schema memopt.memory-report/1; html: one "
                    "self-contained page with an SVG timeline; trace: "
                    "Chrome/Perfetto trace-event JSON"),
           cl::value_desc("text|json|html|trace"), cl::init("text"),
           cl::cat(reportCategory));

static cl::opt<std::string>
    outputFile("o",
               cl::desc("Write the report to this file instead of stdout; "
                        "written atomically: on any error an existing file "
                        "is left as it was, never half-written"),
               cl::value_desc("file"), cl::init("-"), cl::cat(reportCategory));

/// Prints `mem-report: error: message`; returns false so callers can
/// `return fail(...)`.
static bool fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mem-report") << message << "\n";
  return false;
}

static bool runMemReport() {
  if (inputFile.empty())
    return fail("no input given; expected a trace of a PyTorch eager step "
                "(python3 -m memopt_torch predict ... --trace FILE), or - "
                "for stdin (see --help)");
  std::optional<ReportFormat> reportFormat = parseReportFormat(format);
  if (!reportFormat)
    return fail("--format=" + format +
                ": unknown report format; expected "
                "one of " +
                getReportFormatNames());
  StringRef name = inputFile == "-" ? "<stdin>" : StringRef(inputFile);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (!file)
    return fail("cannot read '" + inputFile +
                "': " + file.getError().message());
  // Parsed with a bounded depth; a key set twice is refused, since readers
  // differ on which value they keep (memopt/Support/Json.h).
  StringRef text = (*file)->getBuffer();
  llvm::Expected<llvm::json::Value> document = parseJson(text);
  if (!document)
    return fail(name +
                ": not valid JSON: " + llvm::toString(document.takeError()));
  if (std::optional<JsonDuplicateKey> duplicate = findDuplicateJsonKey(text))
    return fail(name + ":" + Twine(duplicate->line) + ":" +
                Twine(duplicate->column) + ": duplicate key '" +
                duplicate->key + "' (a key may be set only once)");
  llvm::Expected<MemoryReport> report =
      MemoryReport::createFromTrace(*document);
  if (!report)
    return fail(name + ": " + llvm::toString(report.takeError()));
  if (llvm::Error error =
          writeFileAtomically(outputFile, [&](llvm::raw_ostream &os) {
            report->print(os, *reportFormat);
          }))
    return fail(llvm::toString(std::move(error)));
  return true;
}

/// Debian's libLLVM.so registers options of every LLVM component; --help
/// shows mem-report's own.
int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions({&reportCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "mem-report: memopt's memory report of a PyTorch eager training step\n\n"
      "Input: the JSON trace (schema memopt.eager-trace/1) that\n"
      "  python3 -m memopt_torch predict MODEL ... --trace FILE\n"
      "writes: the ATen ops of one training step as program points, and "
      "every tensor storage live during it as a buffer with its bytes, "
      "inclusive live range of points, memory class, module and source "
      "line. The report states the peak (LOAD, the most bytes live at "
      "once: the buffers covering a point plus its op's workspace), the "
      "op at the peak, the bytes per class, the largest tensors at the "
      "peak, the model states, the activations saved for the backward pass "
      "per module and the timeline, as mem-opt's --train-memory-report does "
      "for memopt's own steps (docs/report.md). An eager step has no static "
      "arena: PyTorch's caching allocator places its tensors.\n\n"
      "Errors (a missing file, invalid JSON with its line and column, a "
      "key set twice, a missing or mistyped key with its path, e.g. "
      "buffers[3].end) exit "
      "with status 1 and write no output file.\n\n"
      "Examples:\n"
      "  mem-report step.json\n"
      "  mem-report step.json --format=html -o step.html\n"
      "  mem-report - --format=json < step.json\n");
  return runMemReport() ? 0 : 1;
}
