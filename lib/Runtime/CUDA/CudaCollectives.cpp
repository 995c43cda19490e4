//===- CudaCollectives.cpp - NCCL collectives of the CUDA runtime ---------===//
//
// The entry points memopt-shard-to-nccl's calls reach: all-reduce,
// all-gather and reduce-scatter over a group of a `shard.grid`, run by NCCL
// on the runtime's one stream (after the kernels before them, before the
// ones after them) and synchronized like every other call; and the
// point-to-point messages of a pipeline stage's exchanges (`train.p2p`),
// collected as they are posted and issued at the exchange's wait as one NCCL
// group of ncclSend/ncclRecv on the world communicator, each peer's messages
// in tag order (orderPeerMessages in memopt/Runtime/Collectives.h: NCCL
// pairs messages in issue order, not by tag).
//
// One process per GPU. The world communicator is formed at the first
// collective from the launcher's environment (memopt/Runtime/Collectives.h):
// a single process needs nothing; several need a rendezvous, either NCCL's
// own (NCCL_COMM_ID=host:port, rank 0's address) or a file
// (MEMOPT_NCCL_ID_FILE=path, which rank 0 writes and the others wait for).
// A grid group is an ncclCommSplit of the world, made the first time a
// collective over it runs (every process reaches it in the same order: the
// step is SPMD) and kept.
//
// NCCL (libnccl.so.2) is opened with dlopen at first use, like the driver
// and cuBLAS: the library links without it, and a machine without it gets a
// clear message and exit status 1.
//
//===----------------------------------------------------------------------===//

#include "RuntimeInternal.h"

#include "memopt/Runtime/Collectives.h"

#include <nccl.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#ifndef MEMOPT_CUDA_LIB_DIR
#define MEMOPT_CUDA_LIB_DIR "/usr/local/cuda/lib64"
#endif

using memopt::cuda::fatal;

namespace {

struct Nccl {
#define MEMOPT_NCCL_FUNCTIONS(X)                                               \
  X(ncclGetVersion)                                                            \
  X(ncclGetUniqueId)                                                           \
  X(ncclCommInitRank)                                                          \
  X(ncclCommSplit)                                                             \
  X(ncclGetErrorString)                                                        \
  X(ncclGetLastError)                                                          \
  X(ncclAllReduce)                                                             \
  X(ncclAllGather)                                                             \
  X(ncclReduceScatter)                                                         \
  X(ncclGroupStart)                                                            \
  X(ncclGroupEnd)                                                              \
  X(ncclSend)                                                                  \
  X(ncclRecv)
#define MEMOPT_DECLARE(name) decltype(&::name) name = nullptr;
  MEMOPT_NCCL_FUNCTIONS(MEMOPT_DECLARE)
#undef MEMOPT_DECLARE

  memopt::runtime::ProcessPlace place;
  ncclComm_t world = nullptr;
  /// Grid groups by (shape, -1, axes), and by the id handed out.
  std::map<std::vector<int64_t>, int64_t> groupIds;
  std::vector<ncclComm_t> groups;
  /// The messages of the exchange being posted, and their buffers, types
  /// and element counts at the same positions.
  std::vector<memopt::runtime::PeerMessage> messages;
  struct Payload {
    void *data;
    int64_t count;
    int32_t type;
  };
  std::vector<Payload> payloads;
  std::mutex mutex;
};

void check(Nccl &n, ncclComm_t comm, ncclResult_t result, const char *what) {
  if (result == ncclSuccess)
    return;
  const char *last = n.ncclGetLastError ? n.ncclGetLastError(comm) : nullptr;
  fatal("%s failed: %s%s%s", what, n.ncclGetErrorString(result),
        last && *last ? ": " : "", last ? last : "");
}

/// The id every process passes to ncclCommInitRank.
ncclUniqueId rendezvous(Nccl &n) {
  ncclUniqueId id;
  const memopt::runtime::ProcessPlace &place = n.place;
  // One process, or NCCL's own rendezvous: ncclGetUniqueId on every rank
  // (with NCCL_COMM_ID set, it returns the same id everywhere).
  if (place.worldSize == 1 || std::getenv("NCCL_COMM_ID")) {
    check(n, nullptr, n.ncclGetUniqueId(&id), "ncclGetUniqueId");
    return id;
  }
  const char *file = std::getenv("MEMOPT_NCCL_ID_FILE");
  if (!file) // loadNccl checked that one of the two is set.
    fatal("neither NCCL_COMM_ID nor MEMOPT_NCCL_ID_FILE is set");
  std::string path = file;
  if (place.rank == 0) {
    check(n, nullptr, n.ncclGetUniqueId(&id), "ncclGetUniqueId");
    // Written whole under a temporary name, then renamed: a reader never
    // sees part of it.
    std::string temporary = path + ".tmp." + std::to_string(getpid());
    FILE *file = std::fopen(temporary.c_str(), "wb");
    if (!file || std::fwrite(&id, sizeof(id), 1, file) != 1 ||
        std::fclose(file) != 0 ||
        std::rename(temporary.c_str(), path.c_str()) != 0)
      fatal("cannot write the NCCL id to MEMOPT_NCCL_ID_FILE=%s", path.c_str());
    return id;
  }
  int64_t timeout = 300;
  if (const char *env = std::getenv("MEMOPT_NCCL_TIMEOUT"))
    timeout = std::atoll(env);
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
  while (true) {
    if (FILE *file = std::fopen(path.c_str(), "rb")) {
      bool read = std::fread(&id, sizeof(id), 1, file) == 1;
      std::fclose(file);
      if (read)
        return id;
    }
    if (std::chrono::steady_clock::now() > deadline)
      fatal("rank %lld waited %lld s for rank 0 to write "
            "MEMOPT_NCCL_ID_FILE=%s (MEMOPT_NCCL_TIMEOUT)",
            static_cast<long long>(place.rank), static_cast<long long>(timeout),
            path.c_str());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Nccl *loadNccl() {
  auto *n = new Nccl();
  // Where this process is, and how the processes meet: checked before any
  // library is loaded, so a bad launch is reported on any machine.
  std::string error;
  if (!memopt::runtime::readProcessPlace(std::getenv, n->place, error))
    fatal("%s", error.c_str());
  if (n->place.worldSize > 1 && !std::getenv("NCCL_COMM_ID") &&
      !std::getenv("MEMOPT_NCCL_ID_FILE"))
    fatal("a run of %lld processes (%s) needs a rendezvous for NCCL: set "
          "NCCL_COMM_ID=host:port (rank 0's host, a free port) or "
          "MEMOPT_NCCL_ID_FILE=path (a fresh file every process can read)",
          static_cast<long long>(n->place.worldSize), n->place.source.c_str());

  void *library = nullptr;
  std::string tried;
  if (const char *env = std::getenv("MEMOPT_NCCL_LIBRARY")) {
    library = dlopen(env, RTLD_NOW | RTLD_GLOBAL);
    tried = env;
  } else {
    library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (!library)
      library =
          dlopen(MEMOPT_CUDA_LIB_DIR "/libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
    tried = "libnccl.so.2, also in " MEMOPT_CUDA_LIB_DIR;
  }
  if (!library)
    fatal("cannot load NCCL (%s): %s", tried.c_str(), dlerror());
#define MEMOPT_RESOLVE(name)                                                   \
  n->name = reinterpret_cast<decltype(n->name)>(dlsym(library, #name));        \
  if (!n->name)                                                                \
    fatal("NCCL (%s) lacks %s (NCCL 2.18 or newer needed)", tried.c_str(),     \
          #name);
  MEMOPT_NCCL_FUNCTIONS(MEMOPT_RESOLVE)
#undef MEMOPT_RESOLVE

  // The device (chosen by local rank) and its context, then the world.
  (void)memopt::cuda::stream();
  ncclUniqueId id = rendezvous(*n);
  check(*n, nullptr,
        n->ncclCommInitRank(&n->world, static_cast<int>(n->place.worldSize), id,
                            static_cast<int>(n->place.rank)),
        "ncclCommInitRank");
  return n;
}

Nccl &nccl() {
  static Nccl *instance = loadNccl(); // Outlives static destructors.
  return *instance;
}

/// An element type code of the entry points (the order of their suffixes
/// below: f32, f64, f16, bf16, i8, i32, i64): NCCL's type and the size.
struct ElementType {
  ncclDataType_t nccl;
  int64_t bytes;
};

ElementType elementType(int32_t code) {
  static const ElementType types[] = {
      {ncclFloat32, 4}, {ncclFloat64, 8}, {ncclFloat16, 2}, {ncclBfloat16, 2},
      {ncclInt8, 1},    {ncclInt32, 4},   {ncclInt64, 8}};
  if (code < 0 || code >= static_cast<int32_t>(std::size(types)))
    fatal("memopt_nccl: unknown element type code %d", code);
  return types[code];
}

ncclRedOp_t reduction(int32_t code) {
  switch (code) {
  case 0:
    return ncclSum;
  case 1:
    return ncclProd;
  case 2:
    return ncclMax;
  case 3:
    return ncclMin;
  case 4:
    return ncclAvg;
  default:
    fatal("memopt_nccl: unknown reduction code %d", code);
  }
}

ncclComm_t group(Nccl &n, int64_t id) {
  std::lock_guard<std::mutex> lock(n.mutex);
  if (id < 0 || id >= static_cast<int64_t>(n.groups.size()))
    fatal("memopt_nccl: unknown group %lld", static_cast<long long>(id));
  return n.groups[id];
}

/// The address of the data of an unranked memref (rank, descriptor) that
/// the lowering passes. It must be contiguous, and hold `count` elements
/// unless count is -1 (the gathered or scattered side, whose size NCCL
/// derives).
void *buffer(int64_t rank, void *descriptor, int64_t count, int32_t code,
             const char *what) {
  memopt::runtime::UnrankedBuffer buffer = memopt::runtime::readUnrankedBuffer(
      rank, descriptor, elementType(code).bytes);
  if (!buffer.contiguous)
    fatal("memopt_nccl: the %s buffer is not contiguous", what);
  if (count >= 0 && buffer.elements != count)
    fatal("memopt_nccl: the %s buffer holds %lld elements, the call says "
          "%lld",
          what, static_cast<long long>(buffer.elements),
          static_cast<long long>(count));
  return buffer.data;
}

void allReduce(int64_t groupId, void *send, void *recv, int64_t count,
               int32_t type, int32_t op) {
  Nccl &n = nccl();
  ncclComm_t comm = group(n, groupId);
  check(n, comm,
        n.ncclAllReduce(send, recv, count, elementType(type).nccl,
                        reduction(op), comm, memopt::cuda::stream()),
        "ncclAllReduce");
  memopt::cuda::synchronize();
}

void allGather(int64_t groupId, void *send, void *recv, int64_t sendCount,
               int32_t type) {
  Nccl &n = nccl();
  ncclComm_t comm = group(n, groupId);
  check(n, comm,
        n.ncclAllGather(send, recv, sendCount, elementType(type).nccl, comm,
                        memopt::cuda::stream()),
        "ncclAllGather");
  memopt::cuda::synchronize();
}

void reduceScatter(int64_t groupId, void *send, void *recv, int64_t recvCount,
                   int32_t type, int32_t op) {
  Nccl &n = nccl();
  ncclComm_t comm = group(n, groupId);
  check(n, comm,
        n.ncclReduceScatter(send, recv, recvCount, elementType(type).nccl,
                            reduction(op), comm, memopt::cuda::stream()),
        "ncclReduceScatter");
  memopt::cuda::synchronize();
}

/// Records one message of a pipeline exchange to or from the process
/// `rankDelta` ranks away; nothing moves before the exchange's wait.
void postMessage(bool send, int64_t rankDelta, int64_t tag, void *data,
                 int64_t count, int32_t type) {
  Nccl &n = nccl();
  const char *what = send ? "memopt_nccl_p2p_send" : "memopt_nccl_p2p_recv";
  int64_t peer = n.place.rank + rankDelta;
  if (rankDelta == 0 || peer < 0 || peer >= n.place.worldSize)
    fatal("%s: process %lld has no peer %lld ranks away in a run of %lld (%s)",
          what, static_cast<long long>(n.place.rank),
          static_cast<long long>(rankDelta),
          static_cast<long long>(n.place.worldSize), n.place.source.c_str());
  if (tag < 0)
    fatal("%s: negative tag %lld", what, static_cast<long long>(tag));
  std::lock_guard<std::mutex> lock(n.mutex);
  n.messages.push_back({send, peer, tag});
  n.payloads.push_back({data, count, type});
}

/// Ends an exchange: issues its messages as one NCCL group (each peer's in
/// tag order) on the runtime's stream and waits for them.
void waitMessages() {
  Nccl &n = nccl();
  std::vector<memopt::runtime::PeerMessage> messages;
  std::vector<Nccl::Payload> payloads;
  {
    std::lock_guard<std::mutex> lock(n.mutex);
    messages.swap(n.messages);
    payloads.swap(n.payloads);
  }
  if (messages.empty())
    return;
  check(n, n.world, n.ncclGroupStart(), "ncclGroupStart");
  for (size_t i : memopt::runtime::orderPeerMessages(messages)) {
    const Nccl::Payload &payload = payloads[i];
    ncclDataType_t type = elementType(payload.type).nccl;
    int peer = static_cast<int>(messages[i].peer);
    size_t count = static_cast<size_t>(payload.count);
    if (messages[i].send)
      check(n, n.world,
            n.ncclSend(payload.data, count, type, peer, n.world,
                       memopt::cuda::stream()),
            "ncclSend");
    else
      check(n, n.world,
            n.ncclRecv(payload.data, count, type, peer, n.world,
                       memopt::cuda::stream()),
            "ncclRecv");
  }
  check(n, n.world, n.ncclGroupEnd(), "ncclGroupEnd");
  memopt::cuda::synchronize();
}

} // namespace

extern "C" {

/// The group of this process for a collective over `axes` (a0..a3, -1 for
/// none) of a grid of `shape` (g0..g3, 0 past the grid's rank): an id for
/// the collectives below. The grid must hold exactly the run's processes.
int64_t memopt_nccl_group(int64_t g0, int64_t g1, int64_t g2, int64_t g3,
                          int64_t a0, int64_t a1, int64_t a2, int64_t a3) {
  Nccl &n = nccl();
  auto [shape, axes] =
      memopt::runtime::decodeGridAxes(g0, g1, g2, g3, a0, a1, a2, a3);
  std::vector<int64_t> cacheKey = shape;
  cacheKey.push_back(-1);
  cacheKey.insert(cacheKey.end(), axes.begin(), axes.end());
  {
    std::lock_guard<std::mutex> lock(n.mutex);
    auto it = n.groupIds.find(cacheKey);
    if (it != n.groupIds.end())
      return it->second;
  }
  int64_t processes = 1;
  for (int64_t extent : shape)
    processes *= extent;
  if (processes != n.place.worldSize)
    fatal("the step's grid has %lld processes but this run has %lld (%s)",
          static_cast<long long>(processes),
          static_cast<long long>(n.place.worldSize), n.place.source.c_str());
  memopt::runtime::GridGroup grid;
  std::string error;
  if (!memopt::runtime::getGridGroup(shape, axes, n.place.rank, grid, error))
    fatal("memopt_nccl_group: %s", error.c_str());
  ncclComm_t comm = nullptr;
  check(n, n.world,
        n.ncclCommSplit(n.world, static_cast<int>(grid.color),
                        static_cast<int>(grid.key), &comm, nullptr),
        "ncclCommSplit");
  std::lock_guard<std::mutex> lock(n.mutex);
  n.groups.push_back(comm);
  int64_t id = static_cast<int64_t>(n.groups.size()) - 1;
  n.groupIds.emplace(cacheKey, id);
  return id;
}

/// The collectives, one entry point per element type (the lowering passes
/// buffers as unranked memrefs, whose element type is in the function's
/// type): memopt_nccl_{all_reduce,all_gather,reduce_scatter}_{f32,...}.
///
///   all_reduce(group, send, recv, count, op): recv[i] = op over the group
///     of send[i], i < count.
///   all_gather(group, send, recv, sendCount): recv = the group's sends,
///     concatenated in group order.
///   reduce_scatter(group, send, recv, recvCount, op): recv = the reduction
///     over the group of chunk k of every send (chunks of recvCount
///     elements), k being this process's place in the group.
#define MEMOPT_NCCL_TYPED(suffix, code)                                        \
  void memopt_nccl_all_reduce_##suffix(                                        \
      int64_t groupId, int64_t sendRank, void *send, int64_t recvRank,         \
      void *recv, int64_t count, int32_t op) {                                 \
    allReduce(groupId, buffer(sendRank, send, count, code, "send"),            \
              buffer(recvRank, recv, count, code, "recv"), count, code, op);   \
  }                                                                            \
  void memopt_nccl_all_gather_##suffix(int64_t groupId, int64_t sendRank,      \
                                       void *send, int64_t recvRank,           \
                                       void *recv, int64_t sendCount) {        \
    allGather(groupId, buffer(sendRank, send, sendCount, code, "send"),        \
              buffer(recvRank, recv, -1, code, "recv"), sendCount, code);      \
  }                                                                            \
  void memopt_nccl_reduce_scatter_##suffix(                                    \
      int64_t groupId, int64_t sendRank, void *send, int64_t recvRank,         \
      void *recv, int64_t recvCount, int32_t op) {                             \
    reduceScatter(groupId, buffer(sendRank, send, -1, code, "send"),           \
                  buffer(recvRank, recv, recvCount, code, "recv"), recvCount,  \
                  code, op);                                                   \
  }
MEMOPT_NCCL_TYPED(f32, 0)
MEMOPT_NCCL_TYPED(f64, 1)
MEMOPT_NCCL_TYPED(f16, 2)
MEMOPT_NCCL_TYPED(bf16, 3)
MEMOPT_NCCL_TYPED(i8, 4)
MEMOPT_NCCL_TYPED(i32, 5)
MEMOPT_NCCL_TYPED(i64, 6)
#undef MEMOPT_NCCL_TYPED

/// Pipeline messages (train.p2p), one entry point per element type:
///   p2p_send(rankDelta, tag, buffer, count): posts `count` elements of
///     `buffer` to the process rankDelta ranks away;
///   p2p_recv(rankDelta, tag, buffer, count): posts a receive into `buffer`;
///   p2p_sent(buffer): the end of a sent buffer's use (the wait below has
///     completed its transfer already: nothing to do).
#define MEMOPT_NCCL_P2P(suffix, code)                                          \
  void memopt_nccl_p2p_send_##suffix(int64_t rankDelta, int64_t tag,           \
                                     int64_t rank, void *buffer_,              \
                                     int64_t count) {                          \
    postMessage(true, rankDelta, tag,                                          \
                buffer(rank, buffer_, count, code, "send"), count, code);      \
  }                                                                            \
  void memopt_nccl_p2p_recv_##suffix(int64_t rankDelta, int64_t tag,           \
                                     int64_t rank, void *buffer_,              \
                                     int64_t count) {                          \
    postMessage(false, rankDelta, tag,                                         \
                buffer(rank, buffer_, count, code, "recv"), count, code);      \
  }                                                                            \
  void memopt_nccl_p2p_sent_##suffix(int64_t rank, void *buffer_) {            \
    (void)rank;                                                                \
    (void)buffer_;                                                             \
  }
MEMOPT_NCCL_P2P(f32, 0)
MEMOPT_NCCL_P2P(f64, 1)
MEMOPT_NCCL_P2P(f16, 2)
MEMOPT_NCCL_P2P(bf16, 3)
MEMOPT_NCCL_P2P(i8, 4)
MEMOPT_NCCL_P2P(i32, 5)
MEMOPT_NCCL_P2P(i64, 6)
#undef MEMOPT_NCCL_P2P

/// Waits for every message posted since the last wait (one exchange).
void memopt_nccl_p2p_wait(void) { waitMessages(); }

/// This process's rank and the run's size (as NCCL was given them).
int64_t memopt_nccl_rank(void) { return nccl().place.rank; }
int64_t memopt_nccl_world_size(void) { return nccl().place.worldSize; }

/// Prints `key: value` lines: NCCL's version and this process's place.
void memopt_nccl_report(void) {
  Nccl &n = nccl();
  int version = 0;
  check(n, nullptr, n.ncclGetVersion(&version), "ncclGetVersion");
  std::printf("nccl_version: %d\n", version);
  std::printf("nccl_rank: %lld\n", static_cast<long long>(n.place.rank));
  std::printf("nccl_world_size: %lld\n",
              static_cast<long long>(n.place.worldSize));
  std::fflush(stdout);
}

} // extern "C"
