//===- ByteSize.h - byte counts with units --------------------*- C++ -*-===//
//
// Parsing of byte counts such as "40GiB" for the tools' and passes' options.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SUPPORT_BYTESIZE_H
#define MEMOPT_SUPPORT_BYTESIZE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"

#include <cstdint>

namespace mlir::memopt {

/// Parses a byte count: a non-negative integer with an optional binary unit
/// (B, KiB, MiB, GiB, TiB) or decimal unit (KB, MB, GB, TB), e.g. "40GiB",
/// "512MiB", "1000000". Fails on anything else and on counts past INT64_MAX.
FailureOr<int64_t> parseByteSize(StringRef text);

} // namespace mlir::memopt

#endif // MEMOPT_SUPPORT_BYTESIZE_H
