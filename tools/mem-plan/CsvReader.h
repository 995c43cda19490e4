//===- CsvReader.h - mem-plan's reader of buffer CSVs ----------*- C++ -*-===//
//
// The reader of minimalloc's benchmark CSV (`id,lower,upper,size`, any
// column order, lifetimes half-open), shared by mem-plan and its fuzzer
// (fuzz/).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TOOLS_MEMPLAN_CSVREADER_H
#define MEMOPT_TOOLS_MEMPLAN_CSVREADER_H

#include "memopt/Analysis/MemoryPlan.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::memopt::plan {

/// One row of the input.
struct Row {
  std::string id;
  PlanBuffer buffer;
};

/// Reads the CSV `text` (named `name` in messages) into `rows`. On the first
/// error prints `mem-plan: error: name:line:column: message` to `errors` and
/// returns false. `alignment` (a positive power of two) bounds the sum of the
/// aligned sizes to 64 bits.
bool readBufferCsv(llvm::StringRef name, llvm::StringRef text,
                   int64_t alignment, std::vector<Row> &rows,
                   llvm::raw_ostream &errors);

} // namespace mlir::memopt::plan

#endif // MEMOPT_TOOLS_MEMPLAN_CSVREADER_H
