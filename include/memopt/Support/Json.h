//===- Json.h - JSON parsing with a bounded nesting depth -------*- C++ -*-===//
//
// Every memopt reader of JSON (mem-import's graphs, safetensors headers,
// device profiles, HuggingFace configs) parses through `parseJson`. It
// refuses a document nested deeper than `kMaxJsonDepth` before handing it to
// llvm::json::parse, whose recursive descent would otherwise run out of
// stack on about 50,000 nested `[`: an error, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SUPPORT_JSON_H
#define MEMOPT_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace mlir::memopt {

/// The deepest nesting of arrays and objects a memopt reader accepts. The
/// deepest file memopt writes or reads in practice nests fewer than 10
/// levels.
inline constexpr unsigned kMaxJsonDepth = 1000;

/// llvm::json::parse, after checking without recursion that no array or
/// object is nested more than `maxDepth` levels deep. The error of a deeper
/// document names the limit and the line and column where it is passed.
llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text,
                                            unsigned maxDepth = kMaxJsonDepth);

} // namespace mlir::memopt

#endif // MEMOPT_SUPPORT_JSON_H
