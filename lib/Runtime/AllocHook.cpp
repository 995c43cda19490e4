//===- AllocHook.cpp - live-byte counting allocation functions ------------===//

#include "memopt/Runtime/AllocHook.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

namespace {

/// Sizes of live allocations and the running totals.
struct Tracker {
  std::mutex mutex;
  std::unordered_map<void *, uint64_t> sizes;
  uint64_t live = 0;
  uint64_t peak = 0;
  uint64_t count = 0;
  /// MEMOPT_TRACE_ALLOCS: one stderr line per allocation and free.
  bool trace = std::getenv("MEMOPT_TRACE_ALLOCS") != nullptr;

  void *record(void *ptr, uint64_t size) {
    if (!ptr) {
      if (size == 0)
        return ptr;
      fail(size);
    }
    std::lock_guard<std::mutex> lock(mutex);
    sizes[ptr] = size;
    live += size;
    ++count;
    if (live > peak)
      peak = live;
    if (trace)
      std::fprintf(stderr, "memopt: alloc %llu live %llu\n",
                   static_cast<unsigned long long>(size),
                   static_cast<unsigned long long>(live));
    return ptr;
  }

  /// Lowered code does not check for a null buffer (it would write through
  /// it), so a failed allocation ends the process with an error instead.
  [[noreturn]] void fail(uint64_t size) {
    unsigned long long liveNow;
    {
      std::lock_guard<std::mutex> lock(mutex);
      liveNow = live;
    }
    std::fflush(stdout);
    std::fprintf(stderr,
                 "memopt runtime: error: cannot allocate %llu bytes (out of "
                 "memory, %llu bytes allocated by the step so far)\n",
                 static_cast<unsigned long long>(size), liveNow);
    std::fflush(stderr);
    std::_Exit(EXIT_FAILURE);
  }

  void release(void *ptr) {
    if (!ptr)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sizes.find(ptr);
    if (it == sizes.end())
      return;
    live -= it->second;
    if (trace)
      std::fprintf(stderr, "memopt: free %llu live %llu\n",
                   static_cast<unsigned long long>(it->second),
                   static_cast<unsigned long long>(live));
    sizes.erase(it);
  }
};

Tracker &tracker() {
  static Tracker *instance = new Tracker(); // Outlives static destructors.
  return *instance;
}

/// With MEMOPT_PRINT_PEAK set, print the peak when the process exits (for
/// programs run by mlir-runner).
struct PrintAtExit {
  PrintAtExit() {
    if (std::getenv("MEMOPT_PRINT_PEAK"))
      std::atexit([] {
        std::printf("measured_peak_bytes: %llu\n",
                    static_cast<unsigned long long>(memopt_peak_bytes()));
      });
  }
} printAtExit;

} // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(uint64_t size) {
  return tracker().record(std::malloc(size), size);
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment,
                                                    uint64_t size) {
  // aligned_alloc needs a size that is a multiple of the alignment; the
  // counted size stays the requested one.
  if (alignment == 0 || size > UINT64_MAX - alignment)
    tracker().fail(size);
  uint64_t rounded = (size + alignment - 1) / alignment * alignment;
  return tracker().record(std::aligned_alloc(alignment, rounded), size);
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  tracker().release(ptr);
  std::free(ptr);
}

extern "C" uint64_t memopt_live_bytes(void) {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  return tracker().live;
}

extern "C" uint64_t memopt_peak_bytes(void) {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  return tracker().peak;
}

extern "C" void memopt_reset_peak(void) {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  tracker().peak = tracker().live;
}

extern "C" uint64_t memopt_allocation_count(void) {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  return tracker().count;
}
