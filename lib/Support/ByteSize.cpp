//===- ByteSize.cpp - byte counts with units ------------------------------===//

#include "memopt/Support/ByteSize.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

FailureOr<int64_t> mlir::memopt::parseByteSize(StringRef text) {
  text = text.trim();
  StringRef digits = text.take_while([](char c) { return llvm::isDigit(c); });
  StringRef unit = text.drop_front(digits.size()).trim();
  uint64_t value = 0;
  if (digits.empty() || digits.getAsInteger(10, value))
    return failure();
  uint64_t scale = llvm::StringSwitch<uint64_t>(unit)
                       .Cases({"", "B"}, 1)
                       .Case("KiB", 1ull << 10)
                       .Case("MiB", 1ull << 20)
                       .Case("GiB", 1ull << 30)
                       .Case("TiB", 1ull << 40)
                       .Case("KB", 1000ull)
                       .Case("MB", 1000ull * 1000)
                       .Case("GB", 1000ull * 1000 * 1000)
                       .Case("TB", 1000ull * 1000 * 1000 * 1000)
                       .Default(0);
  if (scale == 0 || value > static_cast<uint64_t>(INT64_MAX) / scale)
    return failure();
  return static_cast<int64_t>(value * scale);
}
