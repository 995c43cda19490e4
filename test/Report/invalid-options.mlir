// Bad options and unwritable outputs: a clear error, a non-zero exit, and no
// partial (or temporary) file left behind.

// RUN: not mem-opt %s --train-memory-report=format=xml -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: error: train-memory-report: unknown report format 'xml'; expected one of text, json, html, trace

// A failed run leaves an existing report as it was.
// RUN: mem-opt %s --train-memory-report='format=json output=%t.json' -o /dev/null
// RUN: not mem-opt %s --train-memory-report='format=xml output=%t.json' -o /dev/null
// RUN: %python %S/validate-report.py json %t.json | FileCheck %s --check-prefix=KEPT
// KEPT: peak_bytes: 64

// RUN: rm -rf %t.missing
// RUN: not mem-opt %s --train-memory-report='format=json output=%t.missing/sub/report.json' -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not ls %t.missing
// MISSING: error: memory report: cannot write '{{.*}}.missing/sub/report.json': No such file or directory

// The output is a directory: the temporary file written next to it is gone.
// RUN: rm -rf %t.dir && mkdir -p %t.dir/out
// RUN: not mem-opt %s --train-memory-report='format=html output=%t.dir/out' -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIR
// RUN: ls -A %t.dir | FileCheck %s --check-prefix=LEFT --match-full-lines
// DIR: error: memory report: cannot write '{{.*}}.dir/out': Is a directory
// LEFT: out
// LEFT-NOT: {{.}}

// RUN: not mem-opt %s --train-memory-report=function=nope -o /dev/null 2>&1 | FileCheck %s --check-prefix=FUNC
// FUNC: error: no function named 'nope' to report on

// RUN: not mem-opt %s --train-memory-report=function=ext -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXT
// EXT: error: 'func.func' op has no body; expected a training step

// x (32 B) and y (32 B) at point 0.
func.func @step(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = train.relu %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func private @ext(tensor<8xf32>)
