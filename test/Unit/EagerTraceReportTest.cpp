//===- EagerTraceReportTest.cpp - the report of a PyTorch eager step ------===//
//
// MemoryReport::createFromTrace through the C++ API: the recorded
// TensorLiveness it builds (no schedule, ranges taken as given), the points'
// ops, modules and phases, and where the top tensors came from, on traces
// small enough to count by hand (docs/report.md).
//
//===----------------------------------------------------------------------===//

#include "memopt/Report/MemoryReport.h"

#include "llvm/Support/JSON.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// The report of the trace `text`; fails the test when it does not read.
MemoryReport readTrace(StringRef text) {
  llvm::Expected<llvm::json::Value> document = llvm::json::parse(text);
  EXPECT_TRUE(static_cast<bool>(document));
  if (!document) {
    llvm::consumeError(document.takeError());
    abort();
  }
  llvm::Expected<MemoryReport> report =
      MemoryReport::createFromTrace(*document);
  if (!report) {
    ADD_FAILURE() << llvm::toString(report.takeError());
    abort();
  }
  return std::move(*report);
}

/// Three points; a parameter, an optimizer state (not flagged persistent,
/// as Adam's are in a trace), the batch, an activation of module "fc" and a
/// gradient.
constexpr const char *kStep = R"json({
  "schema": "memopt.eager-trace/1", "model": "m", "device": "cpu",
  "allocated_peak_bytes": 150,
  "points": [
    {"op": "aten.mm.default", "phase": "forward", "module": "fc", "source": "m.py:3", "workspace_bytes": 0},
    {"op": "aten.mm.default", "phase": "backward", "module": "", "source": "", "workspace_bytes": 6},
    {"op": "aten.add_.Tensor", "phase": "step", "module": "", "source": "", "workspace_bytes": 0}
  ],
  "buffers": [
    {"name": "fc.weight", "bytes": 16, "start": 0, "end": 2, "class": "parameter", "persistent": true, "layer": "", "op": "", "source": ""},
    {"name": "fc.weight.exp_avg", "bytes": 16, "start": 0, "end": 2, "class": "optimizer_state", "persistent": false, "layer": "", "op": "aten.zeros_like.default", "source": ""},
    {"name": "input", "bytes": 8, "start": 0, "end": 2, "class": "input", "persistent": true, "layer": "", "op": "", "source": ""},
    {"name": "aten.mm.default", "bytes": 100, "start": 0, "end": 1, "class": "activation", "persistent": false, "layer": "fc", "op": "aten.mm.default", "source": "m.py:3"},
    {"name": "fc.weight.grad", "bytes": 16, "start": 1, "end": 2, "class": "gradient", "persistent": false, "layer": "", "op": "aten.mm.default", "source": ""}
  ]
})json";

} // namespace

/// Live bytes: 16 + 16 + 8 = 40 always; point 0 +100 = 140; point 1 +100
/// +16 + workspace 6 = 162; point 2 +16 = 56. Persistent bytes are the
/// parameter's and the optimizer state's, 32, whatever the trace's flags.
TEST(EagerTraceReportTest, RecordedLiveness) {
  MemoryReport report = readTrace(kStep);
  const TensorLiveness &live = report.getLiveness();
  EXPECT_TRUE(live.getSchedule().empty());
  ASSERT_EQ(live.getNumPoints(), 3);
  EXPECT_EQ(live.getLiveBytes(0), 140);
  EXPECT_EQ(live.getLiveBytes(1), 162);
  EXPECT_EQ(live.getLiveBytes(2), 56);
  EXPECT_EQ(live.getWorkspaceBytes(1), 6);
  EXPECT_EQ(live.getLoad(), 162);
  EXPECT_EQ(report.getPeakBytes(), 162);
  EXPECT_EQ(live.getPeakPoint(), 1);
  EXPECT_EQ(live.getPersistentBytes(), 32);
  EXPECT_EQ(live.getLiveBytesByClass(
                1)[static_cast<unsigned>(MemoryClass::Temporary)],
            6);
  EXPECT_FALSE(report.hasArena());
  EXPECT_FALSE(report.hasFlops());
  ASSERT_NE(report.getEagerTrace(), nullptr);
  EXPECT_EQ(report.getEagerTrace()->allocatedPeakBytes, 150);
}

/// Each point's op, module (or "unknown") and phase; the phases as runs.
TEST(EagerTraceReportTest, Points) {
  MemoryReport report = readTrace(kStep);
  EXPECT_EQ(report.getPointOpName(0), "aten.mm.default");
  EXPECT_EQ(report.getPointLocation(0), "fc");
  EXPECT_EQ(report.getPointSource(0), "m.py:3");
  EXPECT_EQ(report.getPointLocation(1), "unknown");
  EXPECT_EQ(report.getPointPhase(2), "step");
  EXPECT_EQ(report.getPeakOpName(), "aten.mm.default");
  const EagerTrace &trace = *report.getEagerTrace();
  ASSERT_EQ(trace.phases.size(), 3u);
  EXPECT_EQ(trace.phases[1].phase, "backward");
  EXPECT_EQ(trace.phases[1].firstPoint, 1);
  EXPECT_EQ(trace.phases[1].lastPoint, 1);
}

/// At the peak (point 1) every buffer is live: the activation first; a
/// tensor no op of the step made is an "argument"; the states count Adam's
/// exp_avg as fc.weight's; the activation is saved (defined by the end of
/// the forward pass, point 0, and live after it) under its module.
TEST(EagerTraceReportTest, TopTensorsStatesAndSavedActivations) {
  MemoryReport report = readTrace(kStep);
  ArrayRef<ReportTensor> top = report.getTopTensors();
  ASSERT_EQ(top.size(), 5u);
  EXPECT_EQ(top[0].buffer->name, "aten.mm.default");
  EXPECT_EQ(top[0].location, "fc");
  EXPECT_EQ(top[0].source, "m.py:3");
  EXPECT_EQ(top[1].buffer->name, "fc.weight");
  EXPECT_EQ(top[1].opName, "argument");
  EXPECT_EQ(top[1].location, "unknown");
  EXPECT_FALSE(top[2].buffer->persistent);
  EXPECT_EQ(top[2].opName, "aten.zeros_like.default");
  const ModelStates &states = report.getModelStates();
  EXPECT_EQ(states.parameterCount, 4);
  EXPECT_EQ(states.weightBytes, 16);
  EXPECT_EQ(states.gradientBytes, 16);
  EXPECT_EQ(states.optimizerStateBytes, 16);
  EXPECT_TRUE(states.otherStates.empty());
  const SavedActivations &saved = report.getSavedActivations();
  ASSERT_TRUE(saved.lossPoint.has_value());
  EXPECT_EQ(*saved.lossPoint, 0);
  ASSERT_EQ(saved.byLayer.size(), 1u);
  EXPECT_EQ(saved.byLayer[0].layer, "fc");
  EXPECT_EQ(saved.byLayer[0].bytes, 100);
}

/// A buffer flagged persistent is still live over its own range only.
TEST(EagerTraceReportTest, PersistentFlagDoesNotWidenTheRange) {
  std::string text = kStep;
  size_t at = text.find(R"("bytes": 8, "start": 0, "end": 2)");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 32, R"("bytes": 8, "start": 1, "end": 1)");
  MemoryReport report = readTrace(text);
  EXPECT_EQ(report.getLiveness().getLiveBytes(0), 132);
  EXPECT_EQ(report.getLiveness().getLiveBytes(2), 48);
}

/// Errors name the key by its path.
TEST(EagerTraceReportTest, ErrorsNameThePath) {
  std::string text = kStep;
  size_t at = text.find(R"("class": "gradient")");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 19, R"("class": "grad")");
  llvm::Expected<llvm::json::Value> document = llvm::json::parse(text);
  ASSERT_TRUE(static_cast<bool>(document));
  llvm::Expected<MemoryReport> report =
      MemoryReport::createFromTrace(*document);
  ASSERT_FALSE(static_cast<bool>(report));
  EXPECT_EQ(llvm::toString(report.takeError()),
            "buffers[4].class: unknown memory class 'grad'; expected one of "
            "parameter, gradient, optimizer_state, activation, temporary, "
            "input");
}
