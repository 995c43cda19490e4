//===- JsonInteger.h - integers of untrusted JSON ---------------*- C++ -*-===//
//
// llvm::json::Value::getAsInteger takes an integral double d with
// d <= double(INT64_MAX) and converts it to int64_t; double(INT64_MAX) is
// 2^63, so the document `9223372036854775807.0` (or `9.223372036854775807e18`)
// makes it convert 2^63, which is undefined behaviour (UBSan:
// float-cast-overflow). memopt's readers of files take integers through
// getJsonInteger instead.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SUPPORT_JSONINTEGER_H
#define MEMOPT_SUPPORT_JSONINTEGER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>

namespace mlir::memopt {

/// `value` as an int64_t, as getAsInteger returns it (an integer, or a
/// double with no fraction in range), but none for a double of 2^63 or more.
inline std::optional<int64_t> getJsonInteger(const llvm::json::Value &value) {
  // Integers (non-negative ones answer getAsUINT64) are exact; only doubles
  // can reach 2^63 within getAsInteger's bound.
  if (!value.getAsUINT64())
    if (std::optional<double> number = value.getAsNumber();
        number && *number >= 0x1p63)
      return std::nullopt;
  return value.getAsInteger();
}

/// The integer field `key` of `object` (llvm::json::Object::getInteger
/// without its undefined behaviour).
inline std::optional<int64_t> getJsonInteger(const llvm::json::Object &object,
                                             llvm::StringRef key) {
  const llvm::json::Value *value = object.get(key);
  return value ? getJsonInteger(*value) : std::nullopt;
}

} // namespace mlir::memopt

#endif // MEMOPT_SUPPORT_JSONINTEGER_H
