//===- TextWriter.cpp - the memory report as a text table -----------------===//

#include "ReportFormatting.h"

#include "memopt/Report/ReportWriters.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::report;

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

/// The summary: the peak and where it is, the arena, sizes and counts, and
/// what train-remat decided.
static void printSummary(const MemoryReport &report, raw_ostream &os) {
  const TensorLiveness &live = report.getLiveness();
  const EagerTrace *trace = report.getEagerTrace();
  bool fromIR = report.isArenaFromIR();
  SmallVector<SmallVector<std::string>> rows;
  rows.push_back({fromIR ? "peak (arena)" : "peak (LOAD)",
                  formatBytes(report.getPeakBytes())});
  if (trace)
    rows.push_back(
        {"allocated", formatAllocatedPeak(*trace, report.getLoadBytes())});
  if (fromIR)
    rows.push_back({"LOAD", formatBytes(report.getLoadBytes())});
  rows.push_back({"arena", formatArena(report)});
  if (report.getPlanLoadBytes())
    rows.push_back({"plan LOAD", formatPlanLoad(report)});
  rows.push_back({"at", formatPeakAt(report)});
  if (trace)
    rows.push_back({"phases", formatPhases(*trace)});
  rows.push_back({"persistent", formatBytes(live.getPersistentBytes())});
  // Host memory (train-offload), beside the device's numbers above.
  if (live.hasHostBuffers())
    rows.push_back({"host peak", formatHostPeak(live)});
  if (report.getHostArenaBytes())
    rows.push_back({"host arena", formatHostArena(report)});
  rows.push_back({"parameters", formatParameters(report)});
  rows.push_back({"total FLOPs", formatTotalFlops(report)});
  rows.push_back({"buffers", std::to_string(live.getBuffers().size()) + " (" +
                                 std::to_string(report.getNumLiveAtPeak()) +
                                 " live at the peak)"});
  if (const std::optional<RematSummary> &remat = report.getRemat()) {
    rows.push_back({"remat", formatBytes(remat->peakBefore) + " -> " +
                                 formatBytes(remat->peakAfter) +
                                 " (train-remat)"});
    rows.push_back({"recomputed", formatRecomputedOps(*remat)});
    rows.push_back({"recompute", formatFlops(remat->flops) + ", " +
                                     formatPercent(report.getRematOverhead()) +
                                     " more step FLOPs (the extra time of a "
                                     "compute-bound step)"});
    rows.push_back({"algorithm", formatRematAlgorithm(*remat)});
    if (!remat->offloaded.empty())
      rows.push_back({"offloaded", formatOffloaded(*remat)});
  }
  printTable(os, rows, {false, false});
}

/// The stages of a pipelined step, one row each.
static void printPipeline(const MemoryReport &report, raw_ostream &os) {
  const std::optional<PipelineSummary> &pipeline = report.getPipeline();
  if (!pipeline)
    return;
  os << "\n  pipeline: " << formatPipelineHeader(*pipeline) << "; "
     << formatBytes(pipeline->p2pBytes)
     << " sent point-to-point per step by all stages\n";
  SmallVector<SmallVector<std::string>> rows = {
      {"stage", "layers", "in flight", "activations", "peak", "model states",
       "sent", "peak at"}};
  for (const PipelineStageSummary &stage : pipeline->stages)
    rows.push_back(
        {std::to_string(stage.stage), formatStageLayers(stage),
         std::to_string(stage.microBatchesInFlight),
         formatBytes(stage.maxActivationBytes), formatBytes(stage.peakBytes),
         formatBytes(stage.modelStatesBytes), formatBytes(stage.sentBytes),
         stage.peakOpName + " at " + stage.peakLocation});
  printTable(os, rows, {true, false, true, true, true, true, true, false});
  os << "  " << formatInFlightNote(*pipeline) << "\n";
}

/// Bytes and bytes per parameter of each kind of model state.
static void printModelStates(const MemoryReport &report, raw_ostream &os) {
  const ModelStates &states = report.getModelStates();
  os << "\n  model states: " << formatPrecision(states) << ", "
     << states.parameterCount << " parameters";
  if (states.trainableParameterCount != states.parameterCount)
    os << ", " << states.trainableParameterCount << " trainable ("
       << formatFixed2(100.0 * states.trainableParameterCount /
                       std::max<int64_t>(states.parameterCount, 1))
       << "%), "
       << formatFixed2(states.perTrainableParameter(states.getTotalBytes()))
       << " bytes per trainable parameter";
  if (report.getEagerTrace())
    os << " (" << kEagerStatesNote << ")";
  os << "\n";
  SmallVector<SmallVector<std::string>> rows = {
      {"state", "bytes", "per parameter"}};
  for (const auto &[name, bytes] : states.getRows())
    rows.push_back(
        {name, formatBytes(bytes), formatFixed2(states.perParameter(bytes))});
  if (states.hasHost)
    for (auto [name, bytes] :
         {std::pair<StringRef, int64_t>{"on the host: master weights",
                                        states.hostMasterWeightBytes},
          {"on the host: gradients", states.hostGradientBytes},
          {"on the host: optimizer states", states.hostOptimizerStateBytes},
          {"on the host: total", states.getHostBytes()}})
      rows.push_back({name.str(), formatBytes(bytes),
                      formatFixed2(states.perParameter(bytes))});
  printTable(os, rows, {false, true, true});
  if (states.hasHost)
    os << "  DeepSpeed's ZeRO-2 offload estimate for "
       << states.deepSpeedProcesses << " GPU(s) on a node: host "
       << formatBytes(states.deepSpeedHostBytes) << " a node ("
       << formatFixed2(states.perParameter(states.deepSpeedHostBytes))
       << " bytes a parameter: max(4 x GPUs, 16) x its 1.5 buffer factor), "
          "device "
       << formatBytes(states.deepSpeedDeviceBytes)
       << " (the 16-bit weights; activations and gradient staging, which "
          "it leaves out, are in the device's peak above)\n";
}

/// The collectives per process and step, by kind and grid axes.
static void printCommunication(const MemoryReport &report, raw_ostream &os) {
  const std::optional<Communication> &comm = report.getCommunication();
  if (!comm)
    return;
  std::string shape;
  for (int64_t extent : comm->gridShape)
    shape += (shape.empty() ? "" : "x") + std::to_string(extent);
  os << "\n  communication per process per step: "
     << formatBytes(comm->totalSentBytes) << " sent";
  // A pipeline stage's point-to-point messages are sent as they are.
  if (!comm->pipelineStage ||
      llvm::any_of(comm->collectives, [](const CollectiveTraffic &row) {
        return row.kind != "p2p";
      }))
    os << " (ring algorithms)";
  os << "; each of the " << comm->getProcesses() << " processes of @"
     << comm->grid << " (" << shape << ") runs ";
  if (comm->pipelineStage)
    os << "one pipeline stage's program; this is stage " << *comm->pipelineStage
       << "'s\n";
  else
    os << "this program\n";
  SmallVector<SmallVector<std::string>> rows = {
      {"collective", "axes", "group", "count", "tensors", "sent"}};
  for (const CollectiveTraffic &row : comm->collectives)
    rows.push_back({row.kind, row.axes, std::to_string(row.groupSize),
                    std::to_string(row.count), formatBytes(row.tensorBytes),
                    formatBytes(row.sentBytes)});
  printTable(os, rows, {false, false, true, true, true, true});
}

/// The activations saved for the backward pass, per layer.
static void printSavedActivations(const MemoryReport &report, raw_ostream &os) {
  const SavedActivations &saved = report.getSavedActivations();
  if (!saved.lossPoint && report.getPipeline()) {
    os << "\n  activations saved for backward: not cut at a loss ("
       << kStageActivationsNote << ")\n";
    return;
  }
  if (!saved.lossPoint) {
    os << "\n  activations saved for backward: none ("
       << (report.getEagerTrace() ? "the trace has no forward pass"
                                  : "the step returns no loss")
       << ")\n";
    return;
  }
  os << "\n  activations saved for backward: " << formatBytes(saved.totalBytes)
     << " in " << formatCount(saved.numBuffers, "buffer") << ", defined "
     << formatLossPoint(report) << " and live after it\n";
  SmallVector<SmallVector<std::string>> rows = {{"layer", "bytes", "buffers"}};
  for (const LayerActivations &layer : saved.byLayer)
    rows.push_back({layer.layer, formatBytes(layer.bytes),
                    std::to_string(layer.numBuffers)});
  if (!saved.byLayer.empty())
    printTable(os, rows, {false, true, true});
  if (saved.numParameterCopies > 0)
    os << "  parameter copies: " << formatBytes(saved.parameterCopyBytes)
       << " in " << formatCount(saved.numParameterCopies, "buffer")
       << " (casts of parameters, not in the layers above)\n";
}

void mlir::memopt::printTextReport(const MemoryReport &report,
                                   raw_ostream &os) {
  const TensorLiveness &live = report.getLiveness();
  int64_t peak = live.getPeakPoint();
  int64_t load = report.getLoadBytes();
  os << "memory report of " << formatSubject(report) << " ("
     << kMemoryReportSchema << ")\n\n";
  printSummary(report, os);
  printPipeline(report, os);

  os << "\n";
  SmallVector<SmallVector<std::string>> classRows = {
      {"class", "bytes at peak", "share"}};
  const auto &byClass = live.getLiveBytesByClass(peak);
  for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls)
    classRows.push_back({className(cls).str(), formatBytes(byClass[cls]),
                         formatShare(byClass[cls], load)});
  classRows.push_back({"total", formatBytes(load), formatShare(load, load)});
  printTable(os, classRows, {false, true, true});

  ArrayRef<ReportTensor> tensors = report.getTopTensors();
  os << "\n  top " << tensors.size() << " of " << report.getNumLiveAtPeak()
     << " tensors live at the peak\n";
  SmallVector<SmallVector<std::string>> tensorRows = {
      {"#", "name", "bytes", "class", "live", "defined by"}};
  for (auto [i, tensor] : llvm::enumerate(tensors)) {
    const Buffer &buffer = *tensor.buffer;
    tensorRows.push_back({std::to_string(i + 1), buffer.name,
                          formatBytes(buffer.bytes),
                          stringifyMemoryClass(buffer.memoryClass).str(),
                          "[" + std::to_string(buffer.start) + ", " +
                              std::to_string(buffer.end) + "]",
                          tensor.opName + " at " + tensor.location +
                              formatSourceSuffix(tensor.source)});
  }
  printTable(os, tensorRows, {true, false, true, false, false, false});

  printModelStates(report, os);
  printSavedActivations(report, os);
  printCommunication(report, os);
}
