//===- CachingAllocatorTest.cpp - the replay of PyTorch's CUDA allocator --===//
//
// One test per rule of c10/cuda/CUDACachingAllocator.cpp (pytorch/pytorch
// 001074d25084fdb87a799823e395a50f5ec044d3) that the replay implements, with
// the expected numbers derived by hand in the comments, and the cases
// docs/allocator.md documents. Every test ends with checkConsistency(), which
// recomputes the statistics from the blocks.
//
//===----------------------------------------------------------------------===//

#include "memopt/Allocator/CachingAllocator.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir::memopt::allocator;

namespace {

constexpr int64_t MiB = kMiB;
constexpr int64_t KiB = 1024;

CachingAllocatorConfig parseOk(llvm::StringRef conf) {
  llvm::Expected<CachingAllocatorConfig> config =
      CachingAllocatorConfig::parse(conf);
  if (!config) {
    ADD_FAILURE() << conf.str() << ": " << llvm::toString(config.takeError());
    return {};
  }
  return *config;
}

CachingAllocatorReplay make(llvm::StringRef conf = "",
                            std::optional<int64_t> device = std::nullopt) {
  llvm::Expected<CachingAllocatorReplay> replay =
      CachingAllocatorReplay::create(parseOk(conf), device);
  if (!replay) {
    ADD_FAILURE() << llvm::toString(replay.takeError());
    return std::move(*CachingAllocatorReplay::create({}));
  }
  return std::move(*replay);
}

/// Allocates and expects success; returns the block size.
int64_t alloc(CachingAllocatorReplay &replay, int64_t id, int64_t bytes) {
  llvm::Expected<MallocResult> result = replay.malloc(id, bytes);
  if (!result) {
    ADD_FAILURE() << llvm::toString(result.takeError());
    return -1;
  }
  EXPECT_TRUE(result->succeeded())
      << "malloc(" << id << ", " << bytes
      << "): " << (result->failure ? result->failure->message : "");
  return result->blockBytes;
}

void release(CachingAllocatorReplay &replay, int64_t id) {
  if (llvm::Error err = replay.free(id))
    ADD_FAILURE() << llvm::toString(std::move(err));
}

void expectConsistent(const CachingAllocatorReplay &replay) {
  if (llvm::Error err = replay.checkConsistency())
    ADD_FAILURE() << llvm::toString(std::move(err));
}

std::string parseError(llvm::StringRef conf) {
  llvm::Expected<CachingAllocatorConfig> config =
      CachingAllocatorConfig::parse(conf);
  if (config)
    return "(parsed)";
  return llvm::toString(config.takeError());
}

//===----------------------------------------------------------------------===//
// round_size and get_allocation_size
//===----------------------------------------------------------------------===//

// round_size: below 512 bytes, 512; else up to a multiple of 512. The
// allocated_bytes statistic counts the rounded block, requested_bytes the
// request.
TEST(CachingAllocator, RoundsTo512Bytes) {
  CachingAllocatorConfig config;
  EXPECT_EQ(roundAllocationRequest(config, 1), 512);
  EXPECT_EQ(roundAllocationRequest(config, 512), 512);
  EXPECT_EQ(roundAllocationRequest(config, 513), 1024);
  EXPECT_EQ(roundAllocationRequest(config, MiB + 1), MiB + 512);
  CachingAllocatorReplay replay = make();
  EXPECT_EQ(alloc(replay, 1, 1), 512);
  EXPECT_EQ(replay.stats().allocatedBytes.current, 512);
  EXPECT_EQ(replay.stats().requestedBytes.current, 1);
  // The small pool's 2 MiB segment.
  EXPECT_EQ(replay.stats().reservedBytes.current, 2 * MiB);
  expectConsistent(replay);
}

// roundup_power2_divisions:N rounds a request above 512 x N up to the next
// of N equal steps between its powers of two: 20 MiB + 1 lies in
// [16, 32) MiB, steps of 4 MiB: 24 MiB; exactly 20 MiB stays. With 2
// divisions, 1.5 MiB + 1 lies in [1, 2) MiB, steps of 512 KiB: 2 MiB. At or
// below 512 x N the 512-byte rounding applies (1200 -> 1536 with 4).
TEST(CachingAllocator, RoundupPower2Divisions) {
  CachingAllocatorConfig four = parseOk("roundup_power2_divisions:4");
  EXPECT_EQ(roundAllocationRequest(four, 20 * MiB + 1), 24 * MiB);
  EXPECT_EQ(roundAllocationRequest(four, 20 * MiB), 20 * MiB);
  EXPECT_EQ(roundAllocationRequest(four, 1200), 1536);
  CachingAllocatorConfig two = parseOk("roundup_power2_divisions:2");
  EXPECT_EQ(roundAllocationRequest(two, 3 * MiB / 2 + 1), 2 * MiB);
  // In the replay: the block is 24 MiB, and its segment too
  // (get_allocation_size of 24 MiB).
  CachingAllocatorReplay replay = make("roundup_power2_divisions:4");
  EXPECT_EQ(alloc(replay, 1, 20 * MiB + 1), 24 * MiB);
  EXPECT_EQ(replay.stats().reservedBytes.current, 24 * MiB);
  expectConsistent(replay);
}

// The per-interval form. Intervals are powers of two in MiB; 256 is index
// 8 = sizes in [256, 512) MiB; the first entry also covers the intervals
// below it, '>' those after the last one named. So: below 512 MiB 1
// division, [512 MiB, 1 GiB) 2, from 1 GiB on 4.
//   300 MiB + 1 -> 512 rounding: 300 MiB + 512;
//   600 MiB + 1 -> steps of 256 MiB in [512, 1024): 768 MiB (with 4
//   divisions, had '>' overwritten the 512 entry: 640 MiB);
//   1.25 GiB + 1 -> steps of 256 MiB in [1, 2) GiB: 1.5 GiB.
TEST(CachingAllocator, RoundupPower2DivisionsPerInterval) {
  CachingAllocatorConfig config =
      parseOk("roundup_power2_divisions:[256:1,512:2,>:4]");
  EXPECT_EQ(config.divisionsFor(MiB), 1);
  EXPECT_EQ(config.divisionsFor(300 * MiB), 1);
  EXPECT_EQ(config.divisionsFor(600 * MiB), 2);
  EXPECT_EQ(config.divisionsFor(2048 * MiB), 4);
  EXPECT_EQ(roundAllocationRequest(config, 300 * MiB + 1), 300 * MiB + 512);
  EXPECT_EQ(roundAllocationRequest(config, 600 * MiB + 1), 768 * MiB);
  EXPECT_EQ(roundAllocationRequest(config, 1280 * MiB + 1), 1536 * MiB);
  // Blanks are dropped, as PyTorch's tokenizer does.
  CachingAllocatorConfig spaced =
      parseOk(" roundup_power2_divisions : [ 256 : 1 , 512 : 2 , > : 4 ] ");
  EXPECT_EQ(spaced.roundupPower2Divisions, config.roundupPower2Divisions);
}

// get_allocation_size: 2 MiB for the small pool (<= 1 MiB), 20 MiB below
// 10 MiB, else rounded up to 2 MiB.
TEST(CachingAllocator, SegmentSizes) {
  EXPECT_EQ(segmentSizeFor(512), 2 * MiB);
  EXPECT_EQ(segmentSizeFor(MiB), 2 * MiB);
  EXPECT_EQ(segmentSizeFor(MiB + 512), 20 * MiB);
  EXPECT_EQ(segmentSizeFor(10 * MiB - 512), 20 * MiB);
  EXPECT_EQ(segmentSizeFor(10 * MiB), 10 * MiB);
  EXPECT_EQ(segmentSizeFor(11 * MiB + 512), 12 * MiB);
  // 11 MiB + 1 rounds to 11 MiB + 512 in a 12 MiB segment; the rest,
  // 1 MiB - 512, is not more than 1 MiB, so the block is not split and the
  // whole 12 MiB counts as allocated.
  CachingAllocatorReplay replay = make();
  EXPECT_EQ(alloc(replay, 1, 11 * MiB + 1), 12 * MiB);
  EXPECT_EQ(replay.stats().allocatedBytes.current, 12 * MiB);
  EXPECT_EQ(replay.stats().requestedBytes.current, 11 * MiB + 1);
  expectConsistent(replay);
}

//===----------------------------------------------------------------------===//
// Pools, best fit, splitting, merging
//===----------------------------------------------------------------------===//

// The small pool: two 1 MiB requests share one 2 MiB segment (the rest of
// the first, 1 MiB >= 512 bytes, is split off); a third request needs a
// second segment. A small request never takes a large-pool block: a cached
// 15 MiB rest of a 20 MiB segment does not serve 1000 bytes.
TEST(CachingAllocator, SmallPool) {
  CachingAllocatorReplay replay = make();
  alloc(replay, 1, MiB);
  alloc(replay, 2, MiB);
  EXPECT_EQ(replay.stats().reservedBytes.current, 2 * MiB);
  EXPECT_EQ(replay.stats().segments.current, 1);
  alloc(replay, 3, 1);
  EXPECT_EQ(replay.stats().reservedBytes.current, 4 * MiB);

  CachingAllocatorReplay mixed = make();
  alloc(mixed, 1, 5 * MiB); // 20 MiB segment: 5 allocated, 15 cached
  release(mixed, 1);
  alloc(mixed, 2, 1000);
  EXPECT_EQ(mixed.stats().reservedBytes.current, 22 * MiB);
  expectConsistent(replay);
  expectConsistent(mixed);
}

// Best fit: cached 30 and 24 MiB segments; 22 MiB takes the 24 (rest 2 MiB
// > 1 MiB is split off), so 30 MiB then fits the cached 30: 54 MiB reserved,
// 2 cudaMallocs. (Had 22 taken the 30, 30 would need a third segment: 84.)
TEST(CachingAllocator, BestFit) {
  CachingAllocatorReplay replay = make();
  alloc(replay, 1, 30 * MiB);
  alloc(replay, 2, 24 * MiB);
  release(replay, 1);
  release(replay, 2);
  alloc(replay, 3, 22 * MiB);
  alloc(replay, 4, 30 * MiB);
  EXPECT_EQ(replay.stats().reservedBytes.current, 54 * MiB);
  EXPECT_EQ(replay.stats().deviceAllocs, 2);
  expectConsistent(replay);
}

// Equal sizes: the lower address (the older segment) wins. Two 16 MiB
// segments, both cached; 8 MiB splits the first.
TEST(CachingAllocator, BestFitTieByAddress) {
  CachingAllocatorReplay replay = make();
  alloc(replay, 1, 16 * MiB);
  alloc(replay, 2, 16 * MiB);
  release(replay, 2);
  release(replay, 1);
  alloc(replay, 3, 8 * MiB);
  std::vector<SegmentSnapshot> segments = replay.snapshot();
  ASSERT_EQ(segments.size(), 2u);
  ASSERT_EQ(segments[0].blocks.size(), 2u);
  EXPECT_TRUE(segments[0].blocks[0].allocated);
  EXPECT_EQ(segments[0].blocks[0].size, 8 * MiB);
  ASSERT_EQ(segments[1].blocks.size(), 1u);
  EXPECT_FALSE(segments[1].blocks[0].allocated);
  expectConsistent(replay);
}

// max_split_size_mb:64. A cached 100 MiB block is oversize:
//   90 MiB (>= 64) takes it, 100 - 90 = 10 < 20 MiB (kLargeBuffer): the
//   whole 100 MiB is allocated, never split;
//   70 MiB may not: 100 - 70 = 30 >= 20: a new 70 MiB segment (170);
//   30 MiB (< 64) may not take an oversize block: a new segment (200).
// Without the option 70 MiB splits the 100 MiB block: 100 reserved.
// max_non_split_rounding_mb:40 lets 70 MiB take it (30 < 40).
TEST(CachingAllocator, MaxSplitSize) {
  CachingAllocatorReplay replay = make("max_split_size_mb:64");
  alloc(replay, 1, 100 * MiB);
  release(replay, 1);
  EXPECT_EQ(alloc(replay, 2, 90 * MiB), 100 * MiB);
  EXPECT_EQ(replay.stats().reservedBytes.current, 100 * MiB);
  release(replay, 2);
  alloc(replay, 3, 70 * MiB);
  EXPECT_EQ(replay.stats().reservedBytes.current, 170 * MiB);
  alloc(replay, 4, 30 * MiB);
  EXPECT_EQ(replay.stats().reservedBytes.current, 200 * MiB);
  expectConsistent(replay);

  CachingAllocatorReplay plain = make();
  alloc(plain, 1, 100 * MiB);
  release(plain, 1);
  EXPECT_EQ(alloc(plain, 3, 70 * MiB), 70 * MiB);
  EXPECT_EQ(plain.stats().reservedBytes.current, 100 * MiB);
  expectConsistent(plain);

  CachingAllocatorReplay rounding =
      make("max_split_size_mb:64,max_non_split_rounding_mb:40");
  alloc(rounding, 1, 100 * MiB);
  release(rounding, 1);
  EXPECT_EQ(alloc(rounding, 3, 70 * MiB), 100 * MiB);
  EXPECT_EQ(rounding.stats().reservedBytes.current, 100 * MiB);
  expectConsistent(rounding);
}

// should_split, large pool: the rest must exceed 1 MiB. 19 MiB gets a
// 20 MiB segment, rest exactly 1 MiB: not split, 20 MiB allocated.
// 18 MiB + 512 gets a 20 MiB segment, rest 1.5 MiB - 512 > 1 MiB: split.
// Small pool: a rest of 512 bytes is split off (>= 512): 1 MiB + (1 MiB -
// 512) leave 512 bytes, which then serve a 1-byte request.
TEST(CachingAllocator, ShouldSplit) {
  CachingAllocatorReplay replay = make();
  EXPECT_EQ(alloc(replay, 1, 19 * MiB), 20 * MiB);
  EXPECT_EQ(alloc(replay, 2, 18 * MiB + 512), 18 * MiB + 512);
  EXPECT_EQ(replay.stats().allocatedBytes.current, 38 * MiB + 512);
  expectConsistent(replay);

  CachingAllocatorReplay small = make();
  alloc(small, 1, MiB);
  EXPECT_EQ(alloc(small, 2, MiB - 512), MiB - 512);
  EXPECT_EQ(alloc(small, 3, 1), 512);
  EXPECT_EQ(small.stats().reservedBytes.current, 2 * MiB);
  EXPECT_EQ(small.stats().segments.current, 1);
  expectConsistent(small);
}

// free_block merges with free neighbours: 5 + 5 + 10 MiB of one 20 MiB
// segment, freed in either order, become one 20 MiB block that serves a
// 20 MiB request without a new segment.
TEST(CachingAllocator, FreeMergesNeighbours) {
  for (bool firstFirst : {true, false}) {
    CachingAllocatorReplay replay = make();
    alloc(replay, 1, 5 * MiB);
    alloc(replay, 2, 5 * MiB);
    release(replay, firstFirst ? 1 : 2);
    release(replay, firstFirst ? 2 : 1);
    std::vector<SegmentSnapshot> segments = replay.snapshot();
    ASSERT_EQ(segments.size(), 1u);
    ASSERT_EQ(segments[0].blocks.size(), 1u);
    EXPECT_EQ(segments[0].blocks[0].size, 20 * MiB);
    alloc(replay, 3, 20 * MiB);
    EXPECT_EQ(replay.stats().reservedBytes.current, 20 * MiB);
    EXPECT_EQ(replay.stats().deviceAllocs, 1);
    expectConsistent(replay);
  }
}

//===----------------------------------------------------------------------===//
// A full device: release and retry, garbage collection, out of memory
//===----------------------------------------------------------------------===//

// 100 MiB device. A cached 60 MiB segment cannot serve 70 MiB, and 60 + 70
// > 100: cudaMalloc fails; without max_split_size nothing oversize is
// released; release_cached_blocks frees the 60 and the retry succeeds:
// 70 reserved, peak 70, one retry, one cudaFree.
TEST(CachingAllocator, FullDeviceEmptiesCacheAndRetries) {
  CachingAllocatorReplay replay = make("", 100 * MiB);
  alloc(replay, 1, 60 * MiB);
  release(replay, 1);
  alloc(replay, 2, 70 * MiB);
  EXPECT_EQ(replay.stats().reservedBytes.current, 70 * MiB);
  EXPECT_EQ(replay.stats().reservedBytes.peak, 70 * MiB);
  EXPECT_EQ(replay.stats().allocRetries, 1);
  EXPECT_EQ(replay.stats().deviceFrees, 1);
  expectConsistent(replay);
}

// release_available_cached_blocks under max_split_size_mb:20:
//   150 MiB device, cached 30 and 80 MiB; 50 MiB may not take the 80
//   (80 - 50 >= 20); 110 + 50 > 150 fails; the smallest cached block >=
//   max(50, 20) is the 80: released, retry: 30 + 50 = 80 reserved, no
//   retry counted (only release_cached_blocks' retry counts).
//   100 MiB device, cached 30 and 40 MiB; 50 MiB: no block >= 50, so the
//   oversize blocks from the largest down until 50 is reached: 40, then 30.
TEST(CachingAllocator, ReleasesOversizeCachedBlocks) {
  CachingAllocatorReplay one = make("max_split_size_mb:20", 150 * MiB);
  alloc(one, 1, 30 * MiB);
  alloc(one, 2, 80 * MiB);
  release(one, 1);
  release(one, 2);
  alloc(one, 3, 50 * MiB);
  EXPECT_EQ(one.stats().reservedBytes.current, 80 * MiB);
  EXPECT_EQ(one.stats().deviceFrees, 1);
  EXPECT_EQ(one.stats().allocRetries, 0);
  expectConsistent(one);

  CachingAllocatorReplay several = make("max_split_size_mb:20", 100 * MiB);
  alloc(several, 1, 30 * MiB);
  alloc(several, 2, 40 * MiB);
  release(several, 1);
  release(several, 2);
  alloc(several, 3, 50 * MiB);
  EXPECT_EQ(several.stats().reservedBytes.current, 50 * MiB);
  EXPECT_EQ(several.stats().deviceFrees, 2);
  EXPECT_EQ(several.stats().allocRetries, 0);
  expectConsistent(several);
}

// Out of memory is a result. 100 MiB device: 60 MiB live, 30 MiB cached;
// 50 MiB fails, the cache is emptied (the 30 goes back), the retry fails:
// the failure reports the state then (60 allocated, 60 reserved), one OOM,
// one retry. The replay goes on: 40 MiB fits.
TEST(CachingAllocator, OutOfMemoryIsAResult) {
  CachingAllocatorReplay replay = make("", 100 * MiB);
  alloc(replay, 1, 60 * MiB);
  alloc(replay, 2, 30 * MiB);
  release(replay, 2);
  llvm::Expected<MallocResult> result = replay.malloc(3, 50 * MiB);
  ASSERT_TRUE(static_cast<bool>(result));
  ASSERT_FALSE(result->succeeded());
  const AllocationFailure &failure = *result->failure;
  EXPECT_EQ(failure.requestedBytes, 50 * MiB);
  EXPECT_EQ(failure.segmentBytes, 50 * MiB);
  EXPECT_EQ(failure.stats.allocatedBytes.current, 60 * MiB);
  EXPECT_EQ(failure.stats.reservedBytes.current, 60 * MiB);
  EXPECT_EQ(failure.stats.reservedBytes.peak, 90 * MiB);
  EXPECT_EQ(failure.stats.ooms, 1);
  EXPECT_EQ(failure.stats.allocRetries, 1);
  EXPECT_FALSE(failure.internalAssert);
  EXPECT_NE(failure.message.find("CUDA out of memory"), std::string::npos);
  // The failed id is not live.
  llvm::Error notLive = replay.free(3);
  EXPECT_TRUE(static_cast<bool>(notLive));
  llvm::consumeError(std::move(notLive));
  alloc(replay, 4, 40 * MiB);
  expectConsistent(replay);
}

// garbage_collection_threshold:0.5 with per_process_memory_fraction:1.0 on
// 1024 MiB (allowed 1024, threshold 512). get_free_block calls on the large
// pool: A's malloc 1, B's 2, C's 3. A (300) cached at count 1, B (400) at
// count 2. C (500) finds nothing: 700 reserved > 512, target 188; ages A 2,
// B 1, average 1.5: A alone is freed (300 >= 188). C's segment fits:
// 400 + 500 = 900 reserved, one cudaFree. Without the collection, 700 + 500
// > 1024 empties the whole cache: 500 reserved, two cudaFrees, one retry.
// The threshold alone (no fraction) does not collect: as without it.
TEST(CachingAllocator, GarbageCollectionByAge) {
  auto run = [](llvm::StringRef conf) {
    CachingAllocatorReplay replay = make(conf, 1024 * MiB);
    alloc(replay, 1, 300 * MiB);
    release(replay, 1);
    alloc(replay, 2, 400 * MiB);
    release(replay, 2);
    alloc(replay, 3, 500 * MiB);
    expectConsistent(replay);
    return replay.stats();
  };
  CachingAllocatorStats gc =
      run("garbage_collection_threshold:0.5,per_process_memory_fraction:1.0");
  EXPECT_EQ(gc.reservedBytes.current, 900 * MiB);
  EXPECT_EQ(gc.reservedBytes.peak, 900 * MiB);
  EXPECT_EQ(gc.deviceFrees, 1);
  EXPECT_EQ(gc.allocRetries, 0);
  for (llvm::StringRef conf : {"per_process_memory_fraction:1.0",
                               "garbage_collection_threshold:0.5"}) {
    CachingAllocatorStats plain = run(conf);
    EXPECT_EQ(plain.reservedBytes.current, 500 * MiB) << conf.str();
    EXPECT_EQ(plain.reservedBytes.peak, 700 * MiB) << conf.str();
    EXPECT_EQ(plain.deviceFrees, 2) << conf.str();
    EXPECT_EQ(plain.allocRetries, 1) << conf.str();
  }
}

// Under a memory fraction the check is on get_allocation_size's bytes, not
// on what a new segment would take. Expandable segments on a 100 MiB
// device with fraction 0.65 (allowed 65 MiB): 24 MiB maps two 20 MiB pages
// (40 reserved; 16 MiB free after the block). 28 MiB: 40 + 28 > 65 is
// refused, though mapping would add only one page (60 <= 65); the cache
// has no whole free page to unmap: out of memory. Without the fraction
// the page is mapped: 60 reserved.
TEST(CachingAllocator, MemoryFractionChecksAllocationSize) {
  CachingAllocatorReplay limited = make(
      "expandable_segments:True,per_process_memory_fraction:0.65", 100 * MiB);
  alloc(limited, 1, 24 * MiB);
  EXPECT_EQ(limited.stats().reservedBytes.current, 40 * MiB);
  llvm::Expected<MallocResult> result = limited.malloc(2, 28 * MiB);
  ASSERT_TRUE(static_cast<bool>(result));
  EXPECT_FALSE(result->succeeded());
  expectConsistent(limited);

  CachingAllocatorReplay unlimited =
      make("expandable_segments:True", 100 * MiB);
  alloc(unlimited, 1, 24 * MiB);
  alloc(unlimited, 2, 28 * MiB);
  EXPECT_EQ(unlimited.stats().reservedBytes.current, 60 * MiB);
  expectConsistent(unlimited);
}

//===----------------------------------------------------------------------===//
// Expandable segments
//===----------------------------------------------------------------------===//

// 8 x 16 MiB, expandable: one large-pool segment grows by 20 MiB pages and
// the blocks tile it (the rest after each block is split off: >= 512 bytes).
// After k blocks, ceil(16k / 20) pages are mapped: 7 pages = 140 MiB for
// k = 8, in 7 maps (k = 5 fits the 4 pages mapped: 80 MiB). No cudaMalloc
// segment is counted, as in PyTorch. Freed and emptied: one unmap of all
// 140 MiB, and the segment is released.
TEST(CachingAllocator, ExpandableSegmentsMapPages) {
  CachingAllocatorReplay replay = make("expandable_segments:True");
  for (int64_t id = 0; id < 8; ++id)
    EXPECT_EQ(alloc(replay, id, 16 * MiB), 16 * MiB);
  EXPECT_EQ(replay.stats().reservedBytes.current, 140 * MiB);
  EXPECT_EQ(replay.stats().allocatedBytes.current, 128 * MiB);
  EXPECT_EQ(replay.stats().deviceAllocs, 7);
  EXPECT_EQ(replay.stats().segments.peak, 0);
  expectConsistent(replay);
  for (int64_t id = 0; id < 8; ++id)
    release(replay, id);
  replay.emptyCache();
  EXPECT_EQ(replay.stats().reservedBytes.current, 0);
  EXPECT_EQ(replay.stats().deviceFrees, 1);
  EXPECT_TRUE(replay.snapshot().empty());
  expectConsistent(replay);
}

// The small pool's expandable segment has 2 MiB pages: 3 x 700 KiB map one
// page for the first two (1400 KiB), the third needs 52 KiB more: a second
// page, 4 MiB reserved.
TEST(CachingAllocator, ExpandableSmallPages) {
  CachingAllocatorReplay replay = make("expandable_segments:True");
  for (int64_t id = 0; id < 3; ++id)
    alloc(replay, id, 700 * KiB);
  EXPECT_EQ(replay.stats().reservedBytes.current, 4 * MiB);
  EXPECT_EQ(replay.stats().allocatedBytes.current, 2100 * KiB);
  expectConsistent(replay);
}

// emptyCache unmaps only the whole pages inside a free block, and a new
// request maps at the lowest address. 8 x 16 MiB (140 mapped), the first
// four freed: the free block [0, 64) MiB holds pages [0, 60): unmapped,
// 80 MiB reserved, [60, 64) stays mapped. 16 MiB then finds no mapped
// block large enough (4 and 12 MiB free) and maps one page at address 0:
// 100 MiB.
TEST(CachingAllocator, ExpandableUnmapsWholePagesAndRefillsLowest) {
  CachingAllocatorReplay replay = make("expandable_segments:True");
  for (int64_t id = 0; id < 8; ++id)
    alloc(replay, id, 16 * MiB);
  for (int64_t id = 0; id < 4; ++id)
    release(replay, id);
  replay.emptyCache();
  EXPECT_EQ(replay.stats().reservedBytes.current, 80 * MiB);
  EXPECT_EQ(replay.stats().deviceFrees, 1);
  expectConsistent(replay);
  alloc(replay, 8, 16 * MiB);
  EXPECT_EQ(replay.stats().reservedBytes.current, 100 * MiB);
  std::vector<SegmentSnapshot> segments = replay.snapshot();
  ASSERT_EQ(segments.size(), 1u);
  ASSERT_FALSE(segments[0].blocks.empty());
  EXPECT_TRUE(segments[0].blocks[0].allocated);
  EXPECT_EQ(segments[0].blocks[0].size, 16 * MiB);
  expectConsistent(replay);
}

// Where PyTorch asserts: expandable segments, max_split_size_mb:20, a
// 60 MiB device. 40 + 20 MiB map three pages (60, the device is full); the
// 40 MiB block is freed (cached, oversize). 10 MiB may not take it (< 20),
// mapping a page fails (80 > 60), and release_available_cached_blocks would
// release the cached 40 MiB block of the expandable segment, on which
// PyTorch's release_block asserts: the replay reports that, counts no OOM
// and releases nothing.
TEST(CachingAllocator, ExpandableReleaseUnderMaxSplitSizeAsserts) {
  CachingAllocatorReplay replay =
      make("expandable_segments:True,max_split_size_mb:20", 60 * MiB);
  alloc(replay, 1, 40 * MiB);
  alloc(replay, 2, 20 * MiB);
  release(replay, 1);
  llvm::Expected<MallocResult> result = replay.malloc(3, 10 * MiB);
  ASSERT_TRUE(static_cast<bool>(result));
  ASSERT_FALSE(result->succeeded());
  EXPECT_TRUE(result->failure->internalAssert);
  EXPECT_EQ(result->failure->stats.ooms, 0);
  EXPECT_EQ(replay.stats().reservedBytes.current, 60 * MiB);
  EXPECT_NE(result->failure->message.find("internal assertion"),
            std::string::npos);
  expectConsistent(replay);
}

//===----------------------------------------------------------------------===//
// empty_cache and reset_peak_memory_stats as events
//===----------------------------------------------------------------------===//

// emptyCache returns whole cached segments only: a 20 MiB segment with a
// live 5 MiB block stays, a cached 30 MiB segment goes.
TEST(CachingAllocator, EmptyCacheReleasesWholeSegments) {
  CachingAllocatorReplay replay = make();
  alloc(replay, 1, 5 * MiB);
  alloc(replay, 2, 30 * MiB);
  release(replay, 2);
  replay.emptyCache();
  EXPECT_EQ(replay.stats().reservedBytes.current, 20 * MiB);
  EXPECT_EQ(replay.stats().segments.current, 1);
  EXPECT_EQ(replay.stats().deviceFrees, 1);
  expectConsistent(replay);
}

// The peak of step 2 after a reset: step 1 allocates 100 MiB and frees it
// (cached); after the reset the peaks are the current values (0 allocated,
// 100 reserved); step 2's 40 MiB splits the cached block: allocated peak
// 40, reserved peak 100.
TEST(CachingAllocator, ResetPeaks) {
  std::vector<AllocatorEvent> events = {
      AllocatorEvent::malloc(1, 100 * MiB), AllocatorEvent::free(1),
      AllocatorEvent::resetPeaks(), AllocatorEvent::malloc(2, 40 * MiB),
      AllocatorEvent::free(2)};
  llvm::Expected<AllocatorReplayResult> result =
      replayAllocatorEvents(events, {});
  ASSERT_TRUE(static_cast<bool>(result));
  EXPECT_EQ(result->stats.allocatedBytes.peak, 40 * MiB);
  EXPECT_EQ(result->stats.reservedBytes.peak, 100 * MiB);
  EXPECT_EQ(result->stats.requestedBytes.peak, 40 * MiB);
}

//===----------------------------------------------------------------------===//
// The documented cases (docs/allocator.md)
//===----------------------------------------------------------------------===//

std::vector<AllocatorEvent> phases(int64_t firstCount, int64_t firstSize,
                                   int64_t secondCount, int64_t secondSize) {
  std::vector<AllocatorEvent> events;
  for (int64_t i = 0; i < firstCount; ++i)
    events.push_back(AllocatorEvent::malloc(i, firstSize));
  for (int64_t i = 0; i < firstCount; ++i)
    events.push_back(AllocatorEvent::free(i));
  for (int64_t i = 0; i < secondCount; ++i)
    events.push_back(AllocatorEvent::malloc(100 + i, secondSize));
  return events;
}

// 8 x 16 MiB: each request >= 10 MiB gets its own 16 MiB segment (128 MiB).
// Freed, they stay cached; a 32 MiB request fits none of them: 4 new
// 32 MiB segments: 256 MiB reserved, allocated peak 128 MiB.
TEST(CachingAllocator, DocumentedSixteenThenThirtyTwo) {
  llvm::Expected<AllocatorReplayResult> result =
      replayAllocatorEvents(phases(8, 16 * MiB, 4, 32 * MiB), {});
  ASSERT_TRUE(static_cast<bool>(result));
  EXPECT_FALSE(result->failure);
  EXPECT_EQ(result->stats.reservedBytes.peak, 256 * MiB);
  EXPECT_EQ(result->stats.allocatedBytes.peak, 128 * MiB);
  EXPECT_EQ(result->stats.segments.peak, 12);
}

// The reverse: 4 x 32 MiB segments (128 MiB), freed; each 16 MiB request
// splits a cached 32 MiB block (rest 16 MiB > 1 MiB) or takes such a rest:
// 128 MiB reserved.
TEST(CachingAllocator, DocumentedThirtyTwoThenSixteen) {
  llvm::Expected<AllocatorReplayResult> result =
      replayAllocatorEvents(phases(4, 32 * MiB, 8, 16 * MiB), {});
  ASSERT_TRUE(static_cast<bool>(result));
  EXPECT_EQ(result->stats.reservedBytes.peak, 128 * MiB);
  EXPECT_EQ(result->stats.allocatedBytes.peak, 128 * MiB);
  EXPECT_EQ(result->stats.segments.peak, 4);
}

// 8 x 16 MiB with expandable segments: 7 pages of 20 MiB = 140 MiB.
TEST(CachingAllocator, DocumentedExpandableSixteen) {
  llvm::Expected<AllocatorReplayResult> result = replayAllocatorEvents(
      phases(8, 16 * MiB, 0, 0), parseOk("expandable_segments:True"));
  ASSERT_TRUE(static_cast<bool>(result));
  EXPECT_EQ(result->stats.reservedBytes.peak, 140 * MiB);
}

//===----------------------------------------------------------------------===//
// Misuse, zero bytes, the configuration's errors, a random walk
//===----------------------------------------------------------------------===//

TEST(CachingAllocator, ZeroBytesAndMisuse) {
  CachingAllocatorReplay replay = make();
  EXPECT_EQ(alloc(replay, 1, 0), 0);
  EXPECT_EQ(replay.stats().reservedBytes.current, 0);
  EXPECT_EQ(replay.stats().allocations.current, 0);
  EXPECT_EQ(llvm::toString(replay.malloc(1, 8).takeError()),
            "malloc of tensor 1: it is live (allocated and not freed)");
  release(replay, 1);
  EXPECT_EQ(llvm::toString(replay.free(1)),
            "free of tensor 1: it is not live (never allocated, or freed "
            "already)");
  EXPECT_EQ(llvm::toString(replay.malloc(2, -1).takeError()),
            "malloc of tensor 2: negative size -1");
  llvm::Expected<MallocResult> huge = replay.malloc(3, kMaxRequest);
  ASSERT_TRUE(static_cast<bool>(huge));
  EXPECT_FALSE(huge->succeeded());
  EXPECT_EQ(llvm::toString(CachingAllocatorReplay::create(
                               parseOk("per_process_memory_fraction:0.5"))
                               .takeError()),
            "a memory fraction (per_process_memory_fraction) needs the "
            "device memory: the allowed bytes are the fraction of the "
            "device's total memory");
  expectConsistent(replay);
}

TEST(CachingAllocator, ConfigErrors) {
  EXPECT_EQ(parseError(""), "(parsed)");
  EXPECT_EQ(parseError("backend:native,release_lock_on_cudamalloc:True"),
            "(parsed)");
  EXPECT_EQ(parseError("max_split_size_mb:19"),
            "max_split_size_mb: expected a whole number of MiB >= 20, got 19");
  EXPECT_EQ(parseError("max_split_size_mb:big"),
            "max_split_size_mb: expected a whole number of MiB >= 20, got "
            "'big'");
  EXPECT_EQ(parseError("expandable_segments:true"),
            "expandable_segments: expected True or False, got 'true'");
  EXPECT_EQ(parseError("garbage_collection_threshold:1.0"),
            "garbage_collection_threshold: expected a number in (0, 1), got "
            "1.0");
  EXPECT_EQ(parseError("per_process_memory_fraction:1.5"),
            "per_process_memory_fraction: expected a number in [0, 1], got "
            "1.5");
  EXPECT_EQ(parseError("roundup_power2_divisions:3"),
            "roundup_power2_divisions: the divisions must be a power of two, "
            "got 3");
  EXPECT_EQ(parseError("roundup_power2_divisions:[300:2]"),
            "roundup_power2_divisions: expected an interval in MiB that is a "
            "power of two, or '>', got '300'");
  EXPECT_EQ(parseError("roundup_power2_divisions:[256:2"),
            "roundup_power2_divisions: missing ']' at the end of the list");
  EXPECT_EQ(parseError("max_split_size_mb"),
            "expected ':' after 'max_split_size_mb', got the end");
  EXPECT_EQ(parseError("max_split_size_mb:,"),
            "missing value for 'max_split_size_mb'");
  EXPECT_EQ(parseError("expandable_segments:True max_split_size_mb:64"),
            "expandable_segments: expected True or False, got "
            "'Truemax_split_size_mb'");
  EXPECT_EQ(parseError("backend:cudaMallocAsync"),
            "backend:cudaMallocAsync is not replayed (only the native caching "
            "allocator is)");
  std::string unknown = parseError("expandable_segment:True");
  EXPECT_EQ(unknown.rfind("unknown key 'expandable_segment' (known keys: ", 0),
            0u)
      << unknown;
}

// A random walk of mallocs, frees and empty_cache calls under each option
// on a 600 MiB device (it reaches the full device: 16 to 25 out-of-memory
// results per option), checked after every event by checkConsistency (the
// statistics against the blocks, the pools against the free blocks, merged
// neighbours) and by the requested bytes kept here.
TEST(CachingAllocator, RandomWalkStaysConsistent) {
  const char *configs[] = {
      "", "max_split_size_mb:24", "expandable_segments:True",
      "roundup_power2_divisions:[1:2,64:4,>:8]",
      "garbage_collection_threshold:0.6,per_process_memory_fraction:0.9"};
  for (const char *conf : configs) {
    std::mt19937_64 random(42);
    CachingAllocatorReplay replay = make(conf, 600 * MiB);
    std::vector<std::pair<int64_t, int64_t>> live;
    int64_t requested = 0;
    for (int64_t step = 0; step < 3000; ++step) {
      uint64_t dice = random() % 100;
      if (dice < 2) {
        replay.emptyCache();
      } else if (dice < 45 && !live.empty()) {
        size_t pick = random() % live.size();
        release(replay, live[pick].first);
        requested -= live[pick].second;
        live.erase(live.begin() + pick);
      } else {
        int64_t scale = int64_t(1) << (random() % 27); // up to 64 MiB
        int64_t bytes = static_cast<int64_t>(random() % scale) + 1;
        llvm::Expected<MallocResult> result = replay.malloc(step, bytes);
        ASSERT_TRUE(static_cast<bool>(result));
        if (result->succeeded()) {
          live.push_back({step, bytes});
          requested += bytes;
        }
      }
      ASSERT_EQ(replay.stats().requestedBytes.current, requested) << conf;
      if (llvm::Error err = replay.checkConsistency())
        FAIL() << conf << " step " << step << ": "
               << llvm::toString(std::move(err));
    }
    // The walk reaches the full device: the releases and out of memory.
    EXPECT_GT(replay.stats().ooms, 0) << conf;
    EXPECT_GT(replay.stats().allocRetries, 0) << conf;
  }
}

} // namespace
