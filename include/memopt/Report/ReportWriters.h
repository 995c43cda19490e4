//===- ReportWriters.h - the formats of the memory report -------*- C++ -*-===//
//
// One writer per format of a MemoryReport (MemoryReport::print chooses by
// ReportFormat): each reads the report's numbers and prints them, and none
// computes a number of its own beyond presentation (units, shares, chart
// geometry).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_REPORT_REPORTWRITERS_H
#define MEMOPT_REPORT_REPORTWRITERS_H

#include "mlir/Support/LLVM.h"

namespace mlir::memopt {

class MemoryReport;

/// A summary table in binary units (TextWriter.cpp).
void printTextReport(const MemoryReport &report, raw_ostream &os);
/// The JSON document (schema kMemoryReportSchema), keys in a fixed order
/// (JsonWriter.cpp).
void printJSONReport(const MemoryReport &report, raw_ostream &os);
/// One self-contained HTML5 page with an inline SVG timeline
/// (HtmlWriter.cpp).
void printHTMLReport(const MemoryReport &report, raw_ostream &os);
/// Chrome/Perfetto trace-event JSON (TraceWriter.cpp).
void printTraceReport(const MemoryReport &report, raw_ostream &os);

} // namespace mlir::memopt

#endif // MEMOPT_REPORT_REPORTWRITERS_H
