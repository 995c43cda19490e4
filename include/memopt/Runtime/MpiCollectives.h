//===- MpiCollectives.h - the collectives on MPI, for CPU runs --*- C++ -*-===//
//
// The collective runtime ABI of memopt-shard-to-nccl's lowered code,
// implemented with MPI for runs of several CPU processes under `mpiexec`:
// `memopt_mpi_group`, `memopt_mpi_rank` and
// `memopt_mpi_{all_reduce,reduce_scatter,all_gather}_<type>`, with the C
// signatures of the `memopt_nccl_*` ones (OneProcessCollectives.h). A grid
// group is a communicator made with MPI_Comm_create_group, once per (grid
// shape, axes) at its first use and kept; the grid must hold exactly the
// world's processes. f16 and bf16 are reduced in float and rounded back (to
// nearest, ties to even); an average is a sum divided by the group's size.
//
// Like the one-process collectives, the functions are not exported under
// their names: a JIT maps the names to the addresses getMpiCollectives()
// returns. The helpers below let a host tool (mem-run) start and stop MPI
// and combine per-process results. Part of libmemopt_mpi_runtime (built
// when CMake finds MPI); MPI's C API only.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_MPICOLLECTIVES_H
#define MEMOPT_RUNTIME_MPICOLLECTIVES_H

#include "memopt/Runtime/OneProcessCollectives.h"

#include <cstdint>
#include <string>
#include <vector>

namespace memopt::runtime {

/// The MPI entry points of lowered code, for every element type the lowering
/// emits (f32, f64, f16, bf16, i8, i32, i64):
///   memopt_mpi_group(g0, g1, g2, g3, a0, a1, a2, a3) -> group id
///   memopt_mpi_rank() -> the world rank
///   memopt_mpi_all_reduce_<t>(group, sendRank, send, recvRank, recv,
///                             count, op)
///   memopt_mpi_reduce_scatter_<t>(group, sendRank, send, recvRank, recv,
///                                 recvCount, op)
///   memopt_mpi_all_gather_<t>(group, sendRank, send, recvRank, recv,
///                             sendCount)
///   memopt_mpi_p2p_{send,recv}_<t>(rankDelta, tag, buffer, count): posts
///     a pipeline message to or from the process rankDelta ranks away
///   memopt_mpi_p2p_wait(): waits for every posted message
///   memopt_mpi_p2p_sent_<t>(buffer): the end of a sent buffer's use
/// Op codes: 0 sum, 1 product, 2 max, 3 min, 4 average (floats only).
/// MPI is initialized at the first call if mpiInitialize was not called.
std::vector<RuntimeFunction> getMpiCollectives();

/// The same functions under the NCCL entry points' names (memopt_nccl_*),
/// for emulated GPU code in a run of several processes, except that the
/// pipeline messages behave as the CUDA runtime's: held until
/// memopt_nccl_p2p_wait, then paired in the order that runtime issues them
/// to NCCL (orderPeerMessages in Collectives.h) rather than by tag.
std::vector<RuntimeFunction> getMpiCollectivesAsNccl();

/// MPI_Init (MPI_THREAD_SERIALIZED requested) unless MPI is already
/// initialized. Works in a process that mpiexec did not start (MPICH's
/// singleton init: a world of one). `argc` and `argv` may be null.
void mpiInitialize(int *argc, char ***argv);

/// MPI_Finalize if MPI was initialized and is not finalized yet.
void mpiFinalize();

/// This process's rank in MPI_COMM_WORLD, and the world's size
/// (initializing MPI if needed).
int64_t mpiWorldRank();
int64_t mpiWorldSize();

/// The world's size if MPI is running (initialized, not finalized), else 0;
/// never starts MPI.
int64_t mpiStartedWorldSize();

/// The sum of `value` over every process of the world (MPI_Allreduce).
double mpiSumDouble(double value);

/// `value` of every process of the world, in rank order (MPI_Allgather).
std::vector<int64_t> mpiGatherInt64(int64_t value);

/// MPI_Barrier over the world.
void mpiBarrier();

/// Sends `bytes` from process `root` to every process of the world, where
/// they replace `bytes`. The others wait for `root` sleeping between tests
/// of a nonblocking broadcast, not spinning in MPI: processes oversubscribed
/// on few cores leave `root` the CPU while it works (mem-run: while it
/// compiles the step for all of them).
void mpiBroadcastBytes(std::string &bytes, int64_t root);

} // namespace memopt::runtime

#endif // MEMOPT_RUNTIME_MPICOLLECTIVES_H
