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

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

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

} // namespace mlir::memopt

#endif // MEMOPT_TRANSFORMS_PASSOPTIONS_H
