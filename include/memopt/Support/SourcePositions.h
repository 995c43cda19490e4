//===- SourcePositions.h - named locations that also say where --*- C++ -*-===//
//
// mem-gen names every op after its layer (`loc("fc2.grad")`), and a saved
// step keeps those names. But an explicit `loc(...)` replaces the position
// the parser would have recorded, so a verifier error on such a file could
// only say `<unknown>:0: error: loc("fc2.grad")`. The tools therefore note
// where each op is written and give every op whose location is a name alone
// that position too: `loc("fc2.grad"("step.mlir":12:5))`. Errors then name
// the layer and the line; the name survives any later save.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SUPPORT_SOURCEPOSITIONS_H
#define MEMOPT_SUPPORT_SOURCEPOSITIONS_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/MemoryBuffer.h"

#include <utility>
#include <vector>

namespace mlir::memopt {

/// Where the ops of a file are written: for every op in pre-order, the line
/// and column (1-based) of its name; (0, 0) for an op the text does not spell
/// out (the implicit top-level module).
using OpPositions = std::vector<std::pair<unsigned, unsigned>>;

/// Parses `buffer` (without verifying it, in a context of its own with the
/// dialects of `registry`) and collects its op positions. Fails silently when
/// the buffer does not parse: the tool's own parse reports why.
FailureOr<OpPositions> collectOpPositions(const llvm::MemoryBuffer &buffer,
                                          DialectRegistry &registry,
                                          bool allowUnregisteredDialects);

/// Gives every op under `root` (itself included, pre-order) whose location
/// is a name without a position the position recorded in `positions` for
/// it, in file `fileName`. Does nothing when `positions` does not describe
/// `root` (a different number of ops).
void attachOpPositions(Operation *root, StringRef fileName,
                       const OpPositions &positions);

} // namespace mlir::memopt

#endif // MEMOPT_SUPPORT_SOURCEPOSITIONS_H
