//===- MemoryReport.cpp - the memory report of a training step ------------===//

#include "memopt/Report/MemoryReport.h"

#include "memopt/Analysis/StepMemoryPlan.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;

//===----------------------------------------------------------------------===//
// Formatting helpers
//===----------------------------------------------------------------------===//

std::optional<ReportFormat> mlir::memopt::parseReportFormat(StringRef name) {
  return llvm::StringSwitch<std::optional<ReportFormat>>(name)
      .Case("text", ReportFormat::Text)
      .Case("json", ReportFormat::JSON)
      .Case("html", ReportFormat::HTML)
      .Case("trace", ReportFormat::Trace)
      .Default(std::nullopt);
}

StringRef mlir::memopt::getReportFormatNames() {
  return "text, json, html, trace";
}

/// `bytes` in the largest binary unit that fits, two decimals ("1.39 KiB"),
/// or "N B" below 1 KiB.
static std::string formatBytesShort(int64_t bytes) {
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

/// FLOPs with an SI prefix and the exact count: "1.38 kFLOP (1376)".
static std::string formatFlops(int64_t flops) {
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

/// "3 ops: train.gelu x2, train.matmul x1".
static std::string formatRecomputedOps(const RematSummary &remat) {
  std::string ops = std::to_string(remat.numOps) + " ops";
  for (auto [index, entry] : llvm::enumerate(remat.opsByName))
    ops += (index == 0 ? ": " : ", ") + entry.first + " x" +
           std::to_string(entry.second);
  return ops;
}

/// A ratio as a percentage with two decimals: "0.35%".
static std::string formatPercent(double ratio) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%.2f%%", ratio * 100.0);
  return text;
}

/// A fragmentation as a percentage with two decimals: "0.35%".
static std::string formatFragmentation(double fragmentation) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("%.2f%%", fragmentation * 100.0);
  return text;
}

/// `part / whole` as a percentage with two decimals.
static std::string formatShare(int64_t part, int64_t whole) {
  std::string result;
  llvm::raw_string_ostream os(result);
  double share = whole == 0 ? 0.0 : 100.0 * part / whole;
  os << llvm::format("%.2f", share) << "%";
  return result;
}

std::string mlir::memopt::formatLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto file = dyn_cast<FileLineColRange>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getStartLine()) +
            ":" + Twine(file.getStartColumn()))
        .str();
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return formatLocation(call.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations()) {
      std::string text = formatLocation(part);
      if (text != "unknown")
        return text;
    }
  }
  return "unknown";
}

/// JSON strings must be UTF-8; names come from arbitrary string attributes.
static std::string toJSONString(StringRef text) {
  if (llvm::json::isUTF8(text))
    return text.str();
  return llvm::json::fixUTF8(text);
}

/// Escapes text for HTML and XML content and attribute values.
static std::string escapeXML(StringRef text) {
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

static StringRef className(unsigned cls) {
  return stringifyMemoryClass(static_cast<MemoryClass>(cls));
}

//===----------------------------------------------------------------------===//
// MemoryReport
//===----------------------------------------------------------------------===//

FailureOr<MemoryReport> MemoryReport::create(FunctionOpInterface func) {
  if (func.isExternal())
    return func->emitOpError("has no body; expected a training step");
  Region &body = func.getFunctionBody();
  if (!body.hasOneBlock())
    return func->emitOpError()
           << "is not a training step: its body has "
           << llvm::range_size(body.getBlocks())
           << " blocks, expected one (program order is the schedule)";
  if (failed(train::verifyNotLowered(func, "train-memory-report")))
    return failure();

  MemoryReport report;
  report.functionName = SymbolTable::getSymbolName(func).str();
  report.liveness = std::make_unique<TensorLiveness>(func);
  const TensorLiveness &liveness = *report.liveness;

  // Distinct parameters by name: a tied parameter read twice is one tensor.
  llvm::StringMap<bool> seen;
  func->walk([&](Operation *op) {
    if (auto cost = dyn_cast<train::CostOpInterface>(op))
      report.totalFlops += cost.getFlops();
    auto param = dyn_cast<train::ParamOp>(op);
    if (!param || !seen.try_emplace(param.getName(), true).second)
      return;
    if (auto type = dyn_cast<RankedTensorType>(param.getType());
        type && type.hasStaticShape())
      report.parameterCount += type.getNumElements();
    report.parameterBytes += train::getTensorBytes(param.getType());
  });

  // Rematerialization: the decision on the function, the inserted ops.
  if (auto flops = func->getAttrOfType<IntegerAttr>(
          train::TrainDialect::kRematFlopsAttrName)) {
    RematSummary summary;
    summary.flops = flops.getInt();
    if (auto before = func->getAttrOfType<IntegerAttr>(
            train::TrainDialect::kRematPeakBeforeAttrName))
      summary.peakBefore = before.getInt();
    if (auto after = func->getAttrOfType<IntegerAttr>(
            train::TrainDialect::kRematPeakAfterAttrName))
      summary.peakAfter = after.getInt();
    func->walk([&](Operation *op) {
      if (!op->hasAttr(train::TrainDialect::kRecomputedAttrName))
        return;
      ++summary.numOps;
      StringRef name = op->getName().getStringRef();
      auto it = llvm::find_if(summary.opsByName, [&](const auto &entry) {
        return entry.first == name;
      });
      if (it == summary.opsByName.end())
        summary.opsByName.push_back({name.str(), 1});
      else
        ++it->second;
    });
    report.remat = std::move(summary);
  }

  // The arena: the plan in the IR, else one planned here.
  if (auto arena = func->getAttrOfType<IntegerAttr>(
          train::TrainDialect::kArenaBytesAttrName)) {
    report.arenaFromIR = true;
    report.arenaBytes = arena.getInt();
    if (auto alignment = func->getAttrOfType<IntegerAttr>(
            train::TrainDialect::kPlanAlignmentAttrName))
      report.planAlignment = alignment.getInt();
  } else {
    StepPlanOptions options;
    llvm::Expected<StepMemoryPlan> plan = planStepMemory(liveness, options);
    if (!plan)
      return func->emitOpError()
             << "cannot plan an arena: " << llvm::toString(plan.takeError());
    report.arenaBytes = plan->arenaBytes;
    report.planAlignment = options.alignment;
  }

  int64_t peak = liveness.getPeakPoint();
  Operation *peakOp = liveness.getSchedule()[peak];
  report.peakOpName = peakOp->getName().getStringRef().str();
  report.peakLocation = formatLocation(peakOp->getLoc());

  SmallVector<const Buffer *> live = liveness.getLiveBuffers(peak);
  report.numLiveAtPeak = live.size();
  for (const Buffer *buffer : llvm::make_range(
           live.begin(),
           live.begin() + std::min<size_t>(live.size(), kNumTopTensors))) {
    ReportTensor tensor;
    tensor.buffer = buffer;
    if (Operation *def = buffer->value.getDefiningOp()) {
      tensor.opName = def->getName().getStringRef().str();
      tensor.location = formatLocation(def->getLoc());
    } else {
      tensor.opName = "argument";
      tensor.location = formatLocation(buffer->value.getLoc());
    }
    report.topTensors.push_back(std::move(tensor));
  }
  return report;
}

void MemoryReport::print(raw_ostream &os, ReportFormat format) const {
  switch (format) {
  case ReportFormat::Text:
    return printText(os);
  case ReportFormat::JSON:
    return printJSON(os);
  case ReportFormat::HTML:
    return printHTML(os);
  case ReportFormat::Trace:
    return printTrace(os);
  }
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// Writes {"parameter": ..., ..., "input": ...}, classes in enum order.
static void writeByClass(llvm::json::OStream &json,
                         const std::array<int64_t, kNumMemoryClasses> &bytes) {
  json.objectBegin();
  for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls)
    json.attribute(className(cls), bytes[cls]);
  json.objectEnd();
}

void MemoryReport::printJSON(raw_ostream &os) const {
  const TensorLiveness &live = *liveness;
  int64_t peak = live.getPeakPoint();
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.objectBegin();
  json.attribute("schema", kMemoryReportSchema);
  json.attribute("function", toJSONString(functionName));
  json.attribute("num_points", live.getNumPoints());
  json.attribute("num_buffers", static_cast<int64_t>(live.getBuffers().size()));
  json.attribute("peak_bytes", getPeakBytes());
  json.attribute("load_bytes", getLoadBytes());
  json.attribute("arena_bytes", arenaBytes);
  json.attribute("fragmentation", getFragmentation());
  json.attribute("arena_source", arenaFromIR ? "ir" : "report");
  json.attribute("plan_alignment", planAlignment);
  json.attribute("peak_point", peak);
  json.attributeObject("peak_op", [&] {
    json.attribute("name", peakOpName);
    json.attribute("location", toJSONString(peakLocation));
  });
  json.attribute("persistent_bytes", live.getPersistentBytes());
  json.attribute("parameter_count", parameterCount);
  json.attribute("parameter_bytes", parameterBytes);
  json.attribute("total_flops", totalFlops);
  if (remat) {
    json.attributeObject("remat", [&] {
      json.attribute("recompute_flops", remat->flops);
      json.attribute("overhead", getRematOverhead());
      json.attribute("peak_before", remat->peakBefore);
      json.attribute("peak_after", remat->peakAfter);
      json.attribute("recomputed_ops", remat->numOps);
      json.attributeObject("by_op", [&] {
        for (const auto &[name, count] : remat->opsByName)
          json.attribute(name, count);
      });
    });
  } else {
    json.attribute("remat", nullptr);
  }
  json.attributeBegin("by_class");
  writeByClass(json, live.getLiveBytesByClass(peak));
  json.attributeEnd();
  json.attribute("num_live_at_peak", numLiveAtPeak);
  json.attributeArray("top_tensors", [&] {
    for (const ReportTensor &tensor : topTensors) {
      json.objectBegin();
      json.attribute("name", toJSONString(tensor.buffer->name));
      json.attribute("bytes", tensor.buffer->bytes);
      json.attribute("class", stringifyMemoryClass(tensor.buffer->memoryClass));
      json.attributeBegin("live_range");
      json.rawValue([&](raw_ostream &range) {
        range << "[" << tensor.buffer->start << ", " << tensor.buffer->end
              << "]";
      });
      json.attributeEnd();
      json.attribute("persistent", tensor.buffer->persistent);
      json.attributeObject("defining_op", [&] {
        json.attribute("name", tensor.opName);
        json.attribute("location", toJSONString(tensor.location));
      });
      json.objectEnd();
    }
  });
  // One line per point: a 1M-op step stays a readable, greppable file.
  json.attributeArray("timeline", [&] {
    for (auto [point, op] : llvm::enumerate(live.getSchedule())) {
      json.rawValue([&](raw_ostream &line) {
        llvm::json::OStream entry(line);
        entry.objectBegin();
        entry.attribute("point", static_cast<int64_t>(point));
        entry.attribute("op", op->getName().getStringRef());
        entry.attribute("live_bytes", live.getLiveBytes(point));
        entry.attributeBegin("by_class");
        writeByClass(entry, live.getLiveBytesByClass(point));
        entry.attributeEnd();
        entry.objectEnd();
      });
    }
  });
  json.objectEnd();
  os << "\n";
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

/// Prints rows as columns separated by two spaces; `rightAligned[i]` aligns
/// column i to the right. The last column is not padded.
static void printTable(raw_ostream &os, ArrayRef<SmallVector<std::string>> rows,
                       ArrayRef<bool> rightAligned) {
  SmallVector<size_t> widths(rightAligned.size(), 0);
  for (const auto &row : rows)
    for (auto [i, cell] : llvm::enumerate(row))
      widths[i] = std::max(widths[i], cell.size());
  for (const auto &row : rows) {
    os << "  ";
    for (auto [i, cell] : llvm::enumerate(row)) {
      bool last = i + 1 == row.size();
      size_t pad = widths[i] - cell.size();
      if (rightAligned[i])
        os.indent(pad);
      os << cell;
      if (!last && !rightAligned[i])
        os.indent(pad);
      if (!last)
        os << "  ";
    }
    os << "\n";
  }
}

void MemoryReport::printText(raw_ostream &os) const {
  const TensorLiveness &live = *liveness;
  int64_t peak = live.getPeakPoint();
  os << "memory report of @" << functionName << " (" << kMemoryReportSchema
     << ")\n\n";
  SmallVector<SmallVector<std::string>> summary;
  summary.push_back({arenaFromIR ? "peak (arena)" : "peak (LOAD)",
                     formatBytes(getPeakBytes())});
  if (arenaFromIR)
    summary.push_back({"LOAD", formatBytes(getLoadBytes())});
  summary.push_back(
      {"arena",
       formatBytes(arenaBytes) + ", " +
           formatFragmentation(getFragmentation()) + " above LOAD, " +
           (arenaFromIR ? "planned in the IR" : "planned for this report") +
           " (alignment " + std::to_string(planAlignment) + ")"});
  summary.push_back({"at", "point " + std::to_string(peak) + " of " +
                               std::to_string(live.getNumPoints()) + ": " +
                               peakOpName + " at " + peakLocation});
  summary.push_back({"persistent", formatBytes(live.getPersistentBytes())});
  summary.push_back({"parameters", std::to_string(parameterCount) +
                                       " elements, " +
                                       formatBytes(parameterBytes)});
  summary.push_back({"total FLOPs", formatFlops(totalFlops)});
  summary.push_back({"buffers", std::to_string(live.getBuffers().size()) +
                                    " (" + std::to_string(numLiveAtPeak) +
                                    " live at the peak)"});
  if (remat) {
    summary.push_back({"remat", formatBytes(remat->peakBefore) + " -> " +
                                    formatBytes(remat->peakAfter) +
                                    " (train-remat)"});
    summary.push_back({"recomputed", formatRecomputedOps(*remat)});
    summary.push_back({"recompute", formatFlops(remat->flops) + ", " +
                                        formatPercent(getRematOverhead()) +
                                        " more step FLOPs (the extra time of a "
                                        "compute-bound step)"});
  }
  printTable(os, summary, {false, false});

  os << "\n";
  SmallVector<SmallVector<std::string>> classRows = {
      {"class", "bytes at peak", "share"}};
  const auto &byClass = live.getLiveBytesByClass(peak);
  for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls)
    classRows.push_back({className(cls).str(), formatBytes(byClass[cls]),
                         formatShare(byClass[cls], getLoadBytes())});
  classRows.push_back({"total", formatBytes(getLoadBytes()),
                       formatShare(getLoadBytes(), getLoadBytes())});
  printTable(os, classRows, {false, true, true});

  os << "\n  top " << topTensors.size() << " of " << numLiveAtPeak
     << " tensors live at the peak\n";
  SmallVector<SmallVector<std::string>> tensorRows = {
      {"#", "name", "bytes", "class", "live", "defined by"}};
  for (auto [i, tensor] : llvm::enumerate(topTensors)) {
    const Buffer &buffer = *tensor.buffer;
    tensorRows.push_back({std::to_string(i + 1), buffer.name,
                          formatBytes(buffer.bytes),
                          stringifyMemoryClass(buffer.memoryClass).str(),
                          "[" + std::to_string(buffer.start) + ", " +
                              std::to_string(buffer.end) + "]",
                          tensor.opName + " at " + tensor.location});
  }
  printTable(os, tensorRows, {true, false, true, false, false, false});
}

//===----------------------------------------------------------------------===//
// HTML
//===----------------------------------------------------------------------===//

/// Fill colors of the memory classes (Tableau 10), in enum order.
static constexpr StringLiteral kClassColors[kNumMemoryClasses] = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948"};

/// Columns of the SVG timeline: above this many points, each column shows
/// the point of largest live bytes among the points it covers, so the chart
/// stays small and the peak stays visible.
static constexpr int64_t kMaxColumns = 2000;

namespace {
/// Geometry of the SVG timeline.
struct Chart {
  static constexpr double width = 960, height = 440;
  static constexpr double left = 110, right = 20, top = 30, bottom = 100;
  static constexpr double plotWidth = width - left - right;
  static constexpr double plotHeight = height - top - bottom;
  int64_t numPoints;
  int64_t maxBytes;

  /// The x of the left edge of program point `point` (points are unit wide).
  double x(double point) const {
    return left + point * plotWidth / std::max<int64_t>(numPoints, 1);
  }
  double y(int64_t bytes) const {
    return top + plotHeight -
           plotHeight * static_cast<double>(bytes) /
               static_cast<double>(std::max<int64_t>(maxBytes, 1));
  }
};
} // namespace

static std::string fmt2(double value) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << llvm::format("%.2f", value);
  return result;
}

/// A "nice" tick step (1, 2 or 5 times a power of ten) giving at most about
/// ten ticks over `range`.
static int64_t tickStep(int64_t range) {
  int64_t step = 1;
  while (true) {
    for (int64_t factor : {1, 2, 5})
      if (range / (step * factor) <= 10)
        return step * factor;
    step *= 10;
  }
}

void MemoryReport::printHTML(raw_ostream &os) const {
  const TensorLiveness &live = *liveness;
  int64_t peak = live.getPeakPoint();
  int64_t numPoints = live.getNumPoints();
  const auto &byClass = live.getLiveBytesByClass(peak);
  std::string title = "Memory report of @" + escapeXML(functionName);

  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
        "charset=\"utf-8\">\n"
     << "<title>" << title << "</title>\n"
     << "<style>\n"
     << "body{font-family:sans-serif;margin:2em;color:#222}\n"
     << "table{border-collapse:collapse;margin:1em 0}\n"
     << "th,td{border:1px solid #ccc;padding:0.25em 0.6em;text-align:left}\n"
     << "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
     << ".swatch{display:inline-block;width:0.9em;height:0.9em;"
        "margin-right:0.4em;vertical-align:middle}\n"
     << "svg text{font-family:sans-serif;font-size:12px}\n"
     << "</style>\n</head>\n<body>\n"
     << "<h1>" << title << "</h1>\n"
     << "<p>Schema <code>" << kMemoryReportSchema
     << "</code>. Sizes in binary units; exact bytes in parentheses.</p>\n";

  // Summary.
  os << "<h2>Summary</h2>\n<table id=\"summary\">\n";
  auto row = [&](StringRef key, const std::string &value) {
    os << "<tr><th>" << key << "</th><td>" << escapeXML(value)
       << "</td></tr>\n";
  };
  row(arenaFromIR ? "Peak (arena)" : "Peak (LOAD)",
      formatBytes(getPeakBytes()));
  if (arenaFromIR)
    row("LOAD", formatBytes(getLoadBytes()));
  row("Arena",
      formatBytes(arenaBytes) + ", " + formatFragmentation(getFragmentation()) +
          " above LOAD, " +
          (arenaFromIR ? "planned in the IR" : "planned for this report") +
          " (alignment " + std::to_string(planAlignment) + ")");
  row("At", "point " + std::to_string(peak) + " of " +
                std::to_string(numPoints) + ": " + peakOpName + " at " +
                peakLocation);
  row("Persistent", formatBytes(live.getPersistentBytes()));
  row("Parameters", std::to_string(parameterCount) + " elements, " +
                        formatBytes(parameterBytes));
  row("Total FLOPs", formatFlops(totalFlops));
  if (remat) {
    row("Remat", formatBytes(remat->peakBefore) + " -> " +
                     formatBytes(remat->peakAfter) + " (train-remat)");
    row("Recomputed", formatRecomputedOps(*remat));
    row("Recompute", formatFlops(remat->flops) + ", " +
                         formatPercent(getRematOverhead()) +
                         " more step FLOPs");
  }
  row("Buffers", std::to_string(live.getBuffers().size()) + " (" +
                     std::to_string(numLiveAtPeak) + " live at the peak)");
  os << "</table>\n";

  // Breakdown by class at the peak.
  os << "<h2>By class at the peak</h2>\n<table id=\"by-class\">\n"
     << "<tr><th>class</th><th>bytes</th><th>share</th></tr>\n";
  for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls)
    os << "<tr><td><span class=\"swatch\" style=\"background:"
       << kClassColors[cls] << "\"></span>" << className(cls)
       << "</td><td class=\"num\">" << formatBytes(byClass[cls])
       << "</td><td class=\"num\">" << formatShare(byClass[cls], getLoadBytes())
       << "</td></tr>\n";
  os << "</table>\n";

  // The timeline: columns of program points, stacked by class.
  SmallVector<int64_t> columnStart, columnPoint;
  int64_t numColumns = std::min(numPoints, kMaxColumns);
  for (int64_t c = 0; c < numColumns; ++c) {
    int64_t begin = c * numPoints / numColumns;
    int64_t end = (c + 1) * numPoints / numColumns;
    int64_t best = begin;
    for (int64_t p = begin; p < end; ++p)
      if (live.getLiveBytes(p) > live.getLiveBytes(best))
        best = p;
    columnStart.push_back(begin);
    columnPoint.push_back(best);
  }
  columnStart.push_back(numPoints);
  Chart chart{numPoints, getLoadBytes()};

  os << "<h2>Timeline</h2>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"timeline\" width=\""
     << fmt2(chart.width) << "\" height=\"" << fmt2(chart.height)
     << "\" viewBox=\"0 0 " << fmt2(chart.width) << " " << fmt2(chart.height)
     << "\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<title>Live bytes per memory class at every program point of @"
     << escapeXML(functionName) << "</title>\n";
  // One closed step-shaped path per class, between the cumulative sums of
  // the classes below it and of the classes up to it.
  SmallVector<int64_t> below(numColumns, 0);
  for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls) {
    SmallVector<int64_t> upTo(below);
    for (int64_t c = 0; c < numColumns; ++c)
      upTo[c] += live.getLiveBytesByClass(columnPoint[c])[cls];
    os << "<path class=\"area\" data-class=\"" << className(cls) << "\" fill=\""
       << kClassColors[cls] << "\" d=\"";
    if (numColumns > 0) {
      os << "M" << fmt2(chart.x(0)) << "," << fmt2(chart.y(upTo[0]));
      for (int64_t c = 0; c < numColumns; ++c) {
        os << " H" << fmt2(chart.x(columnStart[c + 1]));
        if (c + 1 < numColumns)
          os << " V" << fmt2(chart.y(upTo[c + 1]));
      }
      os << " V" << fmt2(chart.y(below[numColumns - 1]));
      for (int64_t c = numColumns - 1; c >= 0; --c) {
        os << " H" << fmt2(chart.x(columnStart[c]));
        if (c > 0)
          os << " V" << fmt2(chart.y(below[c - 1]));
      }
      os << " Z";
    }
    os << "\"><title>" << className(cls) << ": " << formatBytes(byClass[cls])
       << " at the peak</title></path>\n";
    below = std::move(upTo);
  }

  // Axes, ticks and labels.
  double plotBottom = chart.top + chart.plotHeight;
  os << "<g class=\"axes\" stroke=\"#333\" fill=\"none\">\n"
     << "<line x1=\"" << fmt2(chart.left) << "\" y1=\"" << fmt2(chart.top)
     << "\" x2=\"" << fmt2(chart.left) << "\" y2=\"" << fmt2(plotBottom)
     << "\"/>\n"
     << "<line x1=\"" << fmt2(chart.left) << "\" y1=\"" << fmt2(plotBottom)
     << "\" x2=\"" << fmt2(chart.left + chart.plotWidth) << "\" y2=\""
     << fmt2(plotBottom) << "\"/>\n"
     << "</g>\n";
  os << "<g class=\"y-ticks\" text-anchor=\"end\">\n";
  for (int quarter = 0; quarter <= 4; ++quarter) {
    int64_t bytes = getLoadBytes() * quarter / 4;
    double y = chart.y(bytes);
    os << "<line x1=\"" << fmt2(chart.left - 4) << "\" y1=\"" << fmt2(y)
       << "\" x2=\"" << fmt2(chart.left) << "\" y2=\"" << fmt2(y)
       << "\" stroke=\"#333\"/><text x=\"" << fmt2(chart.left - 7) << "\" y=\""
       << fmt2(y + 4) << "\">" << formatBytesShort(bytes) << "</text>\n";
  }
  os << "</g>\n<g class=\"x-ticks\" text-anchor=\"middle\">\n";
  int64_t step = tickStep(std::max<int64_t>(numPoints - 1, 1));
  for (int64_t point = 0; point < numPoints; point += step) {
    double x = chart.x(point + 0.5);
    os << "<line x1=\"" << fmt2(x) << "\" y1=\"" << fmt2(plotBottom)
       << "\" x2=\"" << fmt2(x) << "\" y2=\"" << fmt2(plotBottom + 4)
       << "\" stroke=\"#333\"/><text x=\"" << fmt2(x) << "\" y=\""
       << fmt2(plotBottom + 17) << "\">" << point << "</text>\n";
  }
  os << "</g>\n"
     << "<text class=\"axis-label\" x=\""
     << fmt2(chart.left + chart.plotWidth / 2) << "\" y=\""
     << fmt2(plotBottom + 36)
     << "\" text-anchor=\"middle\">program point (op index)</text>\n"
     << "<text class=\"axis-label\" x=\"16\" y=\""
     << fmt2(chart.top + chart.plotHeight / 2)
     << "\" text-anchor=\"middle\" transform=\"rotate(-90 16 "
     << fmt2(chart.top + chart.plotHeight / 2) << ")\">live memory</text>\n";

  // The peak.
  double peakX = chart.x(peak + 0.5);
  bool labelLeft = peakX > chart.left + chart.plotWidth / 2;
  os << "<g id=\"peak\">\n<line id=\"peak-marker\" x1=\"" << fmt2(peakX)
     << "\" y1=\"" << fmt2(chart.top - 10) << "\" x2=\"" << fmt2(peakX)
     << "\" y2=\"" << fmt2(plotBottom)
     << "\" stroke=\"#c00\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n"
     << "<text x=\"" << fmt2(peakX + (labelLeft ? -6 : 6)) << "\" y=\""
     << fmt2(chart.top - 12) << "\" text-anchor=\""
     << (labelLeft ? "end" : "start") << "\" fill=\"#c00\">peak "
     << escapeXML(formatBytes(getPeakBytes())) << " at point " << peak << " ("
     << escapeXML(peakOpName) << ")</text>\n</g>\n";

  // The legend, in one row under the x axis label.
  os << "<g class=\"legend\">\n";
  double legendY = chart.height - 30;
  for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls) {
    double x = chart.left + cls * chart.plotWidth / kNumMemoryClasses;
    os << "<rect data-class=\"" << className(cls) << "\" x=\"" << fmt2(x)
       << "\" y=\"" << fmt2(legendY - 10)
       << "\" width=\"12\" height=\"12\" fill=\"" << kClassColors[cls]
       << "\"/><text x=\"" << fmt2(x + 16) << "\" y=\"" << fmt2(legendY)
       << "\">" << className(cls) << "</text>\n";
  }
  os << "</g>\n</svg>\n";
  if (numColumns < numPoints)
    os << "<p>" << numPoints << " program points drawn as " << numColumns
       << " columns; each column shows its point of largest live bytes.</p>\n";

  // The top tensors.
  os << "<h2>Top tensors at the peak</h2>\n<p>The " << topTensors.size()
     << " largest of the " << numLiveAtPeak
     << " buffers live at the peak.</p>\n<table id=\"top-tensors\">\n"
     << "<tr><th>#</th><th>name</th><th>bytes</th><th>class</th>"
        "<th>live range</th><th>defined by</th><th>location</th></tr>\n";
  for (auto [i, tensor] : llvm::enumerate(topTensors)) {
    const Buffer &buffer = *tensor.buffer;
    os << "<tr><td class=\"num\">" << i + 1 << "</td><td>"
       << escapeXML(buffer.name) << "</td><td class=\"num\">"
       << formatBytes(buffer.bytes) << "</td><td>"
       << stringifyMemoryClass(buffer.memoryClass) << "</td><td>["
       << buffer.start << ", " << buffer.end << "]</td><td>"
       << escapeXML(tensor.opName) << "</td><td>" << escapeXML(tensor.location)
       << "</td></tr>\n";
  }
  os << "</table>\n</body>\n</html>\n";
}

//===----------------------------------------------------------------------===//
// Trace
//===----------------------------------------------------------------------===//

void MemoryReport::printTrace(raw_ostream &os) const {
  const TensorLiveness &live = *liveness;
  int64_t peak = live.getPeakPoint();
  // Compact, one event per line: traces of large steps are long.
  os << "{\"traceEvents\": [\n";
  bool first = true;
  auto event = [&](function_ref<void(llvm::json::OStream &)> body) {
    if (!first)
      os << ",\n";
    first = false;
    llvm::json::OStream json(os);
    json.objectBegin();
    body(json);
    json.objectEnd();
  };
  // Process and thread names.
  event([&](llvm::json::OStream &json) {
    json.attribute("name", "process_name");
    json.attribute("ph", "M");
    json.attribute("pid", 1);
    json.attributeObject("args", [&] {
      json.attribute("name", toJSONString("memopt @" + functionName));
    });
  });
  event([&](llvm::json::OStream &json) {
    json.attribute("name", "thread_name");
    json.attribute("ph", "M");
    json.attribute("pid", 1);
    json.attribute("tid", 1);
    json.attributeObject("args", [&] { json.attribute("name", "ops"); });
  });
  for (auto [index, op] : llvm::enumerate(live.getSchedule())) {
    int64_t point = index;
    // Bytes per class: one counter track per class, stacked by the viewer.
    event([&](llvm::json::OStream &json) {
      json.attribute("name", "live_bytes");
      json.attribute("ph", "C");
      json.attribute("ts", point);
      json.attribute("pid", 1);
      json.attributeBegin("args");
      writeByClass(json, live.getLiveBytesByClass(point));
      json.attributeEnd();
    });
    event([&](llvm::json::OStream &json) {
      json.attribute("name", "live_bytes_total");
      json.attribute("ph", "C");
      json.attribute("ts", point);
      json.attribute("pid", 1);
      json.attributeObject(
          "args", [&] { json.attribute("total", live.getLiveBytes(point)); });
    });
    // The op that runs at the point, as a slice one unit long.
    event([&](llvm::json::OStream &json) {
      json.attribute("name", op->getName().getStringRef());
      json.attribute("ph", "X");
      json.attribute("ts", point);
      json.attribute("dur", 1);
      json.attribute("pid", 1);
      json.attribute("tid", 1);
      json.attributeObject("args", [&] {
        json.attribute("point", point);
        json.attribute("location", toJSONString(formatLocation(op->getLoc())));
      });
    });
  }
  event([&](llvm::json::OStream &json) {
    json.attribute("name", "peak");
    json.attribute("ph", "i");
    json.attribute("s", "g");
    json.attribute("ts", peak);
    json.attribute("pid", 1);
    json.attribute("tid", 1);
    json.attributeObject("args", [&] {
      json.attribute("bytes", getPeakBytes());
      json.attribute("op", peakOpName);
      json.attribute("location", toJSONString(peakLocation));
    });
  });
  os << "\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": ";
  llvm::json::OStream json(os);
  json.objectBegin();
  json.attribute("schema", kMemoryReportSchema);
  json.attribute("function", toJSONString(functionName));
  json.attribute("peak_bytes", getPeakBytes());
  json.attribute("peak_point", peak);
  json.attribute("time_unit", "program point");
  json.objectEnd();
  os << "\n}\n";
}
