//===- JsonWriter.cpp - the memory report as JSON -------------------------===//
//
// Schema `memopt.memory-report/1`, every key documented in docs/report.md.
//
//===----------------------------------------------------------------------===//

#include "ReportFormatting.h"

#include "memopt/Report/ReportWriters.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::report;

/// The "remat" object, or null when train-remat did not run on the step.
static void writeRemat(const MemoryReport &report, llvm::json::OStream &json) {
  const std::optional<RematSummary> &remat = report.getRemat();
  if (!remat) {
    json.attribute("remat", nullptr);
    return;
  }
  json.attributeObject("remat", [&] {
    json.attribute("recompute_flops", remat->flops);
    json.attribute("overhead", report.getRematOverhead());
    json.attribute("peak_before", remat->peakBefore);
    json.attribute("peak_after", remat->peakAfter);
    json.attribute("recomputed_ops", remat->numOps);
    json.attributeObject("by_op", [&] {
      for (const auto &[name, count] : remat->opsByName)
        json.attribute(name, count);
    });
    if (remat->algorithm.empty())
      json.attribute("algorithm", nullptr);
    else
      json.attribute("algorithm", toJSONString(remat->algorithm));
    if (remat->budget)
      json.attribute("budget", *remat->budget);
    else
      json.attribute("budget", nullptr);
    if (remat->gap)
      json.attribute("gap", *remat->gap);
    else
      json.attribute("gap", nullptr);
    // Activation offload: what went to the host, and over which link.
    json.attributeArray("offloaded", [&] {
      for (const auto &[name, bytes] : remat->offloaded)
        json.object([&] {
          json.attribute("name", toJSONString(name));
          json.attribute("bytes", bytes);
        });
    });
    json.attribute("offloaded_bytes", remat->offloadedBytes);
    if (remat->linkBytesPerSecond)
      json.attribute("link_bytes_per_second", *remat->linkBytesPerSecond);
    else
      json.attribute("link_bytes_per_second", nullptr);
    if (remat->device.empty())
      json.attribute("device", nullptr);
    else
      json.attribute("device", toJSONString(remat->device));
  });
}

/// The "model_states" object: bytes and bytes per parameter of each kind.
static void writeModelStates(const MemoryReport &report,
                             llvm::json::OStream &json) {
  const ModelStates &states = report.getModelStates();
  auto kind = [&](StringRef key, int64_t bytes) {
    json.attributeObject(key, [&] {
      json.attribute("bytes", bytes);
      json.attribute("per_parameter", states.perParameter(bytes));
    });
  };
  json.attributeObject("model_states", [&] {
    json.attribute("precision", states.precision);
    json.attribute("gradients_precision", states.gradients);
    json.attribute("parameter_count", states.parameterCount);
    json.attribute("trainable_parameter_count", states.trainableParameterCount);
    kind("weights", states.weightBytes);
    kind("frozen_weights", states.frozenWeightBytes);
    kind("quantized_weights", states.quantizedWeightBytes);
    kind("adapter_weights", states.adapterWeightBytes);
    kind("master_weights", states.masterWeightBytes);
    kind("gradients", states.gradientBytes);
    kind("optimizer_states", states.optimizerStateBytes);
    kind("optimizer_states_8bit", states.optimizerState8bitBytes);
    json.attributeObject("fp8_amax_histories", [&] {
      json.attribute("count", states.fp8HistoryCount);
      json.attribute("bytes", states.fp8ScalingBytes);
      json.attribute("per_parameter",
                     states.perParameter(states.fp8ScalingBytes));
    });
    json.attributeArray("other_states", [&] {
      for (const auto &[name, bytes] : states.otherStates) {
        json.objectBegin();
        json.attribute("name", toJSONString(name));
        json.attribute("bytes", bytes);
        json.objectEnd();
      }
    });
    json.attributeObject("total", [&] {
      json.attribute("bytes", states.getTotalBytes());
      json.attribute("per_parameter",
                     states.perParameter(states.getTotalBytes()));
      json.attribute("per_trainable_parameter",
                     states.perTrainableParameter(states.getTotalBytes()));
    });
    // The host's part of the above (train-offload).
    if (states.hasHost)
      json.attributeObject("host", [&] {
        kind("master_weights", states.hostMasterWeightBytes);
        kind("gradients", states.hostGradientBytes);
        kind("optimizer_states", states.hostOptimizerStateBytes);
        kind("total", states.getHostBytes());
        json.attributeObject("deepspeed_estimate", [&] {
          json.attribute("processes", states.deepSpeedProcesses);
          json.attribute("device_bytes", states.deepSpeedDeviceBytes);
          json.attribute("host_bytes", states.deepSpeedHostBytes);
        });
      });
  });
}

/// Host memory (train-offload): its peak, where it falls, its persistent
/// bytes, its classes at the peak and the bytes copied each way per step.
static void writeHost(const MemoryReport &report, llvm::json::OStream &json) {
  const TensorLiveness &live = report.getLiveness();
  if (!live.hasHostBuffers())
    return;
  int64_t toHost = 0, toDevice = 0;
  for (Operation *op : live.getSchedule()) {
    if (isa<train::ToHostOp>(op))
      toHost += train::getTensorBytes(op->getResult(0).getType());
    else if (isa<train::ToDeviceOp>(op))
      toDevice += train::getTensorBytes(op->getResult(0).getType());
  }
  int64_t peak = live.getHostPeakPoint();
  json.attributeObject("host", [&] {
    json.attribute("peak_bytes", live.getHostLoad());
    json.attribute("peak_point", peak);
    json.attribute(
        "peak_op",
        toJSONString(live.getSchedule()[peak]->getName().getStringRef()));
    json.attribute("persistent_bytes", live.getHostPersistentBytes());
    if (std::optional<int64_t> arena = report.getHostArenaBytes())
      json.attribute("arena_bytes", *arena);
    else
      json.attribute("arena_bytes", nullptr);
    json.attributeBegin("by_class");
    writeByClass(json, live.getHostLiveBytesByClass(peak));
    json.attributeEnd();
    json.attribute("copied_to_host_bytes", toHost);
    json.attribute("copied_to_device_bytes", toDevice);
  });
}

/// The "saved_activations" object: the activations saved for the backward
/// pass, per layer.
static void writeSavedActivations(const MemoryReport &report,
                                  llvm::json::OStream &json) {
  const SavedActivations &saved = report.getSavedActivations();
  json.attributeObject("saved_activations", [&] {
    if (saved.lossPoint)
      json.attribute("loss_point", *saved.lossPoint);
    else
      json.attribute("loss_point", nullptr);
    json.attribute("bytes", saved.totalBytes);
    json.attribute("num_buffers", saved.numBuffers);
    json.attributeArray("by_layer", [&] {
      for (const LayerActivations &layer : saved.byLayer) {
        json.objectBegin();
        json.attribute("layer", toJSONString(layer.layer));
        json.attribute("bytes", layer.bytes);
        json.attribute("num_buffers", layer.numBuffers);
        json.objectEnd();
      }
    });
    json.attribute("parameter_copy_bytes", saved.parameterCopyBytes);
    json.attribute("num_parameter_copies", saved.numParameterCopies);
  });
}

/// The "top_tensors" array: the largest buffers live at the peak.
static void writeTopTensors(const MemoryReport &report,
                            llvm::json::OStream &json) {
  json.attributeArray("top_tensors", [&] {
    for (const ReportTensor &tensor : report.getTopTensors()) {
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
        json.attribute("name", toJSONString(tensor.opName));
        json.attribute("location", toJSONString(tensor.location));
        if (!tensor.source.empty())
          json.attribute("source", toJSONString(tensor.source));
      });
      json.objectEnd();
    }
  });
}

/// The "timeline" array, one line per point: a 1M-op step stays a readable,
/// greppable file.
static void writeTimeline(const MemoryReport &report,
                          llvm::json::OStream &json) {
  const TensorLiveness &live = report.getLiveness();
  json.attributeArray("timeline", [&] {
    for (int64_t point = 0, e = live.getNumPoints(); point < e; ++point) {
      json.rawValue([&](raw_ostream &line) {
        llvm::json::OStream entry(line);
        entry.objectBegin();
        entry.attribute("point", point);
        entry.attribute("op", toJSONString(report.getPointOpName(point)));
        if (report.getEagerTrace())
          entry.attribute("phase", toJSONString(report.getPointPhase(point)));
        entry.attribute("live_bytes", live.getLiveBytes(point));
        entry.attributeBegin("by_class");
        writeByClass(entry, live.getLiveBytesByClass(point));
        entry.attributeEnd();
        entry.objectEnd();
      });
    }
  });
}

/// The "communication" object, or null when the step has no collectives.
static void writeCommunication(const MemoryReport &report,
                               llvm::json::OStream &json) {
  const std::optional<Communication> &comm = report.getCommunication();
  if (!comm) {
    json.attribute("communication", nullptr);
    return;
  }
  json.attributeObject("communication", [&] {
    json.attribute("grid", toJSONString(comm->grid));
    json.attributeArray("grid_shape", [&] {
      for (int64_t extent : comm->gridShape)
        json.value(extent);
    });
    json.attribute("processes", comm->getProcesses());
    json.attribute("total_sent_bytes", comm->totalSentBytes);
    json.attributeArray("collectives", [&] {
      for (const CollectiveTraffic &row : comm->collectives)
        json.object([&] {
          json.attribute("kind", row.kind);
          json.attribute("axes", row.axes);
          json.attribute("group_size", row.groupSize);
          json.attribute("count", row.count);
          json.attribute("tensor_bytes", row.tensorBytes);
          json.attribute("sent_bytes", row.sentBytes);
        });
    });
  });
}

/// The "pipeline" object of a stage of a pipelined step (absent otherwise).
static void writePipeline(const MemoryReport &report,
                          llvm::json::OStream &json) {
  const std::optional<PipelineSummary> &pipeline = report.getPipeline();
  if (!pipeline)
    return;
  json.attributeObject("pipeline", [&] {
    json.attribute("schedule", toJSONString(pipeline->schedule));
    json.attribute("num_stages", pipeline->numStages);
    json.attribute("microbatches", pipeline->microBatches);
    json.attribute("virtual_stages", pipeline->virtualStages);
    json.attribute("bubble_fraction", pipeline->bubbleFraction);
    json.attribute("reported_stage", pipeline->reportedStage);
    json.attribute("p2p_bytes", pipeline->p2pBytes);
    json.attributeArray("stages", [&] {
      for (const PipelineStageSummary &stage : pipeline->stages)
        json.object([&] {
          json.attribute("stage", stage.stage);
          json.attribute("function", toJSONString(stage.function));
          json.attributeArray("layers", [&] {
            for (const std::string &layer : stage.layers)
              json.value(toJSONString(layer));
          });
          json.attributeArray("chunks", [&] {
            for (const std::vector<std::string> &chunk : stage.chunks)
              json.array([&] {
                for (const std::string &layer : chunk)
                  json.value(toJSONString(layer));
              });
          });
          json.attribute("microbatches_in_flight", stage.microBatchesInFlight);
          json.attribute("peak_bytes", stage.peakBytes);
          json.attributeBegin("by_class");
          writeByClass(json, stage.byClass);
          json.attributeEnd();
          json.attribute("max_activation_bytes", stage.maxActivationBytes);
          json.attribute("model_states_bytes", stage.modelStatesBytes);
          json.attributeObject("peak_op", [&] {
            json.attribute("name", toJSONString(stage.peakOpName));
            json.attribute("location", toJSONString(stage.peakLocation));
          });
          json.attribute("sent_bytes", stage.sentBytes);
        });
    });
  });
}

/// The "eager_trace" object of a report read from a trace of a PyTorch
/// eager step (absent otherwise).
static void writeEagerTrace(const EagerTrace &trace,
                            llvm::json::OStream &json) {
  json.attributeObject("eager_trace", [&] {
    json.attribute("schema", kEagerTraceSchema);
    json.attribute("model", toJSONString(trace.model));
    json.attribute("device", toJSONString(trace.device));
    json.attribute("allocated_peak_bytes", trace.allocatedPeakBytes);
    json.attributeArray("phases", [&] {
      for (const PhaseRange &range : trace.phases)
        json.object([&] {
          json.attribute("phase", toJSONString(range.phase));
          json.attribute("first_point", range.firstPoint);
          json.attribute("last_point", range.lastPoint);
        });
    });
  });
}

/// The arena keys: the arena and its plan, or nulls (and arena_source
/// "none") for an eager step, which has no plan.
static void writeArena(const MemoryReport &report, llvm::json::OStream &json) {
  if (!report.hasArena()) {
    json.attribute("arena_bytes", nullptr);
    json.attribute("fragmentation", nullptr);
    json.attribute("arena_source", "none");
    json.attribute("plan_alignment", nullptr);
    return;
  }
  json.attribute("arena_bytes", report.getArenaBytes());
  json.attribute("fragmentation", report.getFragmentation());
  json.attribute("arena_source", report.isArenaFromIR() ? "ir" : "report");
  json.attribute("plan_alignment", report.getPlanAlignment());
  if (std::optional<int64_t> planLoad = report.getPlanLoadBytes())
    json.attribute("plan_load_bytes", *planLoad);
}

void mlir::memopt::printJSONReport(const MemoryReport &report,
                                   raw_ostream &os) {
  const TensorLiveness &live = report.getLiveness();
  int64_t peak = live.getPeakPoint();
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.objectBegin();
  json.attribute("schema", kMemoryReportSchema);
  json.attribute("function", toJSONString(report.getFunctionName()));
  if (const EagerTrace *trace = report.getEagerTrace())
    writeEagerTrace(*trace, json);
  json.attribute("num_points", live.getNumPoints());
  json.attribute("num_buffers", static_cast<int64_t>(live.getBuffers().size()));
  json.attribute("peak_bytes", report.getPeakBytes());
  json.attribute("load_bytes", report.getLoadBytes());
  writeArena(report, json);
  json.attribute("peak_point", peak);
  json.attributeObject("peak_op", [&] {
    json.attribute("name", toJSONString(report.getPeakOpName()));
    json.attribute("location", toJSONString(report.getPeakLocation()));
    if (!report.getPeakSource().empty())
      json.attribute("source", toJSONString(report.getPeakSource()));
    if (report.getEagerTrace())
      json.attribute("phase", toJSONString(report.getPointPhase(peak)));
  });
  json.attribute("persistent_bytes", live.getPersistentBytes());
  json.attribute("parameter_count", report.getParameterCount());
  json.attribute("parameter_bytes", report.getParameterBytes());
  if (report.hasFlops())
    json.attribute("total_flops", report.getTotalFlops());
  else
    json.attribute("total_flops", nullptr);
  writeRemat(report, json);
  writeModelStates(report, json);
  writeSavedActivations(report, json);
  writeCommunication(report, json);
  writePipeline(report, json);
  json.attributeBegin("by_class");
  writeByClass(json, live.getLiveBytesByClass(peak));
  json.attributeEnd();
  writeHost(report, json);
  json.attribute("num_live_at_peak", report.getNumLiveAtPeak());
  writeTopTensors(report, json);
  writeTimeline(report, json);
  json.objectEnd();
  os << "\n";
}
