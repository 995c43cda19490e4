//===- Json.h - JSON parsing with a bounded nesting depth -------*- C++ -*-===//
//
// Every memopt reader of JSON (mem-import's graphs, safetensors headers,
// device profiles, HuggingFace configs) parses through `parseJson`. It
// refuses a document nested deeper than `kMaxJsonDepth` before handing it to
// llvm::json::parse, whose recursive descent would otherwise run out of
// stack on about 50,000 nested `[`: an error, never a crash. The readers
// also take integers through `getJsonInteger`, and find keys an object
// repeats with `findDuplicateJsonKey`.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SUPPORT_JSON_H
#define MEMOPT_SUPPORT_JSON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>

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

/// A key that an object repeats, where it occurs the second time (1-based).
struct JsonDuplicateKey {
  std::string key;
  size_t line = 0;
  size_t column = 0;
};

/// The first key that an object of `text` (well-formed JSON) repeats:
/// llvm::json::parse keeps one of the values without a word, where another
/// reader (Python's json keeps the last) may keep the other, so a file that
/// sets a field twice means whatever the reader picks.
std::optional<JsonDuplicateKey> findDuplicateJsonKey(llvm::StringRef text);

// llvm::json::Value::getAsInteger takes an integral double d with
// d <= double(INT64_MAX) and converts it to int64_t; double(INT64_MAX) is
// 2^63, so the document `9223372036854775807.0` makes it convert 2^63, which
// is undefined behaviour (UBSan: float-cast-overflow).

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

#endif // MEMOPT_SUPPORT_JSON_H
