// RUN: mem-opt %s --memopt-gpu-memory-copies -verify-diagnostics

func.func @step(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error@+1 {{'linalg.copy' op has memopt.memory_copy = "to_disk"; expected "to_host" or "to_device"}}
  linalg.copy {memopt.memory_copy = "to_disk"} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}
