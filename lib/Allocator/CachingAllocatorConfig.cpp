//===- CachingAllocatorConfig.cpp - PYTORCH_CUDA_ALLOC_CONF --------------===//
//
// Parses PYTORCH_CUDA_ALLOC_CONF as PyTorch does (c10/core/AllocatorConfig.cpp
// at 0ac716637f3258efcaf7fdfb851bdd520c9c1441, c10/cuda/
// CUDAAllocatorConfig.cpp at b944315b93d36f842ef94d67a041371993234a74): the
// text is cut into tokens at ',', ':', '[' and ']', blanks dropped; options
// are `key:value` separated by ','; roundup_power2_divisions also takes a
// bracketed list of `interval:divisions`. Where PyTorch throws, we return an
// error naming the key and the value. Also round_size and
// get_allocation_size (c10/cuda/CUDACachingAllocator.cpp at
// 001074d25084fdb87a799823e395a50f5ec044d3).
//
//===----------------------------------------------------------------------===//

#include "memopt/Allocator/CachingAllocator.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir::memopt::allocator;
using llvm::StringRef;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Rounding
//===----------------------------------------------------------------------===//

int64_t CachingAllocatorConfig::divisionsFor(int64_t size) const {
  // The intervals are the powers of two from 1 MiB (index 0 also holds
  // everything smaller) to 32 GiB (index 15 also holds everything larger).
  int64_t log2 = llvm::Log2_64(static_cast<uint64_t>(size));
  int64_t index = std::clamp<int64_t>(log2 - 20, 0, kRoundupIntervals - 1);
  return roundupPower2Divisions[index];
}

/// roundup_power2_next_division: `size` rounded up to the next of
/// `divisions` equal steps between the powers of two around it.
static int64_t roundUpToDivision(int64_t size, int64_t divisions) {
  uint64_t value = static_cast<uint64_t>(size);
  if (llvm::isPowerOf2_64(value))
    return size;
  uint64_t floor = llvm::bit_floor(value);
  uint64_t step = floor >> llvm::Log2_64(static_cast<uint64_t>(divisions));
  if (step == 0)
    return static_cast<int64_t>(floor << 1);
  uint64_t down = value & ~(step - 1);
  return static_cast<int64_t>(down == value ? value : down + step);
}

int64_t mlir::memopt::allocator::roundAllocationRequest(
    const CachingAllocatorConfig &config, int64_t bytes) {
  if (bytes < kMinBlockSize)
    return kMinBlockSize;
  int64_t divisions = config.divisionsFor(bytes);
  if (divisions > 1 && bytes > kMinBlockSize * divisions)
    return roundUpToDivision(bytes, divisions);
  return llvm::alignTo(bytes, kMinBlockSize);
}

int64_t mlir::memopt::allocator::segmentSizeFor(int64_t roundedBytes) {
  if (roundedBytes <= kSmallSize)
    return kSmallBuffer;
  if (roundedBytes < kMinLargeAlloc)
    return kLargeBuffer;
  return llvm::alignTo(roundedBytes, kRoundLarge);
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {
/// Reads the tokens of one PYTORCH_CUDA_ALLOC_CONF string into a config.
class ConfigParser {
public:
  explicit ConfigParser(StringRef text);
  llvm::Error parse(CachingAllocatorConfig &config);

private:
  llvm::Error error(const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  }
  bool atEnd() const { return pos >= tokens.size(); }
  StringRef peek() const { return atEnd() ? StringRef() : tokens[pos]; }
  /// Consumes the token `expected` or fails, saying what came after `key`.
  llvm::Error expect(StringRef expected, StringRef key);
  /// Consumes the value of `key`; fails at the end or at a separator.
  llvm::Expected<StringRef> value(StringRef key);
  llvm::Expected<uint64_t> wholeNumber(StringRef key, StringRef what);
  llvm::Expected<double> number(StringRef key, StringRef what);
  llvm::Expected<bool> boolean(StringRef key);
  llvm::Error parseOption(StringRef key, CachingAllocatorConfig &config);
  llvm::Error parseMiB(StringRef key, int64_t &bytes);
  llvm::Error parseDivisions(CachingAllocatorConfig &config);
  llvm::Error parseDivisionList(CachingAllocatorConfig &config);

  std::vector<std::string> tokens;
  size_t pos = 0;
};
} // namespace

static bool isSeparator(StringRef token) {
  return token == "," || token == ":" || token == "[" || token == "]";
}

ConfigParser::ConfigParser(StringRef text) {
  std::string word;
  for (char c : text) {
    if (c == ',' || c == ':' || c == '[' || c == ']') {
      if (!word.empty())
        tokens.push_back(std::move(word));
      word.clear();
      tokens.push_back(std::string(1, c));
    } else if (!llvm::isSpace(c)) {
      word.push_back(c);
    }
  }
  if (!word.empty())
    tokens.push_back(std::move(word));
}

llvm::Error ConfigParser::expect(StringRef expected, StringRef key) {
  if (peek() == expected) {
    ++pos;
    return llvm::Error::success();
  }
  return error("expected '" + expected + "' after '" + key + "', got " +
               (atEnd() ? Twine("the end") : "'" + peek() + "'"));
}

llvm::Expected<StringRef> ConfigParser::value(StringRef key) {
  if (atEnd() || isSeparator(peek()))
    return error("missing value for '" + key + "'");
  return StringRef(tokens[pos++]);
}

llvm::Expected<uint64_t> ConfigParser::wholeNumber(StringRef key,
                                                   StringRef what) {
  llvm::Expected<StringRef> text = value(key);
  if (!text)
    return text.takeError();
  uint64_t result = 0;
  if (text->getAsInteger(10, result))
    return error(key + ": expected " + what + ", got '" + *text + "'");
  return result;
}

llvm::Expected<double> ConfigParser::number(StringRef key, StringRef what) {
  llvm::Expected<StringRef> text = value(key);
  if (!text)
    return text.takeError();
  double result = 0;
  if (text->getAsDouble(result))
    return error(key + ": expected " + what + ", got '" + *text + "'");
  return result;
}

llvm::Expected<bool> ConfigParser::boolean(StringRef key) {
  llvm::Expected<StringRef> text = value(key);
  if (!text)
    return text.takeError();
  if (*text == "True" || *text == "False")
    return *text == "True";
  return error(key + ": expected True or False, got '" + *text + "'");
}

/// max_split_size_mb and max_non_split_rounding_mb: whole MiB, at least
/// kLargeBuffer; larger values are capped where the bytes would overflow.
llvm::Error ConfigParser::parseMiB(StringRef key, int64_t &bytes) {
  std::string what =
      "a whole number of MiB >= " + std::to_string(kLargeBuffer / kMiB);
  llvm::Expected<uint64_t> mib = wholeNumber(key, what);
  if (!mib)
    return mib.takeError();
  if (*mib < static_cast<uint64_t>(kLargeBuffer / kMiB))
    return error(key + ": expected " + what + ", got " + Twine(*mib));
  uint64_t cap = static_cast<uint64_t>(kNoMaxSplitSize / kMiB) - 1;
  bytes = static_cast<int64_t>(std::min(*mib, cap)) * kMiB;
  return llvm::Error::success();
}

/// One `interval:divisions` list, e.g. [256:1,512:2,>:4]: intervals are
/// powers of two in MiB naming the interval [interval, 2 x interval) MiB;
/// the first entry also covers every interval below it, '>' every interval
/// after the last one named.
llvm::Error ConfigParser::parseDivisionList(CachingAllocatorConfig &config) {
  StringRef key = "roundup_power2_divisions";
  bool first = true;
  size_t lastIndex = 0;
  while (peek() != "]") {
    if (atEnd())
      return error(key + ": missing ']' at the end of the list");
    StringRef interval = tokens[pos++];
    if (llvm::Error err = expect(":", interval))
      return err;
    llvm::Expected<uint64_t> divisions =
        wholeNumber(key, "a power of two or 0 as the divisions");
    if (!divisions)
      return divisions.takeError();
    if (*divisions != 0 && !llvm::isPowerOf2_64(*divisions))
      return error(key + ": the divisions must be a power of two or 0, got " +
                   Twine(*divisions));
    int64_t value = static_cast<int64_t>(*divisions);
    auto &table = config.roundupPower2Divisions;
    if (interval == ">") {
      std::fill(table.begin() + std::min(lastIndex + 1, table.size()),
                table.end(), value);
    } else {
      uint64_t mib = 0;
      if (interval.getAsInteger(10, mib) || !llvm::isPowerOf2_64(mib))
        return error(key +
                     ": expected an interval in MiB that is a power "
                     "of two, or '>', got '" +
                     interval + "'");
      size_t index = std::min<size_t>(llvm::Log2_64(mib), table.size() - 1);
      if (first)
        std::fill(table.begin(), table.begin() + index, value);
      first = false;
      table[index] = value;
      lastIndex = index;
    }
    if (atEnd())
      return error(key + ": missing ']' at the end of the list");
    if (peek() == ",")
      ++pos;
    else if (peek() != "]")
      return error(key + ": expected ',' or ']' in the list, got '" + peek() +
                   "'");
  }
  ++pos; // ']'
  return llvm::Error::success();
}

llvm::Error ConfigParser::parseDivisions(CachingAllocatorConfig &config) {
  StringRef key = "roundup_power2_divisions";
  config.roundupPower2Divisions.fill(0);
  if (peek() == "[") {
    ++pos;
    return parseDivisionList(config);
  }
  llvm::Expected<uint64_t> divisions =
      wholeNumber(key, "a power of two or a bracketed list");
  if (!divisions)
    return divisions.takeError();
  if (!llvm::isPowerOf2_64(*divisions))
    return error(key + ": the divisions must be a power of two, got " +
                 Twine(*divisions));
  config.roundupPower2Divisions.fill(static_cast<int64_t>(*divisions));
  return llvm::Error::success();
}

static constexpr const char *kKnownKeys =
    "backend, expandable_segments, garbage_collection_threshold, "
    "max_non_split_rounding_mb, max_split_size_mb, "
    "per_process_memory_fraction, roundup_power2_divisions; and, without "
    "effect on device memory, graph_capture_record_stream_reuse, "
    "pinned_num_register_threads, pinned_reserve_segment_size_mb, "
    "pinned_use_background_threads, pinned_use_cuda_host_register, "
    "release_lock_on_cudamalloc";

llvm::Error ConfigParser::parseOption(StringRef key,
                                      CachingAllocatorConfig &config) {
  if (key == "max_split_size_mb")
    return parseMiB(key, config.maxSplitSize);
  if (key == "max_non_split_rounding_mb")
    return parseMiB(key, config.maxNonSplitRounding);
  if (key == "roundup_power2_divisions")
    return parseDivisions(config);
  if (key == "garbage_collection_threshold") {
    StringRef text = peek();
    llvm::Expected<double> threshold = number(key, "a number in (0, 1)");
    if (!threshold)
      return threshold.takeError();
    if (!(*threshold > 0 && *threshold < 1))
      return error(key + ": expected a number in (0, 1), got " + text);
    config.garbageCollectionThreshold = *threshold;
    return llvm::Error::success();
  }
  if (key == "per_process_memory_fraction") {
    StringRef text = peek();
    llvm::Expected<double> fraction = number(key, "a number in [0, 1]");
    if (!fraction)
      return fraction.takeError();
    if (!(*fraction >= 0 && *fraction <= 1))
      return error(key + ": expected a number in [0, 1], got " + text);
    config.perProcessMemoryFraction = *fraction;
    return llvm::Error::success();
  }
  if (key == "expandable_segments") {
    llvm::Expected<bool> on = boolean(key);
    if (!on)
      return on.takeError();
    config.expandableSegments = *on;
    return llvm::Error::success();
  }
  if (key == "backend") {
    llvm::Expected<StringRef> name = value(key);
    if (!name)
      return name.takeError();
    if (*name == "native")
      return llvm::Error::success();
    if (*name == "cudaMallocAsync")
      return error("backend:cudaMallocAsync is not replayed (only the native "
                   "caching allocator is)");
    return error("backend: expected native or cudaMallocAsync, got '" + *name +
                 "'");
  }
  if (key == "release_lock_on_cudamalloc" ||
      key == "pinned_use_cuda_host_register" ||
      key == "pinned_use_background_threads" ||
      key == "graph_capture_record_stream_reuse")
    return boolean(key).takeError();
  if (key == "pinned_num_register_threads" ||
      key == "pinned_reserve_segment_size_mb")
    return wholeNumber(key, "a whole number").takeError();
  return error("unknown key '" + key + "' (known keys: " + kKnownKeys + ")");
}

llvm::Error ConfigParser::parse(CachingAllocatorConfig &config) {
  while (!atEnd()) {
    StringRef key = tokens[pos++];
    if (isSeparator(key))
      return error("expected a key, got '" + key + "'");
    if (llvm::Error err = expect(":", key))
      return err;
    if (llvm::Error err = parseOption(key, config))
      return err;
    if (atEnd())
      break;
    if (llvm::Error err = expect(",", key))
      return err;
  }
  return llvm::Error::success();
}

llvm::Expected<CachingAllocatorConfig>
CachingAllocatorConfig::parse(StringRef text) {
  CachingAllocatorConfig config;
  if (llvm::Error err = ConfigParser(text).parse(config))
    return std::move(err);
  return config;
}
