//===- Passes.td - memopt report passes --------------------*- tablegen -*-===//

#ifndef MEMOPT_REPORT_PASSES_TD
#define MEMOPT_REPORT_PASSES_TD

include "mlir/Pass/PassBase.td"

def TrainMemoryReportPass
    : Pass<"train-memory-report", "::mlir::ModuleOp"> {
  let summary = "Writes the memory report of a training step";
  let description = [{
    Computes the memory model (docs/architecture.md; the `TensorLiveness`
    analysis) for one training step and writes a report: the peak (LOAD) and
    the op where it occurs, with its source location, the bytes of each
    memory class at the peak, the largest tensors live at the peak, and the
    live bytes of every class at every program point. The pass never changes
    the IR.

    The pass runs on the module so that one report is written per run (a
    function pass would run once per function, in parallel, on one output
    file). It reports on the function named by `function`, or, when
    `function` is empty, on the only function of the module that has a body.
    That function must be a training step: a single-block body, whose program
    order is the schedule.

    A module holding the stages of a pipelined step (the functions carrying
    `train.pipeline`, as `train-pipeline` writes them) is reported stage by
    stage: every stage is analysed, and the report is of the stage of the
    highest peak (ties: the lowest stage), or of the stage `function` names.
    Its pipeline section lists every stage: the layers, the micro-batches
    in flight under the schedule, the peak and bytes per class at it, the
    most activation bytes held at once, the model states and the bytes sent
    with `train.p2p`; and the schedule's bubble and the point-to-point bytes
    of a step (docs/report.md, "Pipeline stages").

    Formats (`format=`):

    * `text`: a summary table in binary units (KiB, MiB, GiB) to paste into a
      review;
    * `json`: the whole report, schema `memopt.memory-report/1`, exact bytes;
      every key is documented in docs/report.md;
    * `html`: one self-contained page (no scripts, no network) with the
      summary, an SVG timeline stacked by memory class with the peak marked,
      and the top tensors;
    * `trace`: Chrome/Perfetto trace JSON: a counter per program point (bytes
      per class, and the total as its own series), one slice per op and an
      instant event at the peak; open it in ui.perfetto.dev or
      chrome://tracing.

    With `output=FILE` the report is written atomically (to a temporary file
    in the same directory, then renamed): on any error no partial file is
    left. Without it (or with `output=-`) the report goes to stdout, before
    the IR that mem-opt prints (use `-o /dev/null`).

    Example:
    ```
    mem-opt --train-memory-report='format=html output=step.html' \
      -o /dev/null examples/gpt2_step.mlir
    ```
  }];
  let options = [
    Option<"format", "format", "::mlir::memopt::ReportFormat",
           /*default=*/"::mlir::memopt::ReportFormat::Text",
           "Report format: text, json, html or trace",
           [{::llvm::cl::values(
             clEnumValN(::mlir::memopt::ReportFormat::Text, "text",
                        "a summary table"),
             clEnumValN(::mlir::memopt::ReportFormat::JSON, "json",
                        "the whole report (memopt.memory-report/1)"),
             clEnumValN(::mlir::memopt::ReportFormat::HTML, "html",
                        "a self-contained page with an SVG timeline"),
             clEnumValN(::mlir::memopt::ReportFormat::Trace, "trace",
                        "Chrome/Perfetto trace JSON"))}]>,
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "File to write the report to (default or '-': stdout)">,
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Function to report on (default: the only function with a "
           "body, or the pipeline stage of the highest peak)">,
  ];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect"];
}

#endif // MEMOPT_REPORT_PASSES_TD
