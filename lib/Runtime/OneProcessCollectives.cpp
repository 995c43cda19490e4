//===- OneProcessCollectives.cpp - NCCL entry points for one process ------===//
//
// See OneProcessCollectives.h: every collective of a one-process grid copies
// its input into its output.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/OneProcessCollectives.h"
#include "memopt/Runtime/Collectives.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

using namespace memopt::runtime;

[[noreturn]] static void defaultGridSizeHandler(int64_t processes) {
  std::fflush(stdout);
  std::fprintf(stderr,
               "memopt runtime: error: the one-process collectives cannot run "
               "a grid of %lld processes\n",
               static_cast<long long>(processes));
  std::exit(1);
}

static GridSizeHandler gridSizeHandler = nullptr;

void memopt::runtime::setOneProcessGridSizeHandler(GridSizeHandler handler) {
  gridSizeHandler = handler;
}

static int64_t group(int64_t g0, int64_t g1, int64_t g2, int64_t g3, int64_t a0,
                     int64_t a1, int64_t a2, int64_t a3) {
  int64_t processes = 1;
  for (int64_t extent : decodeGridAxes(g0, g1, g2, g3, a0, a1, a2, a3).shape)
    processes *= extent;
  if (processes != 1) {
    if (gridSizeHandler)
      gridSizeHandler(processes);
    defaultGridSizeHandler(processes);
  }
  return 0;
}

static int64_t rank() { return 0; }

/// Copies `count` elements of `bytes` bytes between two unranked memrefs
/// (rank, descriptor), as the lowering passes them.
static void copy(int64_t sendRank, void *send, int64_t recvRank, void *recv,
                 int64_t count, int64_t bytes) {
  UnrankedBuffer from = readUnrankedBuffer(sendRank, send, bytes);
  UnrankedBuffer to = readUnrankedBuffer(recvRank, recv, bytes);
  std::memmove(to.data, from.data, count * bytes);
}

template <int64_t Bytes>
static void reduce(int64_t /*group*/, int64_t sendRank, void *send,
                   int64_t recvRank, void *recv, int64_t count,
                   int32_t /*op*/) {
  copy(sendRank, send, recvRank, recv, count, Bytes);
}

template <int64_t Bytes>
static void gather(int64_t /*group*/, int64_t sendRank, void *send,
                   int64_t recvRank, void *recv, int64_t count) {
  copy(sendRank, send, recvRank, recv, count, Bytes);
}

/// The address of a function, as a JIT symbol table takes it.
template <typename Function> static void *address(Function *function) {
  return reinterpret_cast<void *>(function);
}

std::vector<RuntimeFunction> memopt::runtime::getOneProcessCollectives() {
  std::vector<RuntimeFunction> functions = {
      {"memopt_nccl_group", address(&group)},
      {"memopt_nccl_rank", address(&rank)},
  };
  struct Collectives {
    const char *suffix;
    decltype(&reduce<4>) reduce;
    decltype(&gather<4>) gather;
  };
  for (const Collectives &entry :
       std::initializer_list<Collectives>{{"f32", &reduce<4>, &gather<4>},
                                          {"f64", &reduce<8>, &gather<8>},
                                          {"f16", &reduce<2>, &gather<2>},
                                          {"bf16", &reduce<2>, &gather<2>},
                                          {"i8", &reduce<1>, &gather<1>},
                                          {"i32", &reduce<4>, &gather<4>},
                                          {"i64", &reduce<8>, &gather<8>}}) {
    std::string suffix = entry.suffix;
    functions.push_back(
        {"memopt_nccl_all_reduce_" + suffix, address(entry.reduce)});
    functions.push_back(
        {"memopt_nccl_reduce_scatter_" + suffix, address(entry.reduce)});
    functions.push_back(
        {"memopt_nccl_all_gather_" + suffix, address(entry.gather)});
  }
  return functions;
}
