//===- memopt-cuda-info.cpp - what the CUDA runtime sees ------------------===//
//
// Prints the device and its memory as libmemopt_cuda_runtime sees them, or
// the runtime's message and exit status 1 without a driver or device. With
// --nccl, first NCCL's version and this process's rank (forming the
// communicator as a lowered step's first collective would).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstring>

extern "C" void memopt_cuda_report(void);
extern "C" void memopt_nccl_report(void);

int main(int argc, char **argv) {
  bool withNccl = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--nccl") == 0) {
      withNccl = true;
      continue;
    }
    bool help = std::strcmp(argv[i], "--help") == 0;
    if (!help)
      std::fprintf(stderr, "memopt-cuda-info: unknown argument '%s'\n",
                   argv[i]);
    std::fputs("usage: memopt-cuda-info [--nccl]\n"
               "Prints the CUDA device and its memory as the memopt runtime "
               "sees them;\nwith --nccl, first NCCL's version and this "
               "process's rank.\n",
               help ? stdout : stderr);
    return help ? 0 : 2;
  }
  if (withNccl)
    memopt_nccl_report();
  memopt_cuda_report();
  return 0;
}
