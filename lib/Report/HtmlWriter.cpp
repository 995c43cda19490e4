//===- HtmlWriter.cpp - the memory report as an HTML page -----------------===//
//
// One self-contained HTML5 page (no scripts, no network): the summary, the
// bytes per class at the peak, an SVG timeline stacked by memory class with
// the peak marked (and, for a step with host values, the host's under it),
// and the top tensors.
//
//===----------------------------------------------------------------------===//

#include "ReportFormatting.h"

#include "memopt/Report/ReportWriters.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::report;

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
  double plotBottom() const { return top + plotHeight; }
};

/// The program points the timeline draws: column c covers the points
/// [start[c], start[c + 1]) and shows point[c], the one of largest live
/// bytes among them.
struct Columns {
  SmallVector<int64_t> start, point;
  int64_t size() const { return point.size(); }
};

/// The live bytes a timeline draws: the device's, or the host's
/// (train-offload), per point and per class, with their load and peak.
struct Series {
  const TensorLiveness &live;
  bool host;
  int64_t bytes(int64_t point) const {
    return host ? live.getHostLiveBytes(point) : live.getLiveBytes(point);
  }
  const std::array<int64_t, kNumMemoryClasses> &byClass(int64_t point) const {
    return host ? live.getHostLiveBytesByClass(point)
                : live.getLiveBytesByClass(point);
  }
  int64_t load() const { return host ? live.getHostLoad() : live.getLoad(); }
  int64_t peakPoint() const {
    return host ? live.getHostPeakPoint() : live.getPeakPoint();
  }
  /// The prefix of the chart's element ids: "" or "host-".
  StringRef idPrefix() const { return host ? "host-" : ""; }
};
} // namespace

static std::string fmt2(double value) { return formatFixed2(value); }

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

static void printHead(const std::string &title, raw_ostream &os) {
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
}

static void printSummary(const MemoryReport &report, raw_ostream &os) {
  const TensorLiveness &live = report.getLiveness();
  os << "<h2>Summary</h2>\n<table id=\"summary\">\n";
  auto row = [&](StringRef key, const std::string &value) {
    os << "<tr><th>" << key << "</th><td>" << escapeXML(value)
       << "</td></tr>\n";
  };
  const EagerTrace *trace = report.getEagerTrace();
  bool fromIR = report.isArenaFromIR();
  row(fromIR ? "Peak (arena)" : "Peak (LOAD)",
      formatBytes(report.getPeakBytes()));
  if (trace)
    row("Allocated", formatAllocatedPeak(*trace, report.getLoadBytes()));
  if (fromIR)
    row("LOAD", formatBytes(report.getLoadBytes()));
  row("Arena", formatArena(report));
  if (report.getPlanLoadBytes())
    row("Plan LOAD", formatPlanLoad(report));
  row("At", formatPeakAt(report));
  if (trace)
    row("Phases", formatPhases(*trace));
  row("Persistent", formatBytes(live.getPersistentBytes()));
  if (live.hasHostBuffers())
    row("Host peak", formatHostPeak(live));
  if (report.getHostArenaBytes())
    row("Host arena", formatHostArena(report));
  row("Parameters", formatParameters(report));
  row("Total FLOPs", formatTotalFlops(report));
  if (const std::optional<RematSummary> &remat = report.getRemat()) {
    row("Remat", formatBytes(remat->peakBefore) + " -> " +
                     formatBytes(remat->peakAfter) + " (train-remat)");
    row("Recomputed", formatRecomputedOps(*remat));
    row("Recompute", formatFlops(remat->flops) + ", " +
                         formatPercent(report.getRematOverhead()) +
                         " more step FLOPs");
    row("Remat algorithm", formatRematAlgorithm(*remat));
    if (!remat->offloaded.empty())
      row("Offloaded", formatOffloaded(*remat));
  }
  row("Buffers", std::to_string(live.getBuffers().size()) + " (" +
                     std::to_string(report.getNumLiveAtPeak()) +
                     " live at the peak)");
  os << "</table>\n";
}

/// The stages of a pipelined step (absent otherwise).
static void printPipeline(const MemoryReport &report, raw_ostream &os) {
  const std::optional<PipelineSummary> &pipeline = report.getPipeline();
  if (!pipeline)
    return;
  os << "<h2>Pipeline stages</h2>\n<p>"
     << escapeXML(formatPipelineHeader(*pipeline)) << "; "
     << formatBytes(pipeline->p2pBytes)
     << " sent point-to-point per step by all stages. "
     << escapeXML(formatInFlightNote(*pipeline)) << ".</p>\n"
     << "<table id=\"pipeline\">\n<tr><th>stage</th><th>layers</th>"
        "<th>in flight</th><th>activations</th><th>peak</th>"
        "<th>model states</th><th>sent</th><th>peak at</th></tr>\n";
  for (const PipelineStageSummary &stage : pipeline->stages)
    os << "<tr><td class=\"num\">" << stage.stage << "</td><td>"
       << escapeXML(formatStageLayers(stage)) << "</td><td class=\"num\">"
       << stage.microBatchesInFlight << "</td><td class=\"num\">"
       << formatBytes(stage.maxActivationBytes) << "</td><td class=\"num\">"
       << formatBytes(stage.peakBytes) << "</td><td class=\"num\">"
       << formatBytes(stage.modelStatesBytes) << "</td><td class=\"num\">"
       << formatBytes(stage.sentBytes) << "</td><td>"
       << escapeXML(stage.peakOpName + " at " + stage.peakLocation)
       << "</td></tr>\n";
  os << "</table>\n";
}

static void printByClass(const MemoryReport &report, raw_ostream &os) {
  const TensorLiveness &live = report.getLiveness();
  const auto &byClass = live.getLiveBytesByClass(live.getPeakPoint());
  os << "<h2>By class at the peak</h2>\n<table id=\"by-class\">\n"
     << "<tr><th>class</th><th>bytes</th><th>share</th></tr>\n";
  for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls)
    os << "<tr><td><span class=\"swatch\" style=\"background:"
       << kClassColors[cls] << "\"></span>" << className(cls)
       << "</td><td class=\"num\">" << formatBytes(byClass[cls])
       << "</td><td class=\"num\">"
       << formatShare(byClass[cls], report.getLoadBytes()) << "</td></tr>\n";
  os << "</table>\n";
}

/// At most kMaxColumns columns over the points, each showing its point of
/// largest live bytes.
static Columns getColumns(const Series &series) {
  int64_t numPoints = series.live.getNumPoints();
  int64_t numColumns = std::min(numPoints, kMaxColumns);
  Columns columns;
  for (int64_t c = 0; c < numColumns; ++c) {
    int64_t begin = c * numPoints / numColumns;
    int64_t end = (c + 1) * numPoints / numColumns;
    int64_t best = begin;
    for (int64_t p = begin; p < end; ++p)
      if (series.bytes(p) > series.bytes(best))
        best = p;
    columns.start.push_back(begin);
    columns.point.push_back(best);
  }
  columns.start.push_back(numPoints);
  return columns;
}

/// One closed step-shaped path per class, between the cumulative sums of the
/// classes below it and of the classes up to it.
static void printAreas(const Series &series, const Columns &columns,
                       const Chart &chart, raw_ostream &os) {
  const auto &byClass = series.byClass(series.peakPoint());
  int64_t numColumns = columns.size();
  SmallVector<int64_t> below(numColumns, 0);
  for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls) {
    SmallVector<int64_t> upTo(below);
    for (int64_t c = 0; c < numColumns; ++c)
      upTo[c] += series.byClass(columns.point[c])[cls];
    os << "<path class=\"area\" data-class=\"" << className(cls) << "\" fill=\""
       << kClassColors[cls] << "\" d=\"";
    if (numColumns > 0) {
      os << "M" << fmt2(chart.x(0)) << "," << fmt2(chart.y(upTo[0]));
      for (int64_t c = 0; c < numColumns; ++c) {
        os << " H" << fmt2(chart.x(columns.start[c + 1]));
        if (c + 1 < numColumns)
          os << " V" << fmt2(chart.y(upTo[c + 1]));
      }
      os << " V" << fmt2(chart.y(below[numColumns - 1]));
      for (int64_t c = numColumns - 1; c >= 0; --c) {
        os << " H" << fmt2(chart.x(columns.start[c]));
        if (c > 0)
          os << " V" << fmt2(chart.y(below[c - 1]));
      }
      os << " Z";
    }
    os << "\"><title>" << className(cls) << ": " << formatBytes(byClass[cls])
       << " at the peak</title></path>\n";
    below = std::move(upTo);
  }
}

/// Axes, ticks (quarters of LOAD; points) and labels.
static void printAxes(const Chart &chart, int64_t load, raw_ostream &os) {
  double plotBottom = chart.plotBottom();
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
    int64_t bytes = load * quarter / 4;
    double y = chart.y(bytes);
    os << "<line x1=\"" << fmt2(chart.left - 4) << "\" y1=\"" << fmt2(y)
       << "\" x2=\"" << fmt2(chart.left) << "\" y2=\"" << fmt2(y)
       << "\" stroke=\"#333\"/><text x=\"" << fmt2(chart.left - 7) << "\" y=\""
       << fmt2(y + 4) << "\">" << formatBytesShort(bytes) << "</text>\n";
  }
  os << "</g>\n<g class=\"x-ticks\" text-anchor=\"middle\">\n";
  int64_t step = tickStep(std::max<int64_t>(chart.numPoints - 1, 1));
  for (int64_t point = 0; point < chart.numPoints; point += step) {
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
}

/// An eager step's phases: one group per run of points of a phase, with
/// its extent as a tooltip, a dotted line where it starts (after the first)
/// and its name at the top of the plot when the name fits in its width
/// (about 7 px a character at 12 px).
static void printPhases(const EagerTrace &trace, const Chart &chart,
                        raw_ostream &os) {
  os << "<g id=\"phases\" fill=\"#555\">\n";
  for (const PhaseRange &range : trace.phases) {
    double x = chart.x(range.firstPoint);
    double width = chart.x(range.lastPoint + 1) - x;
    os << "<g data-phase=\"" << escapeXML(range.phase) << "\"><title>"
       << escapeXML(range.phase) << ": points " << range.firstPoint << " to "
       << range.lastPoint << "</title>\n";
    if (range.firstPoint > 0)
      os << "<line x1=\"" << fmt2(x) << "\" y1=\"" << fmt2(chart.top)
         << "\" x2=\"" << fmt2(x) << "\" y2=\"" << fmt2(chart.plotBottom())
         << "\" stroke=\"#555\" stroke-dasharray=\"1 3\"/>\n";
    if (width >= 7.0 * range.phase.size() + 6)
      os << "<text x=\"" << fmt2(x + 3) << "\" y=\"" << fmt2(chart.top + 12)
         << "\">" << escapeXML(range.phase) << "</text>\n";
    os << "</g>\n";
  }
  os << "</g>\n";
}

/// The peak marker and its label, then the legend in one row under the x
/// axis label.
static void printPeakAndLegend(const Series &series, StringRef label,
                               const Chart &chart, raw_ostream &os) {
  int64_t peak = series.peakPoint();
  double peakX = chart.x(peak + 0.5);
  bool labelLeft = peakX > chart.left + chart.plotWidth / 2;
  StringRef id = series.idPrefix();
  os << "<g id=\"" << id << "peak\">\n<line id=\"" << id
     << "peak-marker\" x1=\"" << fmt2(peakX) << "\" y1=\""
     << fmt2(chart.top - 10) << "\" x2=\"" << fmt2(peakX) << "\" y2=\""
     << fmt2(chart.plotBottom())
     << "\" stroke=\"#c00\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n"
     << "<text x=\"" << fmt2(peakX + (labelLeft ? -6 : 6)) << "\" y=\""
     << fmt2(chart.top - 12) << "\" text-anchor=\""
     << (labelLeft ? "end" : "start") << "\" fill=\"#c00\">" << escapeXML(label)
     << "</text>\n</g>\n";

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
  os << "</g>\n";
}

/// The timeline of `series`: columns of program points, stacked by class.
/// The host's (train-offload) comes under the device's, on the same
/// program points.
static void printTimeline(const MemoryReport &report, const Series &series,
                          raw_ostream &os) {
  int64_t numPoints = series.live.getNumPoints();
  Columns columns = getColumns(series);
  Chart chart{numPoints, series.load()};
  int64_t peak = series.peakPoint();
  std::string label;
  if (series.host)
    label = "host peak " + formatBytes(series.load()) + " at point " +
            std::to_string(peak) + " (" +
            series.live.getSchedule()[peak]->getName().getStringRef().str() +
            ")";
  else
    label = "peak " + formatBytes(report.getPeakBytes()) + " at point " +
            std::to_string(peak) + " (" + report.getPeakOpName().str() + ")";
  os << (series.host ? "<h2>Host memory</h2>\n" : "<h2>Timeline</h2>\n")
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"" << series.idPrefix()
     << "timeline\" width=\"" << fmt2(chart.width) << "\" height=\""
     << fmt2(chart.height) << "\" viewBox=\"0 0 " << fmt2(chart.width) << " "
     << fmt2(chart.height)
     << "\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<title>Live bytes " << (series.host ? "in host memory " : "")
     << "per memory class at every program point of "
     << escapeXML(formatSubject(report)) << "</title>\n";
  printAreas(series, columns, chart, os);
  printAxes(chart, series.load(), os);
  if (const EagerTrace *trace = report.getEagerTrace())
    printPhases(*trace, chart, os);
  printPeakAndLegend(series, label, chart, os);
  os << "</svg>\n";
  if (columns.size() < numPoints)
    os << "<p>" << numPoints << " program points drawn as " << columns.size()
       << " columns; each column shows its point of largest live bytes.</p>\n";
}

static void printTopTensors(const MemoryReport &report, raw_ostream &os) {
  ArrayRef<ReportTensor> tensors = report.getTopTensors();
  os << "<h2>Top tensors at the peak</h2>\n<p>The " << tensors.size()
     << " largest of the " << report.getNumLiveAtPeak()
     << " buffers live at the peak.</p>\n<table id=\"top-tensors\">\n"
     << "<tr><th>#</th><th>name</th><th>bytes</th><th>class</th>"
        "<th>live range</th><th>defined by</th><th>location</th></tr>\n";
  for (auto [i, tensor] : llvm::enumerate(tensors)) {
    const Buffer &buffer = *tensor.buffer;
    os << "<tr><td class=\"num\">" << i + 1 << "</td><td>"
       << escapeXML(buffer.name) << "</td><td class=\"num\">"
       << formatBytes(buffer.bytes) << "</td><td>"
       << stringifyMemoryClass(buffer.memoryClass) << "</td><td>["
       << buffer.start << ", " << buffer.end << "]</td><td>"
       << escapeXML(tensor.opName) << "</td><td>"
       << escapeXML(tensor.location + formatSourceSuffix(tensor.source))
       << "</td></tr>\n";
  }
  os << "</table>\n";
}

static void printModelStates(const MemoryReport &report, raw_ostream &os) {
  const ModelStates &states = report.getModelStates();
  os << "<h2>Model states</h2>\n<p>" << escapeXML(formatPrecision(states))
     << ", " << states.parameterCount << " parameters";
  if (states.trainableParameterCount != states.parameterCount)
    os << ", " << states.trainableParameterCount << " trainable";
  if (report.getEagerTrace())
    os << " (" << kEagerStatesNote << "); bytes as the trace records them";
  else
    os << "; unpadded bytes";
  os << ".</p>\n<table id=\"model-states\">\n"
     << "<tr><th>state</th><th>bytes</th><th>per parameter</th></tr>\n";
  for (const auto &[name, bytes] : states.getRows())
    os << "<tr><td>" << escapeXML(name) << "</td><td class=\"num\">"
       << formatBytes(bytes) << "</td><td class=\"num\">"
       << formatFixed2(states.perParameter(bytes)) << "</td></tr>\n";
  os << "</table>\n";
}

static void printSavedActivations(const MemoryReport &report, raw_ostream &os) {
  const SavedActivations &saved = report.getSavedActivations();
  os << "<h2>Activations saved for backward</h2>\n";
  if (!saved.lossPoint && report.getPipeline()) {
    os << "<p>Not cut at a loss: " << kStageActivationsNote << ".</p>\n";
    return;
  }
  if (!saved.lossPoint) {
    os << "<p>None: "
       << (report.getEagerTrace() ? "the trace has no forward pass"
                                  : "the step returns no loss")
       << ".</p>\n";
    return;
  }
  os << "<p>" << formatBytes(saved.totalBytes) << " in "
     << formatCount(saved.numBuffers, "buffer") << ", defined "
     << formatLossPoint(report) << " and live after it.";
  if (saved.numParameterCopies > 0)
    os << " Parameter copies (casts of parameters, not in the layers below): "
       << formatBytes(saved.parameterCopyBytes) << " in "
       << formatCount(saved.numParameterCopies, "buffer") << ".";
  os << "</p>\n";
  if (saved.byLayer.empty())
    return;
  os << "<table id=\"saved-activations\">\n"
     << "<tr><th>layer</th><th>bytes</th><th>buffers</th></tr>\n";
  for (const LayerActivations &layer : saved.byLayer)
    os << "<tr><td>" << escapeXML(layer.layer) << "</td><td class=\"num\">"
       << formatBytes(layer.bytes) << "</td><td class=\"num\">"
       << layer.numBuffers << "</td></tr>\n";
  os << "</table>\n";
}

void mlir::memopt::printHTMLReport(const MemoryReport &report,
                                   raw_ostream &os) {
  printHead("Memory report of " + escapeXML(formatSubject(report)), os);
  printSummary(report, os);
  printPipeline(report, os);
  printByClass(report, os);
  const TensorLiveness &live = report.getLiveness();
  printTimeline(report, Series{live, /*host=*/false}, os);
  // Host memory beside the device's, on the same program points.
  if (live.hasHostBuffers())
    printTimeline(report, Series{live, /*host=*/true}, os);
  printTopTensors(report, os);
  printModelStates(report, os);
  printSavedActivations(report, os);
  os << "</body>\n</html>\n";
}
