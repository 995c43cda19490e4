//===- PassOptions.h - pass options that fail with a message ----*- C++ -*-===//
//
// When llvm::cl rejects an option value (`alignment=abc`), it prints why on
// stderr and hands MLIR an empty message, which becomes an empty
// `error: ` line. The memopt passes with options route their option parsing
// through parseOptionsNamingPass, which replaces an empty message with one
// that names the pass and the options.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_PASSOPTIONS_H
#define MEMOPT_TRANSFORMS_PASSOPTIONS_H

#include "mlir/Pass/Pass.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

#include <optional>
#include <string>

namespace mlir::memopt {

/// The largest `tp` and `dp` train-shard (and memopt-pipeline) accept: 2^16
/// processes per grid axis, past any cluster's tensor-parallel group or
/// data-parallel replicas, and small enough that products of degrees and
/// tensor extents stay far from int64_t overflow (docs/sharding.md).
inline constexpr int64_t kMaxShardDegree = int64_t(1) << 16;

/// Calls `parse` (the generated Base::initializeOptions) with an error
/// handler that turns an empty message into "PASS: cannot parse the options
/// 'OPTIONS' (the line above says which value)".
inline LogicalResult parseOptionsNamingPass(
    StringRef passName, StringRef options,
    function_ref<LogicalResult(const Twine &)> errorHandler,
    function_ref<LogicalResult(StringRef,
                               function_ref<LogicalResult(const Twine &)>)>
        parse) {
  return parse(options, [&](const Twine &message) {
    std::string text = message.str();
    if (!StringRef(text).trim().empty())
      return errorHandler(message);
    return errorHandler(passName + ": cannot parse the options '" + options +
                        "' (the line above says which value)");
  });
}

/// The value `options` (a pass option string: `a=1 b="x y" c={...}`) gives
/// the option `name`, without quotes, or nothing when it gives none.
inline std::optional<StringRef> findPassOptionValue(StringRef options,
                                                    StringRef name) {
  std::optional<StringRef> found;
  size_t i = 0, e = options.size();
  while (i < e) {
    if (options[i] == ' ') {
      ++i;
      continue;
    }
    size_t keyStart = i;
    while (i < e && options[i] != '=' && options[i] != ' ')
      ++i;
    StringRef key = options.slice(keyStart, i);
    if (i == e || options[i] != '=')
      continue;
    size_t valueStart = ++i;
    if (i < e && (options[i] == '"' || options[i] == '\'')) {
      char quote = options[i++];
      while (i < e && options[i] != quote)
        ++i;
      if (key == name)
        found = options.slice(valueStart + 1, i);
      ++i;
      continue;
    }
    int depth = 0;
    while (i < e && (depth > 0 || options[i] != ' ')) {
      depth += options[i] == '{';
      depth -= options[i] == '}';
      ++i;
    }
    if (key == name)
      found = options.slice(valueStart, i);
  }
  return found;
}

/// Fails through `errorHandler` with "PASS: unknown WHAT 'VALUE'; expected
/// one of A, B, C" when `options` gives the enum option `option` a value its
/// `llvm::cl::values` do not name (llvm::cl would only say "Cannot find
/// option named 'VALUE'"). Call before parsing.
template <typename OptionT>
LogicalResult
checkEnumPassOption(StringRef passName, StringRef what, StringRef options,
                    OptionT &option,
                    function_ref<LogicalResult(const Twine &)> errorHandler) {
  std::optional<StringRef> value = findPassOptionValue(options, option.ArgStr);
  if (!value)
    return success();
  auto &parser = option.getParser();
  std::string names;
  for (unsigned i = 0, e = parser.getNumOptions(); i < e; ++i) {
    if (parser.getOption(i) == *value)
      return success();
    names += (i ? ", " : "") + parser.getOption(i).str();
  }
  return errorHandler(passName + ": unknown " + what + " '" + *value +
                      "'; expected one of " + names);
}

/// Checks train-shard's degrees (the options of `passName`, train-shard or
/// memopt-pipeline, which spell them the same): tp and dp from 1 to
/// kMaxShardDegree, a ZeRO stage from 0 to 3 with dp > 1, and
/// sequence-parallel with tp > 1. Fails through `errorHandler`.
inline LogicalResult
checkShardOptions(StringRef passName, int64_t tp, int64_t dp, int64_t zero,
                  bool sequenceParallel,
                  function_ref<LogicalResult(const Twine &)> errorHandler) {
  if (tp < 1 || dp < 1 || tp > kMaxShardDegree || dp > kMaxShardDegree)
    return errorHandler(passName + ": tp and dp must be from 1 to " +
                        Twine(kMaxShardDegree) +
                        " (processes per grid axis), " + "got tp=" + Twine(tp) +
                        " dp=" + Twine(dp));
  if (zero < 0 || zero > 3)
    return errorHandler(passName +
                        ": zero must be a ZeRO stage from 0 to 3, got " +
                        Twine(zero));
  if (zero > 0 && dp == 1)
    return errorHandler(passName + ": zero=" + Twine(zero) +
                        " partitions the model states over the data-parallel "
                        "processes, and dp=1 has one; give dp > 1");
  if (sequenceParallel && tp == 1)
    return errorHandler(passName +
                        ": sequence-parallel splits the sequence over the "
                        "tensor-parallel processes, and tp=1 has one; give "
                        "tp > 1");
  return success();
}

} // namespace mlir::memopt

#endif // MEMOPT_TRANSFORMS_PASSOPTIONS_H
