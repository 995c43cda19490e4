//===- AllocHook.h - live-byte counting allocation functions ----*- C++ -*-===//
//
// Code lowered with `finalize-memref-to-llvm{use-generic-functions=1}` (as
// memopt-lower-to-cpu does) allocates through the functions below instead of
// malloc/free. This runtime defines them and counts the bytes live at any
// moment and their peak, so the executed program's memory can be compared
// with the predicted one. Thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_ALLOCHOOK_H
#define MEMOPT_RUNTIME_ALLOCHOOK_H

#include <cstdint>

extern "C" {
/// The allocation entry points called by lowered code.
void *_mlir_memref_to_llvm_alloc(uint64_t size);
void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment, uint64_t size);
void _mlir_memref_to_llvm_free(void *ptr);

/// Bytes currently allocated through the entry points above in device
/// memory (the default space).
uint64_t memopt_live_bytes(void);
/// The largest value memopt_live_bytes() reached since the last reset.
uint64_t memopt_peak_bytes(void);
/// Restarts peak tracking (both spaces) from the current live bytes.
void memopt_reset_peak(void);

/// The memory space the allocations that follow count in: 0 the device's,
/// 1 the host's (lowered code brackets host ops with it: train-offload).
/// A free counts where its allocation was counted. On the CPU both are the
/// process's memory; only the accounting differs.
void memopt_memory_space(int32_t space);
/// A copy of `bytes` bytes between the two spaces (the GPU lowering's
/// train.to_host and train.to_device, memopt-gpu-memory-copies), as the
/// emulator runs it: memcpy. The CUDA runtime's runs cuMemcpyAsync.
void memopt_memory_copy(uint64_t dst, uint64_t src, uint64_t bytes,
                        int32_t toDevice);
/// memopt_live_bytes and memopt_peak_bytes of host memory.
uint64_t memopt_host_live_bytes(void);
uint64_t memopt_host_peak_bytes(void);
/// Number of allocations made since the start.
uint64_t memopt_allocation_count(void);
}

#endif // MEMOPT_RUNTIME_ALLOCHOOK_H
