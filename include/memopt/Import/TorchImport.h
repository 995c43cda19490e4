//===- TorchImport.h - ATen graphs to train dialect steps -------*- C++ -*-===//
//
// Builds a forward + loss function in the train dialect from the JSON graph
// `python3 -m memopt_torch export` writes (docs/import.md): one traced ATen
// op after another, each mapped to train ops through the ModelBuilder that
// mem-gen uses, located at the user's Python line and tagged with its
// module path. mem-import is the command line over it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_IMPORT_TORCHIMPORT_H
#define MEMOPT_IMPORT_TORCHIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

namespace mlir::memopt::import {

/// The `format` field of the documents this importer reads.
inline constexpr llvm::StringLiteral kGraphFormat = "memopt-torch-graph";
/// The newest `version` it reads.
inline constexpr int64_t kGraphVersion = 1;

/// Appends `func.func @funcName` (forward + loss, returning the loss) built
/// from `document` to `module`. Diagnostics point at the user's Python line
/// of each op, or at `fileName` for a malformed document. Every op that
/// cannot be imported is reported, not only the first; on failure the
/// module may hold a partial function and must be dropped.
LogicalResult importTorchGraph(const llvm::json::Value &document,
                               ModuleOp module, StringRef funcName,
                               StringRef fileName);

/// One ATen op the importer maps, and what it becomes.
struct SupportedOp {
  llvm::StringLiteral target;
  llvm::StringLiteral lowering;
};

/// Every ATen op the importer maps, sorted by target (docs/import.md's
/// table is generated from it).
llvm::ArrayRef<SupportedOp> getSupportedOps();

} // namespace mlir::memopt::import

#endif // MEMOPT_IMPORT_TORCHIMPORT_H
