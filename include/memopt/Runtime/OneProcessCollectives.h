//===- OneProcessCollectives.h - NCCL for one process ----------*- C++ -*-===//
//
// The collectives memopt-shard-to-nccl's lowered code calls
// (`memopt_nccl_group`, `memopt_nccl_rank`,
// `memopt_nccl_{all_reduce,reduce_scatter,all_gather}_<type>`), implemented
// for a single process on the CPU, so that `mem-run --target=gpu-emulator`
// runs a sharded step without NCCL: a sum, average, product, max or min over
// one process, and a gather or scatter among one, copy their input. A grid
// of more processes is an error at its first collective.
//
// The functions are not exported under the NCCL names (a process may load
// the real or loopback ones too): a JIT maps the names to the addresses
// getOneProcessCollectives() returns. Standard C++ only; part of
// libmemopt_runtime.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_ONEPROCESSCOLLECTIVES_H
#define MEMOPT_RUNTIME_ONEPROCESSCOLLECTIVES_H

#include <cstdint>
#include <string>
#include <vector>

namespace memopt::runtime {

/// A runtime entry point of lowered code and the address that implements it.
struct RuntimeFunction {
  std::string name;
  void *address;
};

/// The NCCL entry points of memopt-shard-to-nccl for one process, for every
/// element type the pass emits (f32, f64, f16, bf16, i8, i32, i64).
std::vector<RuntimeFunction> getOneProcessCollectives();

/// Called when a collective's grid has `processes` > 1 processes; must not
/// return.
using GridSizeHandler = void (*)(int64_t processes);

/// Replaces the handler of a grid of several processes. The default prints
/// `memopt runtime: error: the one-process collectives cannot run a grid of
/// N processes` and exits with status 1. Passing nullptr restores it.
void setOneProcessGridSizeHandler(GridSizeHandler handler);

} // namespace memopt::runtime

#endif // MEMOPT_RUNTIME_ONEPROCESSCOLLECTIVES_H
