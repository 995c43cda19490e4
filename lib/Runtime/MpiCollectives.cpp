//===- MpiCollectives.cpp - the collectives of lowered code on MPI --------===//
//
// See MpiCollectives.h. One MPI process per grid process, on the CPU: a grid
// group is a communicator of the processes with the same color (the
// process's linear index on the other axes), ordered by key (its index in
// the group), as memopt/Runtime/Collectives.h computes them, made with
// MPI_Comm_create_group the first time a collective over it runs (every
// process of the group reaches it in the same order: within a pipeline
// stage the step is SPMD) and kept; its id is its index in the cache.
// Pipeline transfers are MPI_Isend and MPI_Irecv on MPI_COMM_WORLD, waited
// for together; under the NCCL names (emulated GPU code) they are held until
// the wait and then posted as the CUDA runtime issues them to NCCL, each
// peer's in tag order and all with one MPI tag, so that they pair in issue
// order as NCCL's do (getMpiCollectivesAsNccl). All-reduce,
// reduce-scatter and all-gather are MPI_Allreduce, MPI_Reduce_scatter_block
// and MPI_Allgather on the buffers' data (the large-count variants when a
// count exceeds an int). MPI has no 16-bit floats: f16 and bf16 are widened
// to float, reduced, and rounded back to nearest, ties to even; their
// gathers move 16-bit words. An average is a sum divided by the group's
// size (in float or double). Buffers that overlap are reduced from a copy
// of the input (MPI forbids aliasing).
//
// Errors (a grid that is not the world, a bad group, a buffer of the wrong
// size) print `memopt runtime: error: ...` and exit with status 1; every
// process of an SPMD step meets the same one, so none is left waiting.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/MpiCollectives.h"
#include "memopt/Runtime/Collectives.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace memopt::runtime;

namespace {

/// Set when the runtime exits on an error: MPI is then not finalized (a
/// finalize waits for the other processes).
bool exitingOnError = false;

bool isInitialized() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

void printError(const char *format, std::va_list arguments) {
  std::fflush(stdout);
  std::fprintf(stderr, "memopt runtime: error: ");
  std::vfprintf(stderr, format, arguments);
  std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

[[noreturn]] void fatal(const char *format, ...) {
  std::va_list arguments;
  va_start(arguments, format);
  printError(format, arguments);
  va_end(arguments);
  exitingOnError = true;
  std::exit(1);
}

/// An error every process of the world meets at the same call (it depends
/// only on the step and the world's size): each prints it and MPI is
/// finalized before the exit, so that mpiexec sees every process exit with
/// status 1 rather than killing the slower ones before they print.
[[noreturn]] void fatalOnEveryProcess(const char *format, ...) {
  std::va_list arguments;
  va_start(arguments, format);
  printError(format, arguments);
  va_end(arguments);
  exitingOnError = true;
  if (isInitialized())
    MPI_Finalize();
  std::exit(1);
}

void check(int result, const char *what) {
  if (result == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING] = {0};
  int length = 0;
  MPI_Error_string(result, text, &length);
  fatal("%s failed: %s", what, text);
}

void finalizeAtExit() {
  if (!exitingOnError)
    mpiFinalize();
}

/// Initializes MPI for a collective or helper called before mpiInitialize;
/// it is then finalized at exit.
void ensureInitialized() {
  if (isInitialized())
    return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    fatal("an MPI collective was called after MPI_Finalize");
  mpiInitialize(nullptr, nullptr);
  std::atexit(finalizeAtExit);
}

/// The grid groups: communicators by (shape, -1, axes), and by id.
struct Group {
  MPI_Comm comm;
  int64_t size;
};
struct Groups {
  std::map<std::vector<int64_t>, int64_t> ids;
  std::vector<Group> groups;
  std::mutex mutex;
};

Groups &groups() {
  static Groups *instance = new Groups(); // Outlives static destructors.
  return *instance;
}

Group getGroup(int64_t id) {
  Groups &g = groups();
  std::lock_guard<std::mutex> lock(g.mutex);
  if (id < 0 || id >= static_cast<int64_t>(g.groups.size()))
    fatal("memopt_mpi: unknown group %lld", static_cast<long long>(id));
  return g.groups[id];
}

/// The element types of the entry points, in the order of their suffixes.
enum Type { F32, F64, F16, BF16, I8, I32, I64 };

int64_t elementBytes(Type type) {
  switch (type) {
  case F32:
  case I32:
    return 4;
  case F64:
  case I64:
    return 8;
  case F16:
  case BF16:
    return 2;
  case I8:
    return 1;
  }
  return 1;
}

bool isFloat(Type type) {
  return type == F32 || type == F64 || type == F16 || type == BF16;
}

/// The MPI type a reduction of `type` runs on (16-bit floats as float).
MPI_Datatype reductionType(Type type) {
  switch (type) {
  case F32:
  case F16:
  case BF16:
    return MPI_FLOAT;
  case F64:
    return MPI_DOUBLE;
  case I8:
    return MPI_INT8_T;
  case I32:
    return MPI_INT32_T;
  case I64:
    return MPI_INT64_T;
  }
  return MPI_BYTE;
}

/// The MPI type a gather of `type` moves (16-bit floats as 16-bit words).
MPI_Datatype gatherType(Type type) {
  if (type == F16 || type == BF16)
    return MPI_UINT16_T;
  return reductionType(type);
}

MPI_Op reduction(int32_t code, Type type) {
  switch (code) {
  case 0:
    return MPI_SUM;
  case 1:
    return MPI_PROD;
  case 2:
    return MPI_MAX;
  case 3:
    return MPI_MIN;
  case 4:
    if (!isFloat(type))
      fatal("memopt_mpi: an average of integers is not supported");
    return MPI_SUM; // Then divided by the group's size.
  default:
    fatal("memopt_mpi: unknown reduction code %d", code);
  }
}

//===----------------------------------------------------------------------===//
// 16-bit floats
//===----------------------------------------------------------------------===//

uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

float halfToFloat(uint16_t half) {
  uint32_t sign = static_cast<uint32_t>(half & 0x8000) << 16;
  uint32_t exponent = (half >> 10) & 0x1f;
  uint32_t mantissa = half & 0x3ff;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) // Infinity or NaN.
    return bitsFloat(sign | 0x7f800000u | (mantissa << 13));
  return bitsFloat(sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13));
}

uint16_t floatToHalf(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) { // Infinity or NaN (kept quiet).
    if (magnitude == 0x7f800000u)
      return sign | 0x7c00;
    return sign | 0x7e00 | static_cast<uint16_t>((magnitude >> 13) & 0x3ff);
  }
  if (magnitude >= 0x477ff000u) // >= 65520: rounds to infinity.
    return sign | 0x7c00;
  if (magnitude < 0x38800000u) {
    // Below the smallest normal half (2^-14): adding 0.5 leaves the value
    // rounded (to nearest even) to a multiple of 2^-24 in the low bits.
    float shifted = bitsFloat(magnitude) + 0.5f;
    return sign | static_cast<uint16_t>(floatBits(shifted) - 0x3f000000u);
  }
  // Normal: rebias the exponent and round the 13 dropped bits to nearest
  // even (a carry into the exponent is the right result).
  uint32_t odd = (magnitude >> 13) & 1;
  magnitude += (static_cast<uint32_t>(15 - 127) << 23) + 0xfff + odd;
  return sign | static_cast<uint16_t>(magnitude >> 13);
}

float bfloatToFloat(uint16_t bfloat) {
  return bitsFloat(static_cast<uint32_t>(bfloat) << 16);
}

uint16_t floatToBfloat(float value) {
  uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: truncated, kept quiet.
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

void widen(Type type, const char *from, float *to, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    uint16_t word;
    std::memcpy(&word, from + 2 * i, 2);
    to[i] = type == F16 ? halfToFloat(word) : bfloatToFloat(word);
  }
}

void narrow(Type type, const float *from, char *to, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    uint16_t word = type == F16 ? floatToHalf(from[i]) : floatToBfloat(from[i]);
    std::memcpy(to + 2 * i, &word, 2);
  }
}

//===----------------------------------------------------------------------===//
// The collectives
//===----------------------------------------------------------------------===//

/// The data of an unranked memref (rank, descriptor) that the lowering
/// passes. It must be contiguous and hold `count` elements, or at least
/// `count` when `atLeast` (the gathered or scattered side).
char *buffer(int64_t rank, void *descriptor, int64_t count, Type type,
             bool atLeast, const char *what) {
  UnrankedBuffer buffer =
      readUnrankedBuffer(rank, descriptor, elementBytes(type));
  if (!buffer.contiguous)
    fatal("memopt_mpi: the %s buffer is not contiguous", what);
  if (atLeast ? buffer.elements < count : buffer.elements != count)
    fatal("memopt_mpi: the %s buffer holds %lld elements, the call needs "
          "%s%lld",
          what, static_cast<long long>(buffer.elements),
          atLeast ? "at least " : "", static_cast<long long>(count));
  return buffer.data;
}

bool overlap(const char *a, int64_t aBytes, const char *b, int64_t bBytes) {
  return aBytes > 0 && bBytes > 0 && a < b + bBytes && b < a + aBytes;
}

/// MPI's collectives with 64-bit counts: the int ones when the counts fit,
/// else MPI 4's large-count ones.
bool fitsInt(int64_t count) { return count <= INT_MAX; }

void allReduce(const void *send, void *recv, int64_t count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (fitsInt(count)) {
    check(
        MPI_Allreduce(send, recv, static_cast<int>(count), datatype, op, comm),
        "MPI_Allreduce");
    return;
  }
#if MPI_VERSION >= 4
  check(MPI_Allreduce_c(send, recv, static_cast<MPI_Count>(count), datatype, op,
                        comm),
        "MPI_Allreduce_c");
#else
  fatal("memopt_mpi: %lld elements exceed this MPI's int counts",
        static_cast<long long>(count));
#endif
}

void reduceScatterBlock(const void *send, void *recv, int64_t recvCount,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  if (fitsInt(recvCount)) {
    check(MPI_Reduce_scatter_block(send, recv, static_cast<int>(recvCount),
                                   datatype, op, comm),
          "MPI_Reduce_scatter_block");
    return;
  }
#if MPI_VERSION >= 4
  check(MPI_Reduce_scatter_block_c(
            send, recv, static_cast<MPI_Count>(recvCount), datatype, op, comm),
        "MPI_Reduce_scatter_block_c");
#else
  fatal("memopt_mpi: %lld elements exceed this MPI's int counts",
        static_cast<long long>(recvCount));
#endif
}

void allGather(const void *send, void *recv, int64_t sendCount,
               MPI_Datatype datatype, MPI_Comm comm) {
  if (fitsInt(sendCount)) {
    int count = static_cast<int>(sendCount);
    check(MPI_Allgather(send, count, datatype, recv, count, datatype, comm),
          "MPI_Allgather");
    return;
  }
#if MPI_VERSION >= 4
  MPI_Count count = static_cast<MPI_Count>(sendCount);
  check(MPI_Allgather_c(send, count, datatype, recv, count, datatype, comm),
        "MPI_Allgather_c");
#else
  fatal("memopt_mpi: %lld elements exceed this MPI's int counts",
        static_cast<long long>(sendCount));
#endif
}

template <typename T> void divide(char *data, int64_t count, int64_t by) {
  T *values = reinterpret_cast<T *>(data);
  for (int64_t i = 0; i < count; ++i)
    values[i] /= static_cast<T>(by);
}

/// An all-reduce (`scatter` false: `count` elements in and out) or a
/// reduce-scatter (`scatter` true: `count` elements out, the group's size
/// times as many in).
void reduceCollective(bool scatter, Type type, int64_t groupId,
                      int64_t sendRank, void *sendDescriptor, int64_t recvRank,
                      void *recvDescriptor, int64_t count, int32_t code) {
  const char *what =
      scatter ? "memopt_mpi_reduce_scatter" : "memopt_mpi_all_reduce";
  if (count < 0)
    fatal("%s: negative count %lld", what, static_cast<long long>(count));
  Group group = getGroup(groupId);
  MPI_Op op = reduction(code, type);
  int64_t sendCount = scatter ? count * group.size : count;
  char *send =
      buffer(sendRank, sendDescriptor, sendCount, type, scatter, "send");
  char *recv = buffer(recvRank, recvDescriptor, count, type, false, "recv");
  auto run = [&](const void *in, void *out, MPI_Datatype datatype) {
    if (scatter)
      reduceScatterBlock(in, out, count, datatype, op, group.comm);
    else
      allReduce(in, out, count, datatype, op, group.comm);
  };

  if (type == F16 || type == BF16) {
    std::vector<float> in(sendCount), out(count);
    widen(type, send, in.data(), sendCount);
    run(in.data(), out.data(), MPI_FLOAT);
    if (code == 4)
      divide<float>(reinterpret_cast<char *>(out.data()), count, group.size);
    narrow(type, out.data(), recv, count);
    return;
  }

  int64_t bytes = elementBytes(type);
  std::vector<char> copy;
  if (overlap(send, sendCount * bytes, recv, count * bytes)) {
    copy.assign(send, send + sendCount * bytes);
    send = copy.data();
  }
  run(send, recv, reductionType(type));
  if (code == 4) {
    if (type == F64)
      divide<double>(recv, count, group.size);
    else
      divide<float>(recv, count, group.size);
  }
}

void gatherCollective(Type type, int64_t groupId, int64_t sendRank,
                      void *sendDescriptor, int64_t recvRank,
                      void *recvDescriptor, int64_t sendCount) {
  if (sendCount < 0)
    fatal("memopt_mpi_all_gather: negative count %lld",
          static_cast<long long>(sendCount));
  Group group = getGroup(groupId);
  int64_t recvCount = sendCount * group.size;
  char *send = buffer(sendRank, sendDescriptor, sendCount, type, false, "send");
  char *recv = buffer(recvRank, recvDescriptor, recvCount, type, true, "recv");
  int64_t bytes = elementBytes(type);
  std::vector<char> copy;
  if (overlap(send, sendCount * bytes, recv, recvCount * bytes)) {
    copy.assign(send, send + sendCount * bytes);
    send = copy.data();
  }
  allGather(send, recv, sendCount, gatherType(type), group.comm);
}

//===----------------------------------------------------------------------===//
// The entry points
//===----------------------------------------------------------------------===//

/// The group of this process for a collective over `axes` (a0..a3, -1 for
/// none) of a grid of `shape` (g0..g3, 0 past the grid's rank). The grid
/// must hold exactly the world's processes.
int64_t group(int64_t g0, int64_t g1, int64_t g2, int64_t g3, int64_t a0,
              int64_t a1, int64_t a2, int64_t a3) {
  ensureInitialized();
  GridAxes decoded = decodeGridAxes(g0, g1, g2, g3, a0, a1, a2, a3);
  std::vector<int64_t> cacheKey = decoded.shape;
  cacheKey.push_back(-1);
  cacheKey.insert(cacheKey.end(), decoded.axes.begin(), decoded.axes.end());
  Groups &g = groups();
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    auto it = g.ids.find(cacheKey);
    if (it != g.ids.end())
      return it->second;
  }
  int64_t processes = 1;
  for (int64_t extent : decoded.shape)
    processes *= extent;
  int64_t worldSize = mpiWorldSize();
  if (processes != worldSize)
    fatalOnEveryProcess(
        "the step's grid has %lld processes, but mpiexec started %lld",
        static_cast<long long>(processes), static_cast<long long>(worldSize));
  GridGroup grid;
  std::string error;
  if (!getGridGroup(decoded.shape, decoded.axes, mpiWorldRank(), grid, error))
    fatalOnEveryProcess("memopt_mpi_group: %s", error.c_str());
  // Collective over the group's processes only (MPI_Comm_create_group, not
  // MPI_Comm_split over the world): the stages of a pipeline run different
  // programs, and a group is made when its own processes first reach it.
  std::vector<int> members(grid.size, -1);
  for (int64_t other = 0; other < worldSize; ++other) {
    GridGroup theirs;
    if (!getGridGroup(decoded.shape, decoded.axes, other, theirs, error))
      fatalOnEveryProcess("memopt_mpi_group: %s", error.c_str());
    if (theirs.color == grid.color && theirs.key >= 0 && theirs.key < grid.size)
      members[theirs.key] = static_cast<int>(other);
  }
  MPI_Group world = MPI_GROUP_NULL, subset = MPI_GROUP_NULL;
  check(MPI_Comm_group(MPI_COMM_WORLD, &world), "MPI_Comm_group");
  check(MPI_Group_incl(world, static_cast<int>(members.size()), members.data(),
                       &subset),
        "MPI_Group_incl");
  int tag = 0;
  for (int64_t axis : decoded.axes)
    tag |= 1 << axis;
  MPI_Comm comm = MPI_COMM_NULL;
  check(MPI_Comm_create_group(MPI_COMM_WORLD, subset, tag, &comm),
        "MPI_Comm_create_group");
  MPI_Group_free(&subset);
  MPI_Group_free(&world);
  int size = 0;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  if (size != grid.size)
    fatal("memopt_mpi_group: the group has %d processes, %lld expected", size,
          static_cast<long long>(grid.size));
  std::lock_guard<std::mutex> lock(g.mutex);
  g.groups.push_back({comm, grid.size});
  int64_t id = static_cast<int64_t>(g.groups.size()) - 1;
  g.ids.emplace(cacheKey, id);
  return id;
}

int64_t rank() { return mpiWorldRank(); }

template <Type T>
void allReduceEntry(int64_t groupId, int64_t sendRank, void *send,
                    int64_t recvRank, void *recv, int64_t count, int32_t op) {
  reduceCollective(false, T, groupId, sendRank, send, recvRank, recv, count,
                   op);
}

template <Type T>
void reduceScatterEntry(int64_t groupId, int64_t sendRank, void *send,
                        int64_t recvRank, void *recv, int64_t recvCount,
                        int32_t op) {
  reduceCollective(true, T, groupId, sendRank, send, recvRank, recv, recvCount,
                   op);
}

template <Type T>
void allGatherEntry(int64_t groupId, int64_t sendRank, void *send,
                    int64_t recvRank, void *recv, int64_t sendCount) {
  gatherCollective(T, groupId, sendRank, send, recvRank, recv, sendCount);
}

/// The pipeline transfers posted and not yet waited for.
std::vector<MPI_Request> &pendingTransfers() {
  static auto *pending = new std::vector<MPI_Request>();
  return *pending;
}

/// One message of a pipeline exchange, resolved: its peer's world rank, its
/// tag and its data.
struct Message {
  bool send;
  int64_t peer;
  int64_t tag;
  char *data;
  int64_t bytes;
};

/// Checks and resolves a message to or from the process `rankDelta` ranks
/// away, for the entry point `what`. `mpiTag`: the tag goes to MPI as it is
/// (within this MPI's bound), else it only orders messages (non-negative).
Message resolveMessage(const char *what, bool send, Type type,
                       int64_t rankDelta, int64_t tag, int64_t bufferRank,
                       void *descriptor, int64_t count, bool mpiTag) {
  ensureInitialized();
  int64_t peer = mpiWorldRank() + rankDelta;
  if (peer < 0 || peer >= mpiWorldSize() || rankDelta == 0)
    fatal("%s: process %lld has no peer %lld ranks away in a world of %lld",
          what, static_cast<long long>(mpiWorldRank()),
          static_cast<long long>(rankDelta),
          static_cast<long long>(mpiWorldSize()));
  int *tagUpperBound = nullptr, found = 0;
  if (mpiTag)
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagUpperBound, &found);
  if (tag < 0 || (found && tagUpperBound && tag > *tagUpperBound))
    fatal("%s: tag %lld is outside [0, %d]", what, static_cast<long long>(tag),
          found && tagUpperBound ? *tagUpperBound : INT_MAX);
  char *data = buffer(bufferRank, descriptor, count, type, false,
                      send ? "send" : "recv");
  int64_t bytes = count * elementBytes(type);
  if (!fitsInt(bytes))
    fatal("%s: %lld bytes do not fit one MPI message", what,
          static_cast<long long>(bytes));
  return {send, peer, tag, data, bytes};
}

/// Posts `message` (MPI_Isend or MPI_Irecv on the world) with MPI tag
/// `tag`.
MPI_Request postMessage(const Message &message, int64_t tag) {
  MPI_Request request;
  int bytes = static_cast<int>(message.bytes);
  int peer = static_cast<int>(message.peer);
  if (message.send)
    check(MPI_Isend(message.data, bytes, MPI_BYTE, peer, static_cast<int>(tag),
                    MPI_COMM_WORLD, &request),
          "MPI_Isend");
  else
    check(MPI_Irecv(message.data, bytes, MPI_BYTE, peer, static_cast<int>(tag),
                    MPI_COMM_WORLD, &request),
          "MPI_Irecv");
  return request;
}

/// Posts one message of a pipeline exchange, matched by its tag.
void postTransfer(bool send, Type type, int64_t rankDelta, int64_t tag,
                  int64_t bufferRank, void *descriptor, int64_t count) {
  Message message = resolveMessage(
      send ? "memopt_mpi_p2p_send" : "memopt_mpi_p2p_recv", send, type,
      rankDelta, tag, bufferRank, descriptor, count, /*mpiTag=*/true);
  pendingTransfers().push_back(postMessage(message, message.tag));
}

template <Type T>
void sendEntry(int64_t rankDelta, int64_t tag, int64_t bufferRank,
               void *descriptor, int64_t count) {
  postTransfer(true, T, rankDelta, tag, bufferRank, descriptor, count);
}

template <Type T>
void recvEntry(int64_t rankDelta, int64_t tag, int64_t bufferRank,
               void *descriptor, int64_t count) {
  postTransfer(false, T, rankDelta, tag, bufferRank, descriptor, count);
}

/// Ends the exchange: waits for every posted message.
void waitEntry() {
  std::vector<MPI_Request> &pending = pendingTransfers();
  if (pending.empty())
    return;
  check(MPI_Waitall(static_cast<int>(pending.size()), pending.data(),
                    MPI_STATUSES_IGNORE),
        "MPI_Waitall");
  pending.clear();
}

/// The messages of an exchange under the NCCL names, held until the wait.
std::vector<Message> &heldMessages() {
  static auto *held = new std::vector<Message>();
  return *held;
}

/// Holds one message of an exchange under the NCCL names.
void holdMessage(bool send, Type type, int64_t rankDelta, int64_t tag,
                 int64_t bufferRank, void *descriptor, int64_t count) {
  heldMessages().push_back(resolveMessage(
      send ? "memopt_nccl_p2p_send" : "memopt_nccl_p2p_recv", send, type,
      rankDelta, tag, bufferRank, descriptor, count, /*mpiTag=*/false));
}

template <Type T>
void ncclSendEntry(int64_t rankDelta, int64_t tag, int64_t bufferRank,
                   void *descriptor, int64_t count) {
  holdMessage(true, T, rankDelta, tag, bufferRank, descriptor, count);
}

template <Type T>
void ncclRecvEntry(int64_t rankDelta, int64_t tag, int64_t bufferRank,
                   void *descriptor, int64_t count) {
  holdMessage(false, T, rankDelta, tag, bufferRank, descriptor, count);
}

/// Ends an exchange under the NCCL names: posts the held messages in the
/// order the CUDA runtime gives NCCL (orderPeerMessages), all with tag 0,
/// and waits for them. MPI pairs messages with the same source and tag in
/// the order they are posted, as NCCL pairs its sends and receives: a
/// mistake in that order pairs the wrong messages (and fails on their
/// sizes or delivers the wrong data), as it would on GPUs.
void ncclWaitEntry() {
  std::vector<Message> held;
  held.swap(heldMessages());
  std::vector<PeerMessage> order;
  for (const Message &message : held)
    order.push_back({message.send, message.peer, message.tag});
  std::vector<MPI_Request> requests;
  for (size_t i : orderPeerMessages(order))
    requests.push_back(postMessage(held[i], /*tag=*/0));
  if (!requests.empty())
    check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                      MPI_STATUSES_IGNORE),
          "MPI_Waitall");
}

/// Marks the end of a sent buffer's use (the call keeps it alive until the
/// exchange has ended); nothing to do.
template <Type T> void sentEntry(int64_t bufferRank, void *descriptor) {
  (void)bufferRank;
  (void)descriptor;
}

/// The address of a function, as a JIT symbol table takes it.
template <typename Function> void *address(Function *function) {
  return reinterpret_cast<void *>(function);
}

} // namespace

std::vector<RuntimeFunction> memopt::runtime::getMpiCollectives() {
  std::vector<RuntimeFunction> functions = {
      {"memopt_mpi_group", address(&group)},
      {"memopt_mpi_rank", address(&rank)},
      {"memopt_mpi_p2p_wait", address(&waitEntry)},
  };
  struct Collectives {
    const char *suffix;
    decltype(&allReduceEntry<F32>) allReduce;
    decltype(&reduceScatterEntry<F32>) reduceScatter;
    decltype(&allGatherEntry<F32>) allGather;
    decltype(&sendEntry<F32>) send;
    decltype(&recvEntry<F32>) recv;
    decltype(&sentEntry<F32>) sent;
  };
#define MEMOPT_MPI_ENTRY(suffix, type)                                         \
  Collectives {                                                                \
    suffix, &allReduceEntry<type>, &reduceScatterEntry<type>,                  \
        &allGatherEntry<type>, &sendEntry<type>, &recvEntry<type>,             \
        &sentEntry<type>                                                       \
  }
  for (const Collectives &entry : std::initializer_list<Collectives>{
           MEMOPT_MPI_ENTRY("f32", F32), MEMOPT_MPI_ENTRY("f64", F64),
           MEMOPT_MPI_ENTRY("f16", F16), MEMOPT_MPI_ENTRY("bf16", BF16),
           MEMOPT_MPI_ENTRY("i8", I8), MEMOPT_MPI_ENTRY("i32", I32),
           MEMOPT_MPI_ENTRY("i64", I64)}) {
    std::string suffix = entry.suffix;
    functions.push_back(
        {"memopt_mpi_all_reduce_" + suffix, address(entry.allReduce)});
    functions.push_back(
        {"memopt_mpi_reduce_scatter_" + suffix, address(entry.reduceScatter)});
    functions.push_back(
        {"memopt_mpi_all_gather_" + suffix, address(entry.allGather)});
    functions.push_back({"memopt_mpi_p2p_send_" + suffix, address(entry.send)});
    functions.push_back({"memopt_mpi_p2p_recv_" + suffix, address(entry.recv)});
    functions.push_back({"memopt_mpi_p2p_sent_" + suffix, address(entry.sent)});
  }
#undef MEMOPT_MPI_ENTRY
  return functions;
}

std::vector<RuntimeFunction> memopt::runtime::getMpiCollectivesAsNccl() {
  std::vector<RuntimeFunction> functions;
  for (RuntimeFunction &function : getMpiCollectives()) {
    std::string name = function.name;
    if (name.rfind("memopt_mpi_p2p_", 0) == 0 &&
        name.rfind("memopt_mpi_p2p_sent_", 0) != 0)
      continue; // Replaced below.
    functions.push_back(
        {"memopt_nccl_" + name.substr(std::strlen("memopt_mpi_")),
         function.address});
  }
  functions.push_back({"memopt_nccl_p2p_wait", address(&ncclWaitEntry)});
  struct Transfers {
    const char *suffix;
    decltype(&ncclSendEntry<F32>) send;
    decltype(&ncclRecvEntry<F32>) recv;
  };
  for (const Transfers &entry : std::initializer_list<Transfers>{
           {"f32", &ncclSendEntry<F32>, &ncclRecvEntry<F32>},
           {"f64", &ncclSendEntry<F64>, &ncclRecvEntry<F64>},
           {"f16", &ncclSendEntry<F16>, &ncclRecvEntry<F16>},
           {"bf16", &ncclSendEntry<BF16>, &ncclRecvEntry<BF16>},
           {"i8", &ncclSendEntry<I8>, &ncclRecvEntry<I8>},
           {"i32", &ncclSendEntry<I32>, &ncclRecvEntry<I32>},
           {"i64", &ncclSendEntry<I64>, &ncclRecvEntry<I64>}}) {
    std::string suffix = entry.suffix;
    functions.push_back(
        {"memopt_nccl_p2p_send_" + suffix, address(entry.send)});
    functions.push_back(
        {"memopt_nccl_p2p_recv_" + suffix, address(entry.recv)});
  }
  return functions;
}

//===----------------------------------------------------------------------===//
// Helpers of the host tool
//===----------------------------------------------------------------------===//

void memopt::runtime::mpiInitialize(int *argc, char ***argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    return;
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided),
        "MPI_Init_thread");
}

void memopt::runtime::mpiFinalize() {
  if (!isInitialized())
    return;
  check(MPI_Finalize(), "MPI_Finalize");
}

int64_t memopt::runtime::mpiWorldRank() {
  ensureInitialized();
  int rank = 0;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  return rank;
}

int64_t memopt::runtime::mpiWorldSize() {
  ensureInitialized();
  int size = 0;
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  return size;
}

int64_t memopt::runtime::mpiStartedWorldSize() {
  if (!isInitialized())
    return 0;
  int size = 0;
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  return size;
}

double memopt::runtime::mpiSumDouble(double value) {
  ensureInitialized();
  double sum = 0;
  check(MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
        "MPI_Allreduce");
  return sum;
}

std::vector<int64_t> memopt::runtime::mpiGatherInt64(int64_t value) {
  ensureInitialized();
  std::vector<int64_t> values(static_cast<size_t>(mpiWorldSize()));
  check(MPI_Allgather(&value, 1, MPI_INT64_T, values.data(), 1, MPI_INT64_T,
                      MPI_COMM_WORLD),
        "MPI_Allgather");
  return values;
}

void memopt::runtime::mpiBarrier() {
  ensureInitialized();
  check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

void memopt::runtime::mpiBroadcastBytes(std::string &bytes, int64_t root) {
  ensureInitialized();
  int64_t size =
      mpiWorldRank() == root ? static_cast<int64_t>(bytes.size()) : 0;
  MPI_Request request;
  check(MPI_Ibcast(&size, 1, MPI_INT64_T, static_cast<int>(root),
                   MPI_COMM_WORLD, &request),
        "MPI_Ibcast");
  // Tests every 1 ms at first, then every 20 ms.
  for (int done = 0, sleepMs = 1;;) {
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs));
    sleepMs = std::min(sleepMs * 2, 20);
  }
  // Every process is here now: the bytes follow in blocking broadcasts of at
  // most INT_MAX bytes each.
  bytes.resize(static_cast<size_t>(size));
  for (int64_t offset = 0; offset < size; offset += INT_MAX) {
    int count = static_cast<int>(std::min<int64_t>(size - offset, INT_MAX));
    check(MPI_Bcast(bytes.data() + offset, count, MPI_BYTE,
                    static_cast<int>(root), MPI_COMM_WORLD),
          "MPI_Bcast");
  }
}
