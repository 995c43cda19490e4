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

std::string report::formatOffloaded(const RematSummary &remat) {
  std::string text = std::to_string(remat.offloaded.size()) +
                     " activations to host memory, " +
                     formatBytes(remat.offloadedBytes) + " each way per step";
  if (remat.linkBytesPerSecond)
    text += llvm::formatv(" ({0:f1} GB/s host link of {1})",
                          *remat.linkBytesPerSecond / 1e9, remat.device)
                .str();
  for (auto [index, entry] : llvm::enumerate(remat.offloaded))
    text += (index == 0 ? ": " : ", ") + entry.first;
  return text;
}

std::string report::formatPrecision(const ModelStates &states) {
  return states.precision + " (grads " + states.gradients + ")";
}

std::string report::formatSubject(const MemoryReport &report) {
  if (const EagerTrace *trace = report.getEagerTrace())
    return "the PyTorch eager step of " + trace->model + " on " + trace->device;
  return "@" + report.getFunctionName().str();
}

std::string report::formatPeakAt(const MemoryReport &report) {
  const TensorLiveness &live = report.getLiveness();
  int64_t peak = live.getPeakPoint();
  std::string phase;
  if (!report.getPointPhase(peak).empty())
    phase = " (" + report.getPointPhase(peak).str() + ")";
  return "point " + std::to_string(peak) + " of " +
         std::to_string(live.getNumPoints()) + phase + ": " +
         report.getPeakOpName().str() + " at " +
         report.getPeakLocation().str() +
         formatSourceSuffix(report.getPeakSource());
}

std::string report::formatParameters(const MemoryReport &report) {
  std::string count = std::to_string(report.getParameterCount()) + " elements";
  if (report.getEagerTrace())
    count += " (the bytes over 4: fp32 assumed)";
  return count + ", " + formatBytes(report.getParameterBytes());
}

std::string report::formatTotalFlops(const MemoryReport &report) {
  if (!report.hasFlops())
    return "not recorded (an eager trace counts no FLOPs)";
  return formatFlops(report.getTotalFlops());
}

std::string report::formatAllocatedPeak(const EagerTrace &trace, int64_t load) {
  int64_t allocated = trace.allocatedPeakBytes;
  std::string relation = "equal to LOAD";
  if (allocated != load)
    relation =
        formatBytes(allocated > load ? allocated - load : load - allocated) +
        (allocated > load ? " above" : " below") + " LOAD";
  return formatBytes(allocated) +
         ", the trace's allocated_peak_bytes: " + relation;
}

std::string report::formatPhases(const EagerTrace &trace) {
  std::string text;
  for (const PhaseRange &range : trace.phases)
    text += (text.empty() ? "" : ", ") + range.phase + " " +
            std::to_string(range.firstPoint) + "-" +
            std::to_string(range.lastPoint);
  return text;
}

std::string report::formatLossPoint(const MemoryReport &report) {
  std::string point =
      std::to_string(report.getSavedActivations().lossPoint.value_or(0));
  if (report.getEagerTrace())
    return "by the end of the forward pass (point " + point + ")";
  return "before the loss (point " + point + ")";
}

std::string report::formatArena(const MemoryReport &report) {
  if (!report.hasArena())
    return "none: an eager step runs on PyTorch's caching allocator, not on "
           "a static plan";
  return formatBytes(report.getArenaBytes()) + ", " +
         formatPercent(report.getFragmentation()) + " above LOAD, " +
         (report.isArenaFromIR() ? "planned in the IR"
                                 : "planned for this report") +
         " (alignment " + std::to_string(report.getPlanAlignment()) + ")";
}

std::string report::formatHostArena(const MemoryReport &report) {
  const TensorLiveness &live = report.getLiveness();
  int64_t arena = *report.getHostArenaBytes();
  int64_t load = live.getHostLoad();
  double above = load == 0 ? 0.0 : static_cast<double>(arena) / load - 1.0;
  return formatBytes(arena) + ", " + formatPercent(above) +
         " above the host's LOAD, " +
         (report.isArenaFromIR() ? "planned in the IR"
                                 : "planned for this report");
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

std::string report::formatPipelineHeader(const PipelineSummary &pipeline) {
  const PipelineStageSummary &reported =
      *llvm::find_if(pipeline.stages, [&](const PipelineStageSummary &stage) {
        return stage.stage == pipeline.reportedStage;
      });
  int64_t built = pipeline.stages.size();
  return pipeline.schedule +
         (pipeline.virtualStages > 1
              ? " (" + std::to_string(pipeline.virtualStages) +
                    " model chunks a stage)"
              : std::string()) +
         ", " + formatCount(pipeline.numStages, "stage") +
         (built < pipeline.numStages
              ? " (" + std::to_string(built) + " built: only-stages)"
              : std::string()) +
         ", " + std::to_string(pipeline.microBatches) +
         (pipeline.microBatches == 1 ? " micro-batch" : " micro-batches") +
         ", bubble " + formatPercent(pipeline.bubbleFraction) +
         "; reporting stage " + std::to_string(pipeline.reportedStage) +
         (pipeline.chosenByName ? " (function=" + reported.function + ")"
                                : std::string(" (the highest peak)"));
}

std::string report::formatStageLayers(const PipelineStageSummary &stage) {
  if (stage.layers.empty())
    return "none";
  if (stage.layers.size() == 1)
    return stage.layers.front();
  return stage.layers.front() + "-" + stage.layers.back();
}

std::string report::formatInFlightNote(const PipelineSummary &pipeline) {
  const PipelineStageSummary &first = pipeline.stages.front();
  const PipelineStageSummary &last = pipeline.stages.back();
  std::string note =
      pipeline.virtualStages > 1
          ? "in flight: the passes of a micro-batch through one of a "
            "stage's chunks whose forward part has run and whose backward "
            "part has not, at most; "
          : "in flight: the micro-batches whose forward pass a stage has "
            "run and whose " +
                std::string(pipeline.schedule == "zb-h1" ? "weight-gradient"
                                                         : "backward") +
                " pass it has not, at most; ";
  if (llvm::all_of(pipeline.stages, [&](const PipelineStageSummary &stage) {
        return stage.microBatchesInFlight == first.microBatchesInFlight;
      }))
    return note + "every stage holds " +
           std::to_string(first.microBatchesInFlight);
  note += "stage 0 holds " + std::to_string(first.microBatchesInFlight) +
          ", stage " + std::to_string(last.stage) + " " +
          std::to_string(last.microBatchesInFlight);
  int64_t more = first.microBatchesInFlight - last.microBatchesInFlight;
  if (more > 0)
    note += ": the first stage keeps " + std::to_string(more) + " more " +
            (pipeline.virtualStages > 1
                 ? (more == 1 ? "chunk pass" : "chunk passes")
                 : (more == 1 ? "micro-batch" : "micro-batches")) +
            " of activations than the last";
  return note;
}

std::string report::formatHostPeak(const TensorLiveness &live) {
  int64_t point = live.getHostPeakPoint();
  return formatBytes(live.getHostLoad()) + " at " +
         live.getSchedule()[point]->getName().getStringRef().str() +
         " (point " + std::to_string(point) + "), " +
         formatBytes(live.getHostPersistentBytes()) + " persistent";
}
