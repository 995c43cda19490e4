//===- Weights.h - safetensors files of step tensors ------------*- C++ -*-===//
//
// mem-run's --init-from and --save-params read and write tensors in the
// safetensors format: an 8-byte little-endian header length, a JSON header
// `{name: {"dtype", "shape", "data_offsets"}}` (and an optional
// "__metadata__" map), then the row-major little-endian bytes. Parameters
// are stored under their names, step arguments as `arg0`, `arg1`, ...
// (docs/execution.md). python/memopt_torch writes such files for the
// PyTorch models it exports.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_EXECUTION_WEIGHTS_H
#define MEMOPT_EXECUTION_WEIGHTS_H

#include "memopt/Execution/StepPlan.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace mlir::memopt::execution {

/// The tensors of a safetensors file, viewing its bytes.
class WeightsFile {
public:
  struct Entry {
    /// The safetensors dtype (F32, BF16, I64, ...).
    std::string dtype;
    SmallVector<int64_t> shape;
    /// The element type that dtype names.
    Type elementType;
    StringRef bytes;
  };

  /// Reads and checks `path`: the header, every entry's dtype, shape and
  /// offsets. Errors name the file. python/memopt_torch/safetensors.py
  /// refuses the same files with the same messages.
  static llvm::Expected<WeightsFile> read(StringRef path, MLIRContext *context);

  /// Checks the contents of a file, `path` in messages, as `read` does.
  static llvm::Expected<WeightsFile>
  parse(std::unique_ptr<llvm::MemoryBuffer> buffer, StringRef path,
        MLIRContext *context);

  const llvm::StringMap<Entry> &getEntries() const { return entries; }

private:
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  llvm::StringMap<Entry> entries;
};

/// Stores the file's tensors into the plan's parameters (every one must be
/// present) and into the arguments it has an `argN` entry for, converting
/// the element type (rounding once to a narrower float). Fails, naming the
/// tensor, when a shape or kind (float/integer) differs, a parameter is
/// missing, or an entry matches nothing.
llvm::Error loadWeights(const WeightsFile &file, StepPlan &plan);

/// Writes the plan's parameters (their current values) to `path`, whole or
/// not at all, in their element types. A process of a grid writes the
/// tensors it holds whole; split parameters are an error.
llvm::Error saveParams(const StepPlan &plan, StringRef path);

/// Writes the step's results after its last call to `path` as
/// `result<index>` (result0 the loss, for a step that returns one), as
/// saveParams writes the parameters.
llvm::Error saveResults(const StepPlan &plan, StringRef path);

} // namespace mlir::memopt::execution

#endif // MEMOPT_EXECUTION_WEIGHTS_H
