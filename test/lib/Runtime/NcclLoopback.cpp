//===- NcclLoopback.cpp - the NCCL entry points, simulated on the CPU -----===//
//
// A test double of lib/Runtime/CUDA/CudaCollectives.cpp's entry points, for
// executing code lowered by memopt-shard-to-nccl with memopt-lower-to-cpu on
// one CPU process. It plays every member of the calling process's group:
// the process is rank MEMOPT_LOOPBACK_RANK (default 0) of the grid, and the
// peer at place j of its group is simulated as having sent
// `send + (j - k)`, k being the process's own place. Each peer's data thus
// differs, so results show which chunk went where:
//
//   all_reduce (sum):     recv = n * send + sum_j (j - k)
//   all_gather:           chunk j of recv = send + (j - k)
//   reduce_scatter (sum): recv = n * chunk_k(send) + sum_j (j - k)
//
// Only sum is simulated (the other reductions fail the test loudly). Buffers
// arrive as unranked memrefs (rank, descriptor), as in the real runtime.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Collectives.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Group {
  int64_t size, key;
};

std::vector<Group> &groups() {
  static std::vector<Group> instance;
  return instance;
}

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "nccl-loopback: %s\n", message.c_str());
  std::exit(1);
}

int64_t rank() {
  const char *env = std::getenv("MEMOPT_LOOPBACK_RANK");
  return env ? std::atoll(env) : 0;
}

template <typename T>
T *data(int64_t rank, void *descriptor, int64_t &elements) {
  memopt::runtime::UnrankedBuffer buffer =
      memopt::runtime::readUnrankedBuffer(rank, descriptor, sizeof(T));
  if (!buffer.contiguous)
    fail("a buffer is not contiguous");
  elements = buffer.elements;
  return reinterpret_cast<T *>(buffer.data);
}

template <typename T>
void allReduce(int64_t id, int64_t sendRank, void *sendDesc, int64_t recvRank,
               void *recvDesc, int64_t count, int32_t op) {
  Group g = groups().at(id);
  if (op != 0)
    fail("only sum is simulated");
  int64_t sendElements, recvElements;
  T *send = data<T>(sendRank, sendDesc, sendElements);
  T *recv = data<T>(recvRank, recvDesc, recvElements);
  if (sendElements != count || recvElements != count)
    fail("all_reduce: element counts disagree");
  for (int64_t i = 0; i < count; ++i) {
    T sum = 0;
    for (int64_t j = 0; j < g.size; ++j)
      sum += send[i] + static_cast<T>(j - g.key);
    recv[i] = sum;
  }
}

template <typename T>
void allGather(int64_t id, int64_t sendRank, void *sendDesc, int64_t recvRank,
               void *recvDesc, int64_t sendCount) {
  Group g = groups().at(id);
  int64_t sendElements, recvElements;
  T *send = data<T>(sendRank, sendDesc, sendElements);
  T *recv = data<T>(recvRank, recvDesc, recvElements);
  if (sendElements != sendCount || recvElements != g.size * sendCount)
    fail("all_gather: element counts disagree");
  for (int64_t j = 0; j < g.size; ++j)
    for (int64_t i = 0; i < sendCount; ++i)
      recv[j * sendCount + i] = send[i] + static_cast<T>(j - g.key);
}

template <typename T>
void reduceScatter(int64_t id, int64_t sendRank, void *sendDesc,
                   int64_t recvRank, void *recvDesc, int64_t recvCount,
                   int32_t op) {
  Group g = groups().at(id);
  if (op != 0)
    fail("only sum is simulated");
  int64_t sendElements, recvElements;
  T *send = data<T>(sendRank, sendDesc, sendElements);
  T *recv = data<T>(recvRank, recvDesc, recvElements);
  if (recvElements != recvCount || sendElements != g.size * recvCount)
    fail("reduce_scatter: element counts disagree");
  for (int64_t i = 0; i < recvCount; ++i) {
    T sum = 0;
    for (int64_t j = 0; j < g.size; ++j)
      sum += send[g.key * recvCount + i] + static_cast<T>(j - g.key);
    recv[i] = sum;
  }
}

} // namespace

extern "C" {

int64_t memopt_nccl_group(int64_t g0, int64_t g1, int64_t g2, int64_t g3,
                          int64_t a0, int64_t a1, int64_t a2, int64_t a3) {
  auto [shape, axes] =
      memopt::runtime::decodeGridAxes(g0, g1, g2, g3, a0, a1, a2, a3);
  memopt::runtime::GridGroup group;
  std::string error;
  if (!memopt::runtime::getGridGroup(shape, axes, rank(), group, error))
    fail(error);
  groups().push_back({group.size, group.key});
  return static_cast<int64_t>(groups().size()) - 1;
}

int64_t memopt_nccl_rank(void) { return rank(); }

#define MEMOPT_LOOPBACK_TYPED(suffix, T)                                       \
  void memopt_nccl_all_reduce_##suffix(int64_t g, int64_t sr, void *s,         \
                                       int64_t rr, void *r, int64_t n,         \
                                       int32_t op) {                           \
    allReduce<T>(g, sr, s, rr, r, n, op);                                      \
  }                                                                            \
  void memopt_nccl_all_gather_##suffix(int64_t g, int64_t sr, void *s,         \
                                       int64_t rr, void *r, int64_t n) {       \
    allGather<T>(g, sr, s, rr, r, n);                                          \
  }                                                                            \
  void memopt_nccl_reduce_scatter_##suffix(int64_t g, int64_t sr, void *s,     \
                                           int64_t rr, void *r, int64_t n,     \
                                           int32_t op) {                       \
    reduceScatter<T>(g, sr, s, rr, r, n, op);                                  \
  }
MEMOPT_LOOPBACK_TYPED(f32, float)
MEMOPT_LOOPBACK_TYPED(f64, double)
MEMOPT_LOOPBACK_TYPED(i32, int32_t)
#undef MEMOPT_LOOPBACK_TYPED

} // extern "C"
