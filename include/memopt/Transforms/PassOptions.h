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

} // namespace mlir::memopt

#endif // MEMOPT_TRANSFORMS_PASSOPTIONS_H
