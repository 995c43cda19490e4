//===- FuzzExpand.h - small inputs that expand into large ones -*- C++ -*-===//
//
// The JSON fuzzers (hf-config, torch-graph, safetensors, device-profile)
// keep their inputs small, so that libFuzzer's mutations stay fast, yet must
// reach documents nested 100,000 levels deep (memopt::parseJson's bound is
// 1000; llvm::json::parse alone overflows the stack near 50,000). Their
// harnesses expand a run-length escape before parsing: the byte 0xFF, a
// 3-byte little-endian count N and a byte C stand for C repeated N times,
// so `\xFF\xA0\x86\x01[` is 100,000 `[`. 0xFF never occurs in UTF-8 text:
// only inputs that would be refused as invalid UTF-8 anyway change meaning
// (other invalid bytes still reach that check). An escape cut short by the
// end of the input is kept as it is.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_FUZZ_FUZZEXPAND_H
#define MEMOPT_FUZZ_FUZZEXPAND_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace mlir::memopt::fuzz {

/// What an expanded input may grow to: 100,000 levels of `[` and `]` with
/// room to spare, and little enough for the per-input time limit.
inline constexpr size_t kMaxExpandedBytes = 1 << 20;

/// `input` with its run-length escapes expanded, or nothing when the result
/// would exceed kMaxExpandedBytes (the harness then skips the input).
inline std::optional<std::string> expandRuns(llvm::StringRef input) {
  std::string out;
  out.reserve(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    if (static_cast<unsigned char>(input[i]) != 0xFF || i + 4 >= input.size()) {
      out.push_back(input[i]);
      continue;
    }
    size_t count = static_cast<unsigned char>(input[i + 1]) |
                   static_cast<unsigned char>(input[i + 2]) << 8 |
                   static_cast<size_t>(static_cast<unsigned char>(input[i + 3]))
                       << 16;
    if (count > kMaxExpandedBytes - out.size())
      return std::nullopt;
    out.append(count, input[i + 4]);
    i += 4;
  }
  if (out.size() > kMaxExpandedBytes)
    return std::nullopt;
  return out;
}

/// What a JSON harness accepts before expansion.
inline constexpr size_t kMaxJsonInputBytes = 16 * 1024;

/// A JSON harness's libFuzzer input, expanded; nothing for an input over
/// kMaxJsonInputBytes or one that expands too far (the harness returns -1,
/// so that libFuzzer does not keep it).
inline std::optional<std::string> expandJsonInput(const uint8_t *data,
                                                  size_t size) {
  if (size > kMaxJsonInputBytes)
    return std::nullopt;
  return expandRuns(
      llvm::StringRef(reinterpret_cast<const char *>(data), size));
}

} // namespace mlir::memopt::fuzz

#endif // MEMOPT_FUZZ_FUZZEXPAND_H
