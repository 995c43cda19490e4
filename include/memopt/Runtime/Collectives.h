//===- Collectives.h - ranks and grid groups of the NCCL runtime -*- C++
//-*-===//
//
// The parts of lib/Runtime/CUDA's collectives that need no GPU, kept here so
// that unit tests can check them on any machine:
//
//   * which process this is (rank, world size, local rank), read from the
//     environment a launcher sets (mpiexec from MPICH or Open MPI, torchrun,
//     Slurm, or memopt's own MEMOPT_RANK / MEMOPT_WORLD_SIZE);
//   * the group of a `shard` collective: on a grid of shape (d0, ..., dn-1),
//     a collective over `grid_axes` (a1, ..., ak) runs among the processes
//     that share their coordinates on every other axis. Upstream's `shard`
//     dialect numbers a process within its group by its coordinates on
//     a1, ..., ak in that order (a1 slowest), which is the order in which
//     all_gather concatenates and reduce_scatter distributes. The group is
//     an ncclCommSplit of the world with color = the process's linear index
//     on the other axes and key = its index within the group;
//   * the buffers the lowered code passes (unranked memref descriptors);
//   * the order in which one exchange of a pipeline stage's messages goes to
//     NCCL (orderPeerMessages).
//
// Header-only, standard C++ only.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_COLLECTIVES_H
#define MEMOPT_RUNTIME_COLLECTIVES_H

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace memopt::runtime {

/// This process's place in a multi-process run.
struct ProcessPlace {
  int64_t rank = 0;
  int64_t worldSize = 1;
  int64_t localRank = 0;
  /// The variables it was read from (for messages), e.g. "PMI_RANK".
  std::string source = "default (one process)";
};

/// Reads the process's place from the environment through `getEnv` (which
/// returns nullptr for an unset variable). The first launcher whose rank
/// and size variables are both set wins. Returns false with `error` set
/// when a variable is malformed or the rank is out of range.
inline bool
readProcessPlace(const std::function<const char *(const char *)> &getEnv,
                 ProcessPlace &place, std::string &error) {
  struct Launcher {
    const char *rank, *size, *localRank;
  };
  static const Launcher launchers[] = {
      {"MEMOPT_RANK", "MEMOPT_WORLD_SIZE", "MEMOPT_LOCAL_RANK"},
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
       "OMPI_COMM_WORLD_LOCAL_RANK"},
      {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
      {"RANK", "WORLD_SIZE", "LOCAL_RANK"},
      {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
  };
  auto parse = [&](const char *name, const char *text, int64_t &value) {
    char *end = nullptr;
    long long parsed = std::strtoll(text, &end, 10);
    if (!*text || *end || parsed < 0) {
      error =
          std::string(name) + "='" + text + "' is not a non-negative integer";
      return false;
    }
    value = parsed;
    return true;
  };
  place = ProcessPlace();
  for (const Launcher &launcher : launchers) {
    const char *rank = getEnv(launcher.rank);
    const char *size = getEnv(launcher.size);
    if (!rank || !size)
      continue;
    if (!parse(launcher.rank, rank, place.rank) ||
        !parse(launcher.size, size, place.worldSize))
      return false;
    if (place.worldSize < 1 || place.rank >= place.worldSize) {
      error = std::string(launcher.rank) + "=" + rank + " is not a rank of " +
              launcher.size + "=" + size;
      return false;
    }
    // Without a local rank (one process per node), the rank is local.
    place.localRank = place.rank;
    if (const char *local = getEnv(launcher.localRank))
      if (!parse(launcher.localRank, local, place.localRank))
        return false;
    place.source = std::string(launcher.rank) + "/" + launcher.size;
    return true;
  }
  return true;
}

/// The group of one process in a collective over some axes of a grid.
struct GridGroup {
  /// Processes with the same color form a group.
  int64_t color = 0;
  /// The process's index within its group (the `shard` dialect's order).
  int64_t key = 0;
  /// The number of processes in each group.
  int64_t size = 1;
};

/// The group of process `rank` (its linear index on the grid, last axis
/// fastest) for a collective over `axes` of a grid of `shape`. Returns
/// false with `error` set for a bad shape, an axis out of range or repeated,
/// or a rank outside the grid.
inline bool getGridGroup(const std::vector<int64_t> &shape,
                         const std::vector<int64_t> &axes, int64_t rank,
                         GridGroup &group, std::string &error) {
  int64_t processes = 1;
  for (int64_t extent : shape) {
    if (extent < 1) {
      error = "grid extent " + std::to_string(extent) + " is not positive";
      return false;
    }
    processes *= extent;
  }
  if (rank < 0 || rank >= processes) {
    error = "rank " + std::to_string(rank) + " is outside the grid of " +
            std::to_string(processes) + " processes";
    return false;
  }
  std::vector<bool> inGroup(shape.size(), false);
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size()) ||
        inGroup[axis]) {
      error =
          "grid axis " + std::to_string(axis) + " is out of range or repeated";
      return false;
    }
    inGroup[axis] = true;
  }
  // Coordinates of `rank`, last axis fastest.
  std::vector<int64_t> coordinates(shape.size());
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1, rest = rank; i >= 0;
       --i) {
    coordinates[i] = rest % shape[i];
    rest /= shape[i];
  }
  group = GridGroup();
  group.color = 0;
  for (size_t i = 0; i < shape.size(); ++i)
    if (!inGroup[i])
      group.color = group.color * shape[i] + coordinates[i];
  group.key = 0;
  group.size = 1;
  for (int64_t axis : axes) {
    group.key = group.key * shape[axis] + coordinates[axis];
    group.size *= shape[axis];
  }
  return true;
}

/// The grid and axes of a `memopt_nccl_group(g0, g1, g2, g3, a0, a1, a2,
/// a3)` call: the extents g0..g3 (0 past the grid's rank) and the axes
/// a0..a3 (-1 past their number).
struct GridAxes {
  std::vector<int64_t> shape, axes;
};

inline GridAxes decodeGridAxes(int64_t g0, int64_t g1, int64_t g2, int64_t g3,
                               int64_t a0, int64_t a1, int64_t a2, int64_t a3) {
  GridAxes decoded;
  for (int64_t extent : {g0, g1, g2, g3})
    if (extent > 0)
      decoded.shape.push_back(extent);
  for (int64_t axis : {a0, a1, a2, a3})
    if (axis >= 0)
      decoded.axes.push_back(axis);
  return decoded;
}

/// The data of an unranked memref as lowered code passes it to a C function
/// (the rank, then a pointer to the ranked descriptor { allocated, aligned,
/// offset, sizes[rank], strides[rank] }), as memopt-shard-to-nccl passes
/// the collectives' buffers.
struct UnrankedBuffer {
  /// The first element: aligned + offset.
  char *data = nullptr;
  /// The number of elements.
  int64_t elements = 1;
  /// Whether the strides are the row-major strides of the sizes (size-1
  /// dimensions excepted): the elements are `data[0, elements)`.
  bool contiguous = true;
};

inline UnrankedBuffer readUnrankedBuffer(int64_t rank, void *descriptor,
                                         int64_t elementBytes) {
  struct Header {
    char *allocated;
    char *aligned;
    int64_t offset;
  };
  auto *header = static_cast<Header *>(descriptor);
  auto *sizes = reinterpret_cast<int64_t *>(header + 1);
  const int64_t *strides = sizes + rank;
  UnrankedBuffer buffer;
  buffer.data = header->aligned + header->offset * elementBytes;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != buffer.elements)
      buffer.contiguous = false;
    buffer.elements *= sizes[i];
  }
  return buffer;
}

/// One message of a pipeline exchange as a process posts it: to or from the
/// world rank `peer`, with the tag train-pipeline gave it.
struct PeerMessage {
  bool send = false;
  int64_t peer = 0;
  int64_t tag = 0;
};

/// The order in which to issue `messages` (indices into it) as NCCL sends
/// and receives of one group. MPI matches a receive to the send with the
/// same tag; NCCL has no tags and matches the sends from one process to
/// another with that process's receives from it in the order each side
/// issues them. Both sides ordering their messages to and from each peer by
/// tag therefore pair the same messages MPI would. The sort is stable: two
/// messages with the same peer, direction and tag keep the order they were
/// posted in, as MPI's non-overtaking rule pairs them.
inline std::vector<size_t>
orderPeerMessages(const std::vector<PeerMessage> &messages) {
  std::vector<size_t> order(messages.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const PeerMessage &x = messages[a], &y = messages[b];
    if (x.peer != y.peer)
      return x.peer < y.peer;
    if (x.send != y.send)
      return x.send;
    return x.tag < y.tag;
  });
  return order;
}

} // namespace memopt::runtime

#endif // MEMOPT_RUNTIME_COLLECTIVES_H
