//===- Json.cpp - JSON parsing with a bounded nesting depth ---------------===//

#include "memopt/Support/Json.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

using namespace mlir::memopt;

/// The nesting depth check: a linear scan that skips string literals (whose
/// brackets do not nest). Malformed JSON is left to llvm::json::parse, which
/// reports it with its own position.
static llvm::Error checkJsonDepth(llvm::StringRef text, unsigned maxDepth) {
  unsigned depth = 0;
  unsigned line = 1;
  size_t lineStart = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    switch (text[i]) {
    case '\n':
      ++line;
      lineStart = i + 1;
      break;
    case '"':
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '[':
    case '{':
      if (++depth > maxDepth)
        return llvm::createStringError(
            std::make_error_code(std::errc::invalid_argument),
            ("[" + llvm::Twine(line) + ":" + llvm::Twine(i - lineStart + 1) +
             ", byte offset " + llvm::Twine(i) +
             "]: arrays and objects nested deeper than " +
             llvm::Twine(maxDepth) + " levels")
                .str());
      break;
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return llvm::Error::success();
}

llvm::Expected<llvm::json::Value> mlir::memopt::parseJson(llvm::StringRef text,
                                                          unsigned maxDepth) {
  if (llvm::Error error = checkJsonDepth(text, maxDepth))
    return std::move(error);
  return llvm::json::parse(text);
}

std::optional<JsonDuplicateKey>
mlir::memopt::findDuplicateJsonKey(llvm::StringRef text) {
  // Per open object or array: the keys seen (objects), and whether the next
  // string is a key.
  struct Scope {
    bool isObject;
    bool expectKey;
    llvm::StringSet<> keys;
  };
  llvm::SmallVector<Scope> scopes;
  size_t line = 1, lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      break;
    case '{':
    case '[':
      scopes.push_back({c == '{', c == '{', {}});
      break;
    case '}':
    case ']':
      if (!scopes.empty())
        scopes.pop_back();
      break;
    case ',':
      if (!scopes.empty() && scopes.back().isObject)
        scopes.back().expectKey = true;
      break;
    case ':':
      if (!scopes.empty())
        scopes.back().expectKey = false;
      break;
    case '"': {
      size_t begin = i;
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      if (scopes.empty() || !scopes.back().expectKey)
        break;
      // The key as a JSON string literal, escapes decoded.
      llvm::Expected<llvm::json::Value> key =
          llvm::json::parse(text.slice(begin, i + 1));
      if (!key) {
        llvm::consumeError(key.takeError());
        break;
      }
      std::string name = key->getAsString().value_or("").str();
      if (!scopes.back().keys.insert(name).second)
        return JsonDuplicateKey{name, line, begin - lineStart + 1};
      break;
    }
    default:
      break;
    }
  }
  return std::nullopt;
}
