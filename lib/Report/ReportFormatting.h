//===- ReportFormatting.h - text helpers of the report writers --*- C++ -*-===//
//
// Numbers, names and escapes shared by the writers of the memory report
// (TextWriter.cpp, JsonWriter.cpp, HtmlWriter.cpp, TraceWriter.cpp). Private
// to lib/Report; the public helpers (formatBytes, formatLocation) are in
// memopt/Report/MemoryReport.h.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_REPORT_REPORTFORMATTING_H
#define MEMOPT_LIB_REPORT_REPORTFORMATTING_H

#include "memopt/Report/MemoryReport.h"

#include "llvm/Support/JSON.h"

#include <array>
#include <string>

namespace mlir::memopt::report {

/// `bytes` in the largest binary unit that fits, two decimals ("1.39 KiB"),
/// or "N B" below 1 KiB.
std::string formatBytesShort(int64_t bytes);

/// FLOPs with an SI prefix and the exact count: "1.38 kFLOP (1376)".
std::string formatFlops(int64_t flops);

/// A ratio as a percentage with two decimals: 0.0035 -> "0.35%".
std::string formatPercent(double ratio);

/// `part / whole` as a percentage with two decimals (0.00% when whole is 0).
std::string formatShare(int64_t part, int64_t whole);

/// `count` and `noun`, plural unless count is 1: "1 buffer", "3 buffers".
std::string formatCount(int64_t count, StringRef noun);

/// A number with two decimals: "12.50".
std::string formatFixed2(double value);

/// "3 ops: train.gelu x2, train.matmul x1".
std::string formatRecomputedOps(const RematSummary &remat);

/// The remat algorithm row of the text and HTML summaries, from
/// `train.remat`: "selective, budget 1.00 GiB (1073741824 B)", "sqrt, no
/// budget", or "not recorded" when the step does not carry it.
std::string formatRematAlgorithm(const RematSummary &remat);
/// The activations train-remat offloaded: how many, the bytes each way, the
/// link and their names.
std::string formatOffloaded(const RematSummary &remat);

/// The precision of the model-states section: "bf16-mixed (grads fp32)".
std::string formatPrecision(const ModelStates &states);

/// The arena row of the text and HTML summaries: "2.25 KiB (2304 B), 62.25%
/// above LOAD, planned for this report (alignment 256)".
std::string formatArena(const MemoryReport &report);

/// What the report is of: "@FUNCTION" for memopt's steps, "the PyTorch
/// eager step of MODEL on DEVICE" for a trace.
std::string formatSubject(const MemoryReport &report);

/// The peak point in the text and HTML summaries: "point 8 of 14: OP at
/// LOCATION (SOURCE)", with the phase after the count for an eager step
/// ("point 259 of 798 (backward): ...").
std::string formatPeakAt(const MemoryReport &report);

/// The host row of a step with host memory (train-offload): "1.5 MiB at
/// train.adam (point 40), 1.0 MiB persistent".
std::string formatHostPeak(const TensorLiveness &live);
/// The host's arena (set getHostArenaBytes): its size, how far above the
/// host's LOAD, where it was planned.
std::string formatHostArena(const MemoryReport &report);

/// The parameters row: "64 elements, 256 B"; an eager step's count is its
/// parameters' bytes over 4, which the row says.
std::string formatParameters(const MemoryReport &report);

/// The total FLOPs row: formatFlops, or "not recorded" for an eager step.
std::string formatTotalFlops(const MemoryReport &report);

/// An eager step's rows: the trace's allocated peak next to LOAD, and its
/// phases ("zero_grad 0-1, forward 2-252, ...").
std::string formatAllocatedPeak(const EagerTrace &trace, int64_t load);
std::string formatPhases(const EagerTrace &trace);

/// Where the saved activations are cut: "before the loss (point 3)", or
/// for an eager step "by the end of the forward pass (point 252)".
std::string formatLossPoint(const MemoryReport &report);

/// What the model states of an eager step assume, after the precision.
inline constexpr StringLiteral kEagerStatesNote =
    "fp32 assumed: the trace records bytes, not dtypes";

/// The plan LOAD row of the text and HTML summaries, when the IR carries
/// `train.load_bytes`: "2.25 KiB (2304 B), sizes aligned to 256
/// (train.load_bytes)".
std::string formatPlanLoad(const MemoryReport &report);

/// The first line of the pipeline section: "1f1b, 4 stages, 8
/// micro-batches, bubble 27.27%; reporting stage 0 (the highest peak)", or
/// "(function=NAME)" when `function=` chose the stage.
std::string formatPipelineHeader(const PipelineSummary &pipeline);

/// A stage's layers: "h.0-h.3" (first and last), "h.0", or "none".
std::string formatStageLayers(const PipelineStageSummary &stage);

/// The line under the pipeline table about the micro-batches in flight:
/// the first stage's and the last's ("stage 0 holds 4, stage 3 1: the first
/// stage keeps 3 more micro-batches' activations"), or that every stage
/// holds the same number.
std::string formatInFlightNote(const PipelineSummary &pipeline);

/// Why a pipeline stage's report has no activations saved for backward.
inline constexpr StringLiteral kStageActivationsNote =
    "a pipeline stage interleaves its micro-batches' forward and backward "
    "passes; the pipeline section's activations are what it holds in flight";

/// " (file:line)" to follow a location when the op came from outside the IR
/// (formatSource), else "".
std::string formatSourceSuffix(StringRef source);

/// JSON strings must be UTF-8; names come from arbitrary string attributes.
std::string toJSONString(StringRef text);

/// Escapes text for HTML and XML content and attribute values.
std::string escapeXML(StringRef text);

/// The name of memory class number `cls` ("parameter", ...).
StringRef className(unsigned cls);

/// The parameter named by the longest prefix of `stateName` that ends
/// before a '.' ("h.0.w.exp_avg" -> "h.0.w") for which `isParameter` holds.
std::optional<StringRef>
findStateOwner(StringRef stateName, function_ref<bool(StringRef)> isParameter);

/// Whether `paramName` names a LoRA adapter: one of its dotted components
/// starts with "lora_" ("h.0.attn.c_attn.lora_A.weight", PEFT's
/// "...q_proj.lora_B.default.weight").
bool isAdapterName(StringRef paramName);

/// Writes {"parameter": ..., ..., "input": ...}, classes in enum order.
void writeByClass(llvm::json::OStream &json,
                  const std::array<int64_t, kNumMemoryClasses> &bytes);

} // namespace mlir::memopt::report

#endif // MEMOPT_LIB_REPORT_REPORTFORMATTING_H
