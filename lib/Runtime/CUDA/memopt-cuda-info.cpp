//===- memopt-cuda-info.cpp - what the CUDA runtime sees ------------------===//
//
// Prints the device and its memory as libmemopt_cuda_runtime sees them, or
// the runtime's message and exit status 1 without a driver or device.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>

extern "C" void memopt_cuda_report(void);

int main() {
  memopt_cuda_report();
  return 0;
}
