//===- AllocHook.cpp - live-byte counting allocation functions ------------===//

#include "memopt/Runtime/AllocHook.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace {

/// Sizes and memory spaces of live allocations, and the running totals of
/// the device's memory (live, peak) and of the host's (hostLive, hostPeak).
/// Each allocation counts in the space current when it is made
/// (memopt_memory_space), and its free where it was counted.
struct Tracker {
  std::mutex mutex;
  std::unordered_map<void *, std::pair<uint64_t, bool>> sizes;
  uint64_t live = 0;
  uint64_t peak = 0;
  uint64_t hostLive = 0;
  uint64_t hostPeak = 0;
  uint64_t count = 0;
  bool host = false;
  /// MEMOPT_TRACE_ALLOCS: one stderr line per allocation and free.
  bool trace = std::getenv("MEMOPT_TRACE_ALLOCS") != nullptr;

  void *record(void *ptr, uint64_t size) {
    if (!ptr) {
      if (size == 0)
        return ptr;
      fail(size);
    }
    std::lock_guard<std::mutex> lock(mutex);
    sizes[ptr] = {size, host};
    uint64_t &current = host ? hostLive : live;
    uint64_t &top = host ? hostPeak : peak;
    current += size;
    ++count;
    if (current > top)
      top = current;
    if (trace)
      std::fprintf(stderr, "memopt: alloc %llu live %llu%s\n",
                   static_cast<unsigned long long>(size),
                   static_cast<unsigned long long>(current),
                   host ? " (host)" : "");
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
    auto [size, onHost] = it->second;
    uint64_t &current = onHost ? hostLive : live;
    current -= size;
    if (trace)
      std::fprintf(stderr, "memopt: free %llu live %llu%s\n",
                   static_cast<unsigned long long>(size),
                   static_cast<unsigned long long>(current),
                   onHost ? " (host)" : "");
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
  tracker().hostPeak = tracker().hostLive;
}

extern "C" void memopt_memory_space(int32_t space) {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  tracker().host = space == 1;
}

extern "C" void memopt_memory_copy(uint64_t dst, uint64_t src, uint64_t bytes,
                                   int32_t /*toDevice*/) {
  std::memcpy(reinterpret_cast<void *>(dst),
              reinterpret_cast<const void *>(src), bytes);
}

extern "C" uint64_t memopt_host_live_bytes(void) {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  return tracker().hostLive;
}

extern "C" uint64_t memopt_host_peak_bytes(void) {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  return tracker().hostPeak;
}

extern "C" uint64_t memopt_allocation_count(void) {
  std::lock_guard<std::mutex> lock(tracker().mutex);
  return tracker().count;
}
