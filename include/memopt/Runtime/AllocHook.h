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

/// Bytes currently allocated through the entry points above.
uint64_t memopt_live_bytes(void);
/// The largest value memopt_live_bytes() reached since the last reset.
uint64_t memopt_peak_bytes(void);
/// Restarts peak tracking from the current live bytes.
void memopt_reset_peak(void);
/// Number of allocations made since the start.
uint64_t memopt_allocation_count(void);
}

#endif // MEMOPT_RUNTIME_ALLOCHOOK_H
