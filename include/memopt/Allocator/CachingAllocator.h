//===- CachingAllocator.h - a replay of PyTorch's CUDA caching allocator
//-*-===//
//
// A deterministic simulation of the rules by which PyTorch's CUDA caching
// allocator (c10/cuda/CUDACachingAllocator.cpp) turns a sequence of tensor
// allocations and frees into device memory: what
// torch.cuda.max_memory_allocated() and max_memory_reserved() report for it.
// Pure C++ over LLVM Support; docs/allocator.md is the user's page.
//
// The rules were read in pytorch/pytorch, written here in our own words:
//   - c10/cuda/CUDACachingAllocator.cpp at commit
//     001074d25084fdb87a799823e395a50f5ec044d3 (DeviceCachingAllocator:
//     malloc, free, get_free_block, alloc_block, should_split, round_size,
//     get_allocation_size, garbage_collect_cached_blocks,
//     release_available_cached_blocks, release_cached_blocks, the expandable
//     segments' map_block / unmap_block / find_expandable_block);
//   - c10/core/AllocatorConfig.cpp at 0ac716637f3258efcaf7fdfb851bdd520c9c1441
//     (the PYTORCH_CUDA_ALLOC_CONF keys common to all devices and their
//     values, max_non_split_rounding_mb included) and
//     c10/cuda/CUDAAllocatorConfig.cpp at
//     b944315b93d36f842ef94d67a041371993234a74 (the CUDA keys, among them
//     per_process_memory_fraction).
//
// What is replayed: one device and one stream. A training step in eager mode
// allocates on the current stream only, so every block is on that stream and
// the allocator's per-stream ordering reduces to (size, address).
//
// What is left out, because a replay of one stream's mallocs and frees cannot
// see it: CUDA events and record_stream (a block freed while another stream
// still uses it stays unavailable until its events complete; here a freed
// block is free at once), CUDA graphs and their private memory pools, IPC
// sharing, the free-memory callbacks (trigger_free_memory_callbacks; they free
// nothing in a single process), the cudaMallocAsync backend, memory outside
// the allocator (the CUDA context, other processes: give --device-memory as
// what the allocator may use), the inactive_split and oversize statistics.
// The driver's addresses are not known: each new segment lies above all
// earlier ones, which decides only between free blocks of equal size.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ALLOCATOR_CACHINGALLOCATOR_H
#define MEMOPT_ALLOCATOR_CACHINGALLOCATOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace mlir::memopt::allocator {

inline constexpr int64_t kMiB = int64_t(1) << 20;
/// Every request is rounded up to a multiple of this (kMinBlockSize).
inline constexpr int64_t kMinBlockSize = 512;
/// The largest request of the small pool (kSmallSize).
inline constexpr int64_t kSmallSize = kMiB;
/// The small pool's segments and expandable pages (kSmallBuffer).
inline constexpr int64_t kSmallBuffer = 2 * kMiB;
/// The segment of a large request below kMinLargeAlloc, the large pool's
/// expandable page, and the default max_non_split_rounding (kLargeBuffer).
inline constexpr int64_t kLargeBuffer = 20 * kMiB;
/// Large requests below this get a kLargeBuffer segment (kMinLargeAlloc).
inline constexpr int64_t kMinLargeAlloc = 10 * kMiB;
/// Larger requests get a segment rounded up to this (kRoundLarge).
inline constexpr int64_t kRoundLarge = 2 * kMiB;
/// PyTorch refuses a request of 1 EiB or more before the allocator sees it.
inline constexpr int64_t kMaxRequest = int64_t(1) << 60;
/// roundup_power2_divisions has one entry per power-of-two interval of sizes:
/// [0, 2 MiB), [2 MiB, 4 MiB), ..., [32 GiB, infinity).
inline constexpr size_t kRoundupIntervals = 16;
/// max_split_size when PYTORCH_CUDA_ALLOC_CONF does not set it (no limit).
inline constexpr int64_t kNoMaxSplitSize = std::numeric_limits<int64_t>::max();

/// The options of PYTORCH_CUDA_ALLOC_CONF that change device memory.
struct CachingAllocatorConfig {
  /// max_split_size_mb, in bytes: cached blocks this large are never split,
  /// and serve only requests of at least this size.
  int64_t maxSplitSize = kNoMaxSplitSize;
  /// max_non_split_rounding_mb, in bytes: a request of at least maxSplitSize
  /// takes a cached block only if the block is less than this much larger.
  int64_t maxNonSplitRounding = kLargeBuffer;
  /// roundup_power2_divisions, one entry per interval (see kRoundupIntervals);
  /// 0 or 1: round to 512 bytes only.
  std::array<int64_t, kRoundupIntervals> roundupPower2Divisions{};
  /// garbage_collection_threshold; 0: off. It acts only under a memory
  /// fraction (per_process_memory_fraction or setMemoryFraction).
  double garbageCollectionThreshold = 0.0;
  /// expandable_segments:True.
  bool expandableSegments = false;
  /// per_process_memory_fraction: the share of the device memory the
  /// allocator may reserve, as torch.cuda.set_per_process_memory_fraction.
  std::optional<double> perProcessMemoryFraction;

  bool hasMaxSplitSize() const { return maxSplitSize != kNoMaxSplitSize; }
  /// The divisions roundup_power2_divisions gives a request of `size` bytes.
  int64_t divisionsFor(int64_t size) const;

  /// Parses a PYTORCH_CUDA_ALLOC_CONF string, e.g.
  /// "expandable_segments:True,max_split_size_mb:128" or
  /// "roundup_power2_divisions:[256:1,512:2,>:4]". Fails with a message that
  /// names the key and the value for an unknown key, a malformed or out of
  /// range value, or the cudaMallocAsync backend (not replayed). Keys that
  /// do not change device memory (pinned memory, locking) are checked and
  /// ignored. An empty string is the default configuration.
  static llvm::Expected<CachingAllocatorConfig> parse(llvm::StringRef text);
};

/// round_size: the block size a request of `bytes` (> 0) is served with.
int64_t roundAllocationRequest(const CachingAllocatorConfig &config,
                               int64_t bytes);
/// get_allocation_size: the segment cudaMalloc'ed for a rounded request that
/// no cached block serves.
int64_t segmentSizeFor(int64_t roundedBytes);

/// One statistic as PyTorch keeps it: its current value and its peak since
/// the start or the last resetPeaks().
struct AllocatorStat {
  int64_t current = 0;
  int64_t peak = 0;
  void increase(int64_t amount);
  void decrease(int64_t amount) { current -= amount; }
};

/// The aggregate statistics of torch.cuda.memory_stats() the replay keeps.
struct CachingAllocatorStats {
  /// allocated_bytes: the sizes of the blocks handed out (rounded sizes);
  /// its peak is max_memory_allocated().
  AllocatorStat allocatedBytes;
  /// requested_bytes: the sizes the program asked for.
  AllocatorStat requestedBytes;
  /// active_bytes (equal to allocated_bytes on one stream without events).
  AllocatorStat activeBytes;
  /// reserved_bytes: cudaMalloc'ed segments plus mapped expandable pages;
  /// its peak is max_memory_reserved().
  AllocatorStat reservedBytes;
  /// allocation: live allocations.
  AllocatorStat allocations;
  /// active: live blocks.
  AllocatorStat activeBlocks;
  /// segment: cudaMalloc'ed segments (expandable segments are not counted,
  /// as in PyTorch; their maps count in deviceAllocs).
  AllocatorStat segments;
  /// num_device_alloc: cudaMalloc calls and expandable maps.
  int64_t deviceAllocs = 0;
  /// num_device_free: cudaFree calls and expandable unmaps.
  int64_t deviceFrees = 0;
  /// num_alloc_retries: allocations retried after emptying the cache.
  int64_t allocRetries = 0;
  /// num_ooms.
  int64_t ooms = 0;
};

/// Why an allocation failed, with the state at that moment.
struct AllocationFailure {
  /// The request, its rounded block size and the segment size PyTorch's
  /// message names ("Tried to allocate ...").
  int64_t requestedBytes = 0;
  int64_t roundedBytes = 0;
  int64_t segmentBytes = 0;
  /// The statistics after the allocator released what it could.
  CachingAllocatorStats stats;
  /// True when PyTorch would fail an internal assertion here rather than
  /// report out of memory: releasing a cached block of an expandable segment
  /// to make room under max_split_size (release_block asserts that the
  /// block is not expandable).
  bool internalAssert = false;
  /// One line for users, like PyTorch's "CUDA out of memory" message.
  std::string message;
};

/// The outcome of one allocation.
struct MallocResult {
  /// The block size handed out (0 for a zero-byte request, which PyTorch
  /// serves without a block).
  int64_t blockBytes = 0;
  /// Set when the allocation failed; the allocator state is then as PyTorch
  /// leaves it before raising OutOfMemoryError.
  std::optional<AllocationFailure> failure;
  bool succeeded() const { return !failure; }
};

/// One block of a segment, for snapshot().
struct BlockSnapshot {
  int64_t size = 0;
  bool allocated = false;
  /// False for the not yet mapped part of an expandable segment.
  bool mapped = true;
};

/// One segment, as torch.cuda.memory_snapshot() lists them (an expandable
/// segment is listed whole, its unmapped ranges included).
struct SegmentSnapshot {
  bool smallPool = false;
  bool expandable = false;
  std::vector<BlockSnapshot> blocks;
};

/// The replay: one DeviceCachingAllocator on one stream. Deterministic:
/// the same calls give the same statistics.
class CachingAllocatorReplay {
public:
  /// `deviceMemoryBytes`: what cudaMalloc and the expandable maps may
  /// reserve in all (none: unlimited). per_process_memory_fraction needs it.
  static llvm::Expected<CachingAllocatorReplay>
  create(const CachingAllocatorConfig &config,
         std::optional<int64_t> deviceMemoryBytes = std::nullopt);

  /// Allocates `bytes` for the tensor `id`. Fails (an llvm::Error) when `id`
  /// is live or `bytes` is negative; running out of memory is a result.
  llvm::Expected<MallocResult> malloc(int64_t id, int64_t bytes);
  /// Frees the tensor `id`; fails when it is not live.
  llvm::Error free(int64_t id);
  /// torch.cuda.empty_cache(): releases every cached segment that is whole
  /// free, and unmaps the free pages of expandable segments.
  void emptyCache();
  /// torch.cuda.reset_peak_memory_stats(): every peak becomes the current
  /// value.
  void resetPeaks();
  /// torch.cuda.set_per_process_memory_fraction(fraction); needs the device
  /// memory, fraction in [0, 1].
  llvm::Error setMemoryFraction(double fraction);

  const CachingAllocatorStats &stats() const { return currentStats; }
  /// The segments in address order.
  std::vector<SegmentSnapshot> snapshot() const;
  /// An independent check of the state: the blocks of every segment tile
  /// it, neighbours that are both free are merged, the pools hold exactly
  /// the free blocks, and the statistics equal the sums over the blocks.
  llvm::Error checkConsistency() const;

private:
  enum class PoolKind : uint8_t { Small, Large };
  struct Block {
    /// The segment (its serial number; segments are ordered by it) and the
    /// offset in it: the block's address.
    int64_t segment = 0;
    int64_t offset = 0;
    int64_t size = 0;
    int64_t requested = 0;
    int prev = -1;
    int next = -1;
    PoolKind pool = PoolKind::Large;
    bool allocated = false;
    bool mapped = true;
    bool expandable = false;
    bool live = false;
    /// The pool's get_free_block count when the block was cached.
    int64_t gcCountBase = 0;
  };
  /// Free blocks by (size, segment, offset), as BlockComparatorSize.
  using SizeKey = std::tuple<int64_t, int64_t, int64_t, int>;
  /// Unmapped blocks by address, as BlockComparatorAddress.
  using AddressKey = std::tuple<int64_t, int64_t, int>;
  struct Pool {
    bool small = false;
    std::set<SizeKey> blocks;
    std::set<AddressKey> unmapped;
    int64_t freeBlockCalls = 0;
  };
  struct Segment {
    bool live = false;
    bool expandable = false;
    int64_t pageSize = 0;
    /// The address space of an expandable segment, a multiple of pageSize.
    int64_t bytes = 0;
    int head = -1;
  };

  CachingAllocatorReplay(const CachingAllocatorConfig &config,
                         std::optional<int64_t> deviceMemoryBytes);

  Pool &poolOf(const Block &block) {
    return block.pool == PoolKind::Small ? smallPool : largePool;
  }
  int newBlock();
  void deleteBlock(int index);
  void cacheBlock(int index);
  void uncacheBlock(int index);
  bool isSplit(int index) const {
    return blocks[index].prev >= 0 || blocks[index].next >= 0;
  }
  bool gcEnabled() const;
  int64_t capacity() const;

  int getFreeBlock(Pool &pool, int64_t size);
  bool shouldSplit(int index, int64_t size) const;
  int allocFoundBlock(int index, int64_t size, int64_t requested);
  int allocBlock(Pool &pool, int64_t size, int64_t segmentBytes, bool retry);
  void freeBlock(int index);
  int64_t tryMerge(int dst, int src);
  void garbageCollect();
  bool releaseAvailableCachedBlocks(Pool &pool, int64_t size);
  void releaseCachedBlocks();
  void releaseBlocks(Pool &pool);
  void releaseBlock(int index);

  int tryAllocateExpandable(Pool &pool, int64_t size);
  int findExpandableBlock(Pool &pool, int64_t size);
  bool mapBlock(int index, int64_t size);
  void unmapBlock(int index);
  void releaseExpandableSegment(int index);
  int64_t expandableSize(int index) const;

  AllocationFailure describeFailure(int64_t requested, int64_t rounded,
                                    int64_t segmentBytes) const;

  CachingAllocatorConfig config;
  std::optional<int64_t> deviceMemory;
  /// allowed_memory_maximum, set by a memory fraction.
  std::optional<int64_t> allowedMemory;
  CachingAllocatorStats currentStats;
  std::vector<Block> blocks;
  std::vector<int> freeSlots;
  std::vector<Segment> segments;
  Pool smallPool;
  Pool largePool;
  /// Live tensors: their block (-1 for zero bytes).
  llvm::DenseMap<int64_t, int> liveTensors;
  /// Set by releaseAvailableCachedBlocks when PyTorch would assert.
  bool sawInternalAssert = false;
};

/// One event of a replay.
struct AllocatorEvent {
  enum class Kind { Malloc, Free, EmptyCache, ResetPeaks };
  Kind kind = Kind::Malloc;
  int64_t id = 0;
  int64_t bytes = 0;

  static AllocatorEvent malloc(int64_t id, int64_t bytes) {
    return {Kind::Malloc, id, bytes};
  }
  static AllocatorEvent free(int64_t id) { return {Kind::Free, id, 0}; }
  static AllocatorEvent emptyCache() { return {Kind::EmptyCache, 0, 0}; }
  static AllocatorEvent resetPeaks() { return {Kind::ResetPeaks, 0, 0}; }
};

/// The result of replayAllocatorEvents.
struct AllocatorReplayResult {
  /// The statistics after the last event replayed.
  CachingAllocatorStats stats;
  /// Set when an allocation failed; the replay stops there, as the step
  /// stops at PyTorch's OutOfMemoryError.
  std::optional<AllocationFailure> failure;
  /// The index of the failed event.
  size_t failedEvent = 0;
};

/// Replays `events` in order on a fresh allocator. Fails (an llvm::Error
/// naming the event) on a malloc of a live id, a free of an id that is not
/// live, a negative size, or a configuration that create() refuses.
llvm::Expected<AllocatorReplayResult>
replayAllocatorEvents(llvm::ArrayRef<AllocatorEvent> events,
                      const CachingAllocatorConfig &config,
                      std::optional<int64_t> deviceMemoryBytes = std::nullopt);

} // namespace mlir::memopt::allocator

#endif // MEMOPT_ALLOCATOR_CACHINGALLOCATOR_H
