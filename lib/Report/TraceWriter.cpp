//===- TraceWriter.cpp - the memory report as a Chrome/Perfetto trace -----===//
//
// Trace-event JSON: a counter per program point (bytes per class, and the
// total as its own series), one slice per op and an instant event at the
// peak. Program points are the time axis.
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

using EventWriter =
    function_ref<void(function_ref<void(llvm::json::OStream &)>)>;

/// The events of the op at `point`: its live bytes per class (one counter
/// track per class, stacked by the viewer), the total, and its slice.
static void writePointEvents(const MemoryReport &report, int64_t point,
                             EventWriter event) {
  const TensorLiveness &live = report.getLiveness();
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
    json.attribute("name", toJSONString(report.getPointOpName(point)));
    json.attribute("ph", "X");
    json.attribute("ts", point);
    json.attribute("dur", 1);
    json.attribute("pid", 1);
    json.attribute("tid", 1);
    json.attributeObject("args", [&] {
      json.attribute("point", point);
      json.attribute("location", toJSONString(report.getPointLocation(point)));
      std::string source = report.getPointSource(point);
      if (!source.empty())
        json.attribute("source", toJSONString(source));
      if (report.getEagerTrace())
        json.attribute("phase", toJSONString(report.getPointPhase(point)));
    });
  });
}

void mlir::memopt::printTraceReport(const MemoryReport &report,
                                    raw_ostream &os) {
  const TensorLiveness &live = report.getLiveness();
  int64_t peak = live.getPeakPoint();
  std::string functionName = report.getFunctionName().str();
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
      json.attribute("name", toJSONString(report.getEagerTrace()
                                              ? "memopt " + functionName +
                                                    " (PyTorch eager step)"
                                              : "memopt @" + functionName));
    });
  });
  event([&](llvm::json::OStream &json) {
    json.attribute("name", "thread_name");
    json.attribute("ph", "M");
    json.attribute("pid", 1);
    json.attribute("tid", 1);
    json.attributeObject("args", [&] { json.attribute("name", "ops"); });
  });
  for (int64_t point = 0, e = live.getNumPoints(); point < e; ++point)
    writePointEvents(report, point, event);
  event([&](llvm::json::OStream &json) {
    json.attribute("name", "peak");
    json.attribute("ph", "i");
    json.attribute("s", "g");
    json.attribute("ts", peak);
    json.attribute("pid", 1);
    json.attribute("tid", 1);
    json.attributeObject("args", [&] {
      json.attribute("bytes", report.getPeakBytes());
      json.attribute("op", toJSONString(report.getPeakOpName()));
      json.attribute("location", toJSONString(report.getPeakLocation()));
      if (!report.getPeakSource().empty())
        json.attribute("source", toJSONString(report.getPeakSource()));
    });
  });
  os << "\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": ";
  llvm::json::OStream json(os);
  json.objectBegin();
  json.attribute("schema", kMemoryReportSchema);
  json.attribute("function", toJSONString(functionName));
  json.attribute("peak_bytes", report.getPeakBytes());
  json.attribute("peak_point", peak);
  json.attribute("time_unit", "program point");
  json.objectEnd();
  os << "\n}\n";
}
