//===- ReportFormatting.cpp - text helpers of the report writers ----------===//

#include "ReportFormatting.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::report;

std::string report::formatBytesShort(int64_t bytes) {
  static constexpr StringLiteral units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024 && bytes > -1024)
    return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  unsigned unit = 0;
  value /= 1024.0;
  while (unit + 1 < std::size(units) && std::abs(value) >= 1024.0) {
    value /= 1024.0;
    ++unit;
  }
  std::string result;
  llvm::raw_string_ostream os(result);
  os << llvm::format("%.2f", value) << " " << units[unit];
  return result;
}

std::string mlir::memopt::formatBytes(int64_t bytes) {
  if (bytes < 1024 && bytes > -1024)
    return formatBytesShort(bytes);
  return formatBytesShort(bytes) + " (" + std::to_string(bytes) + " B)";
}

std::string report::formatFlops(int64_t flops) {
  static constexpr StringLiteral prefixes[] = {"k", "M", "G", "T", "P", "E"};
  if (flops < 1000)
    return std::to_string(flops) + " FLOP";
  double value = static_cast<double>(flops) / 1000.0;
  unsigned prefix = 0;
  while (prefix + 1 < std::size(prefixes) && value >= 1000.0) {
    value /= 1000.0;
    ++prefix;
  }
  std::string result;
  llvm::raw_string_ostream os(result);
  os << llvm::format("%.2f", value) << " " << prefixes[prefix] << "FLOP ("
     << flops << ")";
  return result;
}

std::string report::formatPercent(double ratio) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%.2f%%", ratio * 100.0);
  return text;
}

std::string report::formatShare(int64_t part, int64_t whole) {
  std::string result;
  llvm::raw_string_ostream os(result);
  double share = whole == 0 ? 0.0 : 100.0 * part / whole;
  os << llvm::format("%.2f", share) << "%";
  return result;
}

std::string report::formatCount(int64_t count, StringRef noun) {
  return std::to_string(count) + " " + noun.str() + (count == 1 ? "" : "s");
}

std::string report::formatFixed2(double value) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << llvm::format("%.2f", value);
  return result;
}

std::string report::formatRecomputedOps(const RematSummary &remat) {
  std::string ops = std::to_string(remat.numOps) + " ops";
  for (auto [index, entry] : llvm::enumerate(remat.opsByName))
    ops += (index == 0 ? ": " : ", ") + entry.first + " x" +
           std::to_string(entry.second);
  return ops;
}

std::string report::formatRematAlgorithm(const RematSummary &remat) {
  if (remat.algorithm.empty())
    return "not recorded";
  std::string algorithm = remat.algorithm;
  if (remat.gap)
    algorithm +=
        llvm::formatv(" (solver gap {0:f2}%)", *remat.gap * 100.0).str();
  if (!remat.budget)
    return algorithm + ", no budget";
  return algorithm + ", budget " + formatBytes(*remat.budget);
}

std::string report::formatPrecision(const ModelStates &states) {
  return states.precision + " (grads " + states.gradients + ")";
}

std::string report::formatArena(const MemoryReport &report) {
  return formatBytes(report.getArenaBytes()) + ", " +
         formatPercent(report.getFragmentation()) + " above LOAD, " +
         (report.isArenaFromIR() ? "planned in the IR"
                                 : "planned for this report") +
         " (alignment " + std::to_string(report.getPlanAlignment()) + ")";
}

std::string report::formatPlanLoad(const MemoryReport &report) {
  return formatBytes(report.getPlanLoadBytes().value_or(0)) +
         ", sizes aligned to " + std::to_string(report.getPlanAlignment()) +
         " (" + train::TrainDialect::kLoadBytesAttrName.str() + ")";
}

std::string report::formatSourceSuffix(StringRef source) {
  return source.empty() ? std::string() : (" (" + source + ")").str();
}

std::string report::toJSONString(StringRef text) {
  if (llvm::json::isUTF8(text))
    return text.str();
  return llvm::json::fixUTF8(text);
}

std::string report::escapeXML(StringRef text) {
  std::string result;
  result.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      result += "&amp;";
      break;
    case '<':
      result += "&lt;";
      break;
    case '>':
      result += "&gt;";
      break;
    case '"':
      result += "&quot;";
      break;
    case '\'':
      result += "&#39;";
      break;
    default:
      result += c;
    }
  }
  return result;
}

StringRef report::className(unsigned cls) {
  return stringifyMemoryClass(static_cast<MemoryClass>(cls));
}

void report::writeByClass(llvm::json::OStream &json,
                          const std::array<int64_t, kNumMemoryClasses> &bytes) {
  json.objectBegin();
  for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls)
    json.attribute(className(cls), bytes[cls]);
  json.objectEnd();
}
