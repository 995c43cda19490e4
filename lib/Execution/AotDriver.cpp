//===- AotDriver.cpp - write a lowered step for an AOT build --------------===//
//
// The driver is the template AotDriver.c.in, embedded at build time
// (EmbedText.cmake), with the step's tables in place of its marker line:
// the globals (named by asm labels), how each is filled (the constants of
// the formulas computed here, printed exactly as hexadecimal floats), and
// the seed, step count and predicted sizes as macros.
//
//===----------------------------------------------------------------------===//

#include "memopt/Execution/AotDriver.h"

#include "memopt/Conversion/Passes.h"
#include "memopt/Execution/Init.h"
#include "memopt/Support/AtomicFile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::execution;

#include "AotDriverTemplate.inc"

/// The line of the template that the step's tables replace.
static constexpr llvm::StringLiteral kTablesMarker =
    "/* @MEMOPT_AOT_STEP_TABLES@ */\n";

/// Element code of the driver's `enum Elem`, or -1.
static int getDriverElement(Type type) {
  if (type.isF64())
    return 0;
  if (type.isF32())
    return 1;
  if (type.isF16())
    return 2;
  if (type.isBF16())
    return 3;
  if (type.isInteger(1))
    return 4;
  if (type.isInteger(8))
    return 5;
  if (type.isInteger(16))
    return 6;
  if (type.isInteger(32))
    return 7;
  if (type.isInteger(64))
    return 8;
  return -1;
}

namespace {

/// Writes the declarations and table rows of the driver's globals.
class TableWriter {
public:
  TableWriter(llvm::raw_ostream &os, MLIRContext *context)
      : os(os), context(context) {}

  /// Declares the global of `tensor` and appends its row to `rows`.
  LogicalResult addRow(std::string &rows, const GlobalTensor &tensor,
                       StringRef kind, double amplitude, uint64_t bound,
                       StringRef bytes = {}) {
    int element = getDriverElement(tensor.type.getElementType());
    if (element < 0)
      return emitError(getExecutionLoc(context))
             << "--emit-aot cannot store " << tensor.name << " of type "
             << tensor.type;
    std::string symbol = ("g" + Twine(symbolCount++)).str();
    os << "extern char " << symbol << "[] __asm__(\"" << tensor.symbol
       << "\");\n";
    llvm::raw_string_ostream row(rows);
    row << "  {\"" << tensor.name << "\", " << symbol << ", " << kind << ", "
        << element << ", " << tensor.type.getNumElements() << ", "
        << tensor.type.getRank() << ", " << hex(amplitude) << ", "
        << hex(initPhase(tensor.name)) << ", " << fnv1a32(tensor.name) << "u, "
        << bound << "u";
    if (!bytes.empty())
      row << ", " << writeBytes(bytes);
    row << "},\n";
    return success();
  }

  /// Writes the table `name` of `rows`. C has no empty arrays: a zero row
  /// that nothing reads ends every table.
  void writeTable(StringRef name, StringRef rows) {
    os << "static struct Tensor " << name << "[] = {\n"
       << rows << "  {0, 0, ZEROS, 0, 0, 0, 0.0, 0.0, 0u, 0u}};\n";
  }

private:
  /// Declares a char array of `bytes` (octal escapes, 16 bytes a line) and
  /// returns its name.
  std::string writeBytes(StringRef bytes) {
    std::string symbol = ("b" + Twine(bytesCount++)).str();
    os << "static const char " << symbol << "[] =";
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (i % 16 == 0)
        os << (i ? "\"\n  \"" : "\n  \"");
      os << llvm::format("\\%03o", static_cast<unsigned char>(bytes[i]));
    }
    os << "\";\n";
    return symbol;
  }

  static std::string hex(double value) {
    return llvm::formatv("{0}", llvm::format("%a", value)).str();
  }

  llvm::raw_ostream &os;
  MLIRContext *context;
  unsigned symbolCount = 0, bytesCount = 0;
};

} // namespace

/// Writes the step-dependent part of the driver.
static LogicalResult writeTables(llvm::raw_ostream &os, const StepPlan &plan,
                                 unsigned steps, int64_t seed) {
  TableWriter writer(os, plan.context);
  std::string argRows, resultRows, paramRows, stateRows;
  for (const StepArgument &arg : plan.arguments) {
    StringRef kind = arg.kind == ArgKind::Float     ? "FLOAT_FORMULA"
                     : arg.kind == ArgKind::Integer ? "INTEGER"
                                                    : "STEP_NUMBER";
    if (failed(writer.addRow(argRows, arg.tensor, kind, 1.0, arg.bound)))
      return failure();
  }
  for (const GlobalTensor &result : plan.results)
    if (failed(writer.addRow(resultRows, result, "ZEROS", 0.0, 0)))
      return failure();
  int64_t persistent = 0, hostPersistent = 0;
  // Quantized storage: the bytes mem-run would store, written out.
  SmallVector<std::string> storageBytes(plan.params.size());
  for (const QuantizedWeight &weight : plan.quantizedWeights)
    for (auto [part, bytes] :
         llvm::zip_equal(weight.parts, getQuantizedStorageBytes(weight)))
      storageBytes[part] = std::move(bytes);
  for (auto [param, bytes] : llvm::zip_equal(plan.params, storageBytes)) {
    LogicalResult added =
        param.quantizedWeight >= 0
            ? writer.addRow(paramRows, param, "BYTES", 0.0, 0, bytes)
            : writer.addRow(paramRows, param, "FLOAT_FORMULA",
                            paramAmplitude(param.name, param.type), 0);
    if (failed(added))
      return failure();
    (param.host ? hostPersistent : persistent) += param.getByteSize();
  }
  for (const GlobalTensor &state : plan.states) {
    if (failed(writer.addRow(stateRows, state, "ZEROS", 0.0, 0)))
      return failure();
    (state.host ? hostPersistent : persistent) += state.getByteSize();
  }
  writer.writeTable("args", argRows);
  writer.writeTable("results", resultRows);
  writer.writeTable("params", paramRows);
  writer.writeTable("states", stateRows);
  if (plan.hasSeed)
    os << "extern char seed_global[] __asm__(\"" << kSeedGlobalName
       << "\");\nstatic char *seedData = seed_global;\n";
  else
    os << "static char *seedData = 0;\n";
  os << "static const int64_t seedValue = " << seed << ";\n"
     << "#define DEFAULT_STEPS " << steps << "\n"
     << "#define MICRO_BATCHES " << plan.microBatches << "\n"
     << "#define PREDICTED_TRANSIENT_PEAK " << plan.predictedPeak << "\n"
     << "#define PREDICTED_PERSISTENT " << persistent << "\n"
     << "#define PLANNED_ARENA " << plan.arenaBytes << "\n"
     << "#define HAS_HOST " << (plan.hasHost ? 1 : 0) << "\n"
     << "#define PREDICTED_HOST_PEAK " << plan.predictedHostPeak << "\n"
     << "#define PREDICTED_HOST_PERSISTENT " << hostPersistent << "\n"
     << "#define PLANNED_HOST_ARENA " << plan.hostArenaBytes << "\n";
  return success();
}

LogicalResult execution::writeAotDriver(const StepPlan &plan, StringRef path,
                                        unsigned steps, int64_t seed) {
  Location loc = getExecutionLoc(plan.context);
  StringRef driver = kAotDriverTemplate;
  size_t marker = driver.find(kTablesMarker);
  // The build embeds the template; a template without its marker is a bug.
  if (marker == StringRef::npos)
    return emitError(loc) << "the AOT driver template has no "
                          << StringRef(kTablesMarker).trim() << " line";
  AtomicOutputFile file;
  if (llvm::Error error = file.open(path))
    return emitError(loc) << llvm::toString(std::move(error));
  llvm::raw_ostream &os = file.os();
  os << driver.take_front(marker);
  if (failed(writeTables(os, plan, steps, seed)))
    return failure();
  os << driver.drop_front(marker + kTablesMarker.size());
  if (llvm::Error error = file.commit())
    return emitError(loc) << llvm::toString(std::move(error));
  return success();
}

LogicalResult execution::writeAotFiles(ModuleOp module, const StepPlan &plan,
                                       StringRef dir, unsigned steps,
                                       int64_t seed) {
  Location loc = getExecutionLoc(module.getContext());
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return emitError(loc) << "cannot create " << dir << ": " << error.message();
  SmallString<256> stepPath(dir), mainPath(dir);
  llvm::sys::path::append(stepPath, "step.mlir");
  llvm::sys::path::append(mainPath, "main.c");
  if (llvm::Error error = writeFileAtomically(
          stepPath, [&](raw_ostream &os) { module.print(os); }))
    return emitError(loc) << llvm::toString(std::move(error));
  return writeAotDriver(plan, mainPath, steps, seed);
}
