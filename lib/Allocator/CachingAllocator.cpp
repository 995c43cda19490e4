//===- CachingAllocator.cpp - a replay of PyTorch's CUDA caching allocator ===//
//
// The rules of DeviceCachingAllocator (c10/cuda/CUDACachingAllocator.cpp at
// pytorch/pytorch 001074d25084fdb87a799823e395a50f5ec044d3), in our own
// structure, for one device and one stream:
//
//   malloc(bytes)  round the request (round_size), pick the pool (small:
//                  rounded size <= 1 MiB), then
//     1. best fit among the pool's cached blocks (getFreeBlock), refusing
//        an oversize block under max_split_size;
//     2. else: garbage collection (only under a memory fraction with
//        garbage_collection_threshold), a new segment (allocBlock: cudaMalloc
//        of get_allocation_size, or mapping pages of the pool's expandable
//        segment); if the device is full: release cached oversize blocks
//        (releaseAvailableCachedBlocks) and retry; else release every
//        unsplit cached block (emptyCache) and retry; else out of memory;
//     3. split the block when the rest is worth keeping (shouldSplit).
//   free           the block goes back to its pool, merged with free
//                  neighbours of its segment (freeBlock).
//
// Blocks live in one vector, linked to their neighbours in the segment by
// index; a pool orders its cached blocks by (size, address) in a std::set,
// as PyTorch's BlockComparatorSize does for one stream. An address is (the
// segment's serial number, the offset in it): each new segment lies above
// the earlier ones.
//
//===----------------------------------------------------------------------===//

#include "memopt/Allocator/CachingAllocator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <climits>

using namespace mlir::memopt::allocator;
using llvm::Twine;
using Replay = CachingAllocatorReplay;

static llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

void AllocatorStat::increase(int64_t amount) {
  current += amount;
  peak = std::max(peak, current);
}

/// The address space of an expandable segment without a device size: more
/// than any request PyTorch accepts (kMaxRequest), so one segment serves
/// every request.
static constexpr int64_t kUnlimitedAddressSpace = int64_t(1) << 61;

//===----------------------------------------------------------------------===//
// Construction and blocks
//===----------------------------------------------------------------------===//

Replay::CachingAllocatorReplay(const CachingAllocatorConfig &config,
                               std::optional<int64_t> deviceMemoryBytes)
    : config(config), deviceMemory(deviceMemoryBytes) {
  smallPool.small = true;
}

llvm::Expected<Replay>
Replay::create(const CachingAllocatorConfig &config,
               std::optional<int64_t> deviceMemoryBytes) {
  if (deviceMemoryBytes && *deviceMemoryBytes <= 0)
    return makeError("the device memory must be positive, got " +
                     Twine(*deviceMemoryBytes) + " bytes");
  Replay replay(config, deviceMemoryBytes);
  if (config.perProcessMemoryFraction)
    if (llvm::Error err =
            replay.setMemoryFraction(*config.perProcessMemoryFraction))
      return std::move(err);
  return std::move(replay);
}

llvm::Error Replay::setMemoryFraction(double fraction) {
  if (!deviceMemory)
    return makeError("a memory fraction (per_process_memory_fraction) needs "
                     "the device memory: the allowed bytes are the fraction "
                     "of the device's total memory");
  if (!(fraction >= 0 && fraction <= 1))
    return makeError("the memory fraction must be in [0, 1]");
  // setMemoryFraction: allowed_memory_maximum = fraction * device total.
  allowedMemory =
      static_cast<int64_t>(fraction * static_cast<double>(*deviceMemory));
  return llvm::Error::success();
}

int64_t Replay::capacity() const {
  return deviceMemory.value_or(std::numeric_limits<int64_t>::max());
}

bool Replay::gcEnabled() const {
  // PyTorch tests set_fraction && garbage_collection_threshold > 0.
  return allowedMemory && config.garbageCollectionThreshold > 0;
}

int Replay::newBlock() {
  int index;
  if (!freeSlots.empty()) {
    index = freeSlots.back();
    freeSlots.pop_back();
  } else {
    index = static_cast<int>(blocks.size());
    blocks.emplace_back();
  }
  blocks[index] = Block();
  blocks[index].live = true;
  return index;
}

void Replay::deleteBlock(int index) {
  blocks[index].live = false;
  freeSlots.push_back(index);
}

/// insert_into_blocks: the block joins its pool's cache and its age starts.
void Replay::cacheBlock(int index) {
  Block &block = blocks[index];
  Pool &pool = poolOf(block);
  block.gcCountBase = pool.freeBlockCalls;
  pool.blocks.insert({block.size, block.segment, block.offset, index});
}

void Replay::uncacheBlock(int index) {
  Block &block = blocks[index];
  poolOf(block).blocks.erase({block.size, block.segment, block.offset, index});
}

//===----------------------------------------------------------------------===//
// malloc and free
//===----------------------------------------------------------------------===//

llvm::Expected<MallocResult> Replay::malloc(int64_t id, int64_t bytes) {
  if (bytes < 0)
    return makeError("malloc of tensor " + Twine(id) + ": negative size " +
                     Twine(bytes));
  if (liveTensors.count(id))
    return makeError("malloc of tensor " + Twine(id) +
                     ": it is live (allocated and not freed)");
  MallocResult result;
  // PyTorch hands out no block for zero bytes.
  if (bytes == 0) {
    liveTensors[id] = -1;
    return result;
  }
  sawInternalAssert = false;
  // allocate() refuses 1 EiB or more before the allocator sees the request.
  if (bytes >= kMaxRequest) {
    result.failure = describeFailure(bytes, bytes, bytes);
    return result;
  }
  int64_t size = roundAllocationRequest(config, bytes);
  Pool &pool = size <= kSmallSize ? smallPool : largePool;
  int64_t segmentBytes = segmentSizeFor(size);

  int block = getFreeBlock(pool, size);
  if (block < 0) {
    if (gcEnabled())
      garbageCollect();
    block = allocBlock(pool, size, segmentBytes, /*retry=*/false);
    if (block < 0 && releaseAvailableCachedBlocks(pool, size))
      block = allocBlock(pool, size, segmentBytes, /*retry=*/false);
    if (block < 0 && !sawInternalAssert) {
      releaseCachedBlocks();
      block = allocBlock(pool, size, segmentBytes, /*retry=*/true);
    }
  }
  if (block < 0) {
    if (!sawInternalAssert)
      ++currentStats.ooms;
    result.failure = describeFailure(bytes, size, segmentBytes);
    return result;
  }
  block = allocFoundBlock(block, size, bytes);
  liveTensors[id] = block;
  result.blockBytes = blocks[block].size;
  return result;
}

int Replay::getFreeBlock(Pool &pool, int64_t size) {
  // The blocks' ages (gc_count) count these calls, only while the
  // collection can act.
  if (gcEnabled())
    ++pool.freeBlockCalls;
  auto it = pool.blocks.lower_bound({size, INT64_MIN, INT64_MIN, INT_MIN});
  if (it == pool.blocks.end())
    return -1;
  // In an expandable segment a block at the mapped end can grow into the
  // unmapped rest: best fit compares the sizes blocks can reach.
  if (blocks[std::get<3>(*it)].expandable) {
    auto next = std::next(it);
    while (blocks[std::get<3>(*it)].expandable && next != pool.blocks.end() &&
           expandableSize(std::get<3>(*next)) <
               expandableSize(std::get<3>(*it)))
      it = next++;
  }
  int index = std::get<3>(*it);
  const Block &block = blocks[index];
  // A request below max_split_size never takes an oversize block; a larger
  // request takes one only within max_non_split_rounding of its size.
  if (size < config.maxSplitSize && block.size >= config.maxSplitSize)
    return -1;
  if (size >= config.maxSplitSize &&
      block.size - size >= config.maxNonSplitRounding)
    return -1;
  pool.blocks.erase(it);
  return index;
}

bool Replay::shouldSplit(int index, int64_t size) const {
  const Block &block = blocks[index];
  int64_t remaining = block.size - size;
  if (block.pool == PoolKind::Small || config.expandableSegments)
    return remaining >= kMinBlockSize;
  return size < config.maxSplitSize && remaining > kSmallSize;
}

int Replay::allocFoundBlock(int index, int64_t size, int64_t requested) {
  int block = index;
  if (shouldSplit(index, size)) {
    // The front `size` bytes become the allocation; the rest stays cached.
    block = newBlock();
    Block &rest = blocks[index];
    Block &front = blocks[block];
    front.segment = rest.segment;
    front.offset = rest.offset;
    front.size = size;
    front.pool = rest.pool;
    front.expandable = rest.expandable;
    front.prev = rest.prev;
    if (front.prev >= 0)
      blocks[front.prev].next = block;
    front.next = index;
    rest.prev = block;
    rest.offset += size;
    rest.size -= size;
    cacheBlock(index);
  }
  Block &chosen = blocks[block];
  chosen.allocated = true;
  chosen.requested = requested;
  currentStats.allocations.increase(1);
  currentStats.allocatedBytes.increase(chosen.size);
  currentStats.activeBlocks.increase(1);
  currentStats.activeBytes.increase(chosen.size);
  currentStats.requestedBytes.increase(requested);
  return block;
}

llvm::Error Replay::free(int64_t id) {
  auto it = liveTensors.find(id);
  if (it == liveTensors.end())
    return makeError("free of tensor " + Twine(id) +
                     ": it is not live (never allocated, or freed already)");
  int index = it->second;
  liveTensors.erase(it);
  if (index < 0)
    return llvm::Error::success();
  Block &block = blocks[index];
  block.allocated = false;
  currentStats.allocations.decrease(1);
  currentStats.allocatedBytes.decrease(block.size);
  freeBlock(index);
  return llvm::Error::success();
}

void Replay::freeBlock(int index) {
  int64_t size = blocks[index].size;
  int64_t requested = blocks[index].requested;
  tryMerge(index, blocks[index].prev);
  tryMerge(index, blocks[index].next);
  cacheBlock(index);
  currentStats.activeBlocks.decrease(1);
  currentStats.activeBytes.decrease(size);
  currentStats.requestedBytes.decrease(requested);
}

int64_t Replay::tryMerge(int dst, int src) {
  if (src < 0 || blocks[src].allocated ||
      blocks[src].mapped != blocks[dst].mapped)
    return 0;
  Block &from = blocks[src];
  if (from.mapped)
    uncacheBlock(src);
  else
    poolOf(from).unmapped.erase({from.segment, from.offset, src});
  Block &into = blocks[dst];
  if (into.prev == src) {
    into.offset = from.offset;
    into.prev = from.prev;
    if (into.prev >= 0)
      blocks[into.prev].next = dst;
  } else {
    into.next = from.next;
    if (into.next >= 0)
      blocks[into.next].prev = dst;
  }
  int64_t subsumed = from.size;
  into.size += subsumed;
  deleteBlock(src);
  return subsumed;
}

//===----------------------------------------------------------------------===//
// New segments, and making room for them
//===----------------------------------------------------------------------===//

int Replay::allocBlock(Pool &pool, int64_t size, int64_t segmentBytes,
                       bool retry) {
  if (retry)
    ++currentStats.allocRetries;
  int64_t reserved = currentStats.reservedBytes.current;
  // Under a memory fraction the check is on get_allocation_size's bytes,
  // expandable segments included.
  if (allowedMemory && segmentBytes > *allowedMemory - reserved)
    return -1;
  if (config.expandableSegments)
    return tryAllocateExpandable(pool, size);
  if (segmentBytes > capacity() - reserved)
    return -1; // cudaMalloc fails
  int index = newBlock();
  Block &block = blocks[index];
  block.segment = static_cast<int64_t>(segments.size());
  block.size = segmentBytes;
  block.pool = pool.small ? PoolKind::Small : PoolKind::Large;
  Segment segment;
  segment.live = true;
  segment.bytes = segmentBytes;
  segments.push_back(segment);
  currentStats.segments.increase(1);
  currentStats.reservedBytes.increase(segmentBytes);
  ++currentStats.deviceAllocs;
  return index;
}

void Replay::releaseBlock(int index) {
  Block &block = blocks[index];
  ++currentStats.deviceFrees;
  currentStats.segments.decrease(1);
  currentStats.reservedBytes.decrease(block.size);
  uncacheBlock(index);
  segments[block.segment].live = false;
  deleteBlock(index);
}

void Replay::garbageCollect() {
  // Collect when the reserved bytes pass threshold x allowed; free the
  // unsplit cached large blocks at least as old as the average, until the
  // excess is reclaimed (each pass frees every such block, not stopping at
  // the target). Blocks of expandable segments are left alone (PyTorch's
  // release_block would assert on one that is whole, which needs a segment
  // mapped to its end).
  auto threshold = static_cast<int64_t>(config.garbageCollectionThreshold *
                                        static_cast<double>(*allowedMemory));
  int64_t total = currentStats.reservedBytes.current;
  if (total <= threshold)
    return;
  int64_t target = total - threshold;
  auto freeable = [&](int index) {
    return !isSplit(index) && !blocks[index].expandable;
  };
  auto age = [&](int index) {
    return largePool.freeBlockCalls - blocks[index].gcCountBase;
  };
  int64_t totalAge = 0;
  int64_t count = 0;
  for (const SizeKey &key : largePool.blocks) {
    if (!freeable(std::get<3>(key)))
      continue;
    totalAge += age(std::get<3>(key));
    ++count;
  }
  int64_t reclaimed = 0;
  bool freed = true;
  while (reclaimed < target && freed && count > 0) {
    double ageThreshold =
        static_cast<double>(totalAge) / static_cast<double>(count);
    freed = false;
    for (auto it = largePool.blocks.begin(); it != largePool.blocks.end();) {
      int index = std::get<3>(*it);
      ++it;
      if (!freeable(index) || static_cast<double>(age(index)) < ageThreshold)
        continue;
      freed = true;
      reclaimed += blocks[index].size;
      totalAge -= age(index);
      --count;
      releaseBlock(index);
    }
  }
}

bool Replay::releaseAvailableCachedBlocks(Pool &pool, int64_t size) {
  if (!config.hasMaxSplitSize())
    return false;
  int64_t wanted = std::max(size, config.maxSplitSize);
  auto release = [&](int index) {
    if (blocks[index].expandable) {
      sawInternalAssert = true;
      return false;
    }
    releaseBlock(index);
    return true;
  };
  // The smallest cached block of at least max(size, max_split_size) ...
  auto it = pool.blocks.lower_bound({wanted, INT64_MIN, INT64_MIN, INT_MIN});
  if (it != pool.blocks.end())
    return release(std::get<3>(*it));
  // ... else the oversize blocks from the largest down, until they add up.
  if (it == pool.blocks.begin())
    return false;
  --it;
  int64_t released = 0;
  while (released < wanted &&
         blocks[std::get<3>(*it)].size >= config.maxSplitSize) {
    int index = std::get<3>(*it);
    released += blocks[index].size;
    bool first = it == pool.blocks.begin();
    if (!first)
      --it;
    if (!release(index))
      return false;
    if (first)
      break;
  }
  return released >= wanted;
}

void Replay::releaseCachedBlocks() {
  releaseBlocks(largePool);
  releaseBlocks(smallPool);
}

void Replay::releaseBlocks(Pool &pool) {
  // Whole cached segments go back to the device; in expandable segments the
  // whole free pages are unmapped, and a segment left with nothing mapped
  // is released.
  std::vector<int> toUnmap;
  for (auto it = pool.blocks.begin(); it != pool.blocks.end();) {
    int index = std::get<3>(*it);
    ++it;
    if (blocks[index].expandable)
      toUnmap.push_back(index);
    else if (!isSplit(index))
      releaseBlock(index);
  }
  for (int index : toUnmap) {
    unmapBlock(index);
    if (!isSplit(index) && !blocks[index].mapped)
      releaseExpandableSegment(index);
  }
}

void Replay::emptyCache() { releaseCachedBlocks(); }

void Replay::resetPeaks() {
  for (AllocatorStat *stat :
       {&currentStats.allocatedBytes, &currentStats.requestedBytes,
        &currentStats.activeBytes, &currentStats.reservedBytes,
        &currentStats.allocations, &currentStats.activeBlocks,
        &currentStats.segments})
    stat->peak = stat->current;
}

//===----------------------------------------------------------------------===//
// Expandable segments
//===----------------------------------------------------------------------===//

int64_t Replay::expandableSize(int index) const {
  const Block &block = blocks[index];
  if (block.next >= 0 && !blocks[block.next].mapped)
    return block.size + blocks[block.next].size;
  return block.size;
}

int Replay::tryAllocateExpandable(Pool &pool, int64_t size) {
  // The candidate is an unmapped block, or a free block followed by an
  // unmapped one, with at least `size` bytes of address space.
  int candidate = findExpandableBlock(pool, size);
  if (!blocks[candidate].mapped &&
      !mapBlock(candidate, std::min(blocks[candidate].size, size)))
    return -1;
  while (blocks[candidate].size < size) {
    // Map the unmapped block after it; mapBlock merges the two.
    int next = blocks[candidate].next;
    if (next < 0 || blocks[next].mapped)
      return -1;
    int64_t missing = size - blocks[candidate].size;
    if (!mapBlock(next, std::min(missing, blocks[next].size)))
      return -1;
    candidate = next;
  }
  uncacheBlock(candidate);
  return candidate;
}

int Replay::findExpandableBlock(Pool &pool, int64_t size) {
  auto allocatable = [&](int index) {
    return index >= 0 && !blocks[index].allocated;
  };
  auto hasSpace = [&](int index) {
    int64_t bytes = 0;
    while (bytes < size && allocatable(index)) {
      bytes += blocks[index].size;
      index = blocks[index].next;
    }
    return bytes >= size;
  };
  // The lowest address with room: an unmapped block, extended backwards by
  // the free block before it.
  for (const AddressKey &key : pool.unmapped) {
    int candidate = std::get<2>(key);
    if (allocatable(blocks[candidate].prev))
      candidate = blocks[candidate].prev;
    if (hasSpace(candidate))
      return candidate;
  }
  // A new segment: address space for 1 1/8 of the device's memory, in pages
  // of 2 MiB (small pool) or 20 MiB (large pool), nothing mapped.
  Segment segment;
  segment.live = true;
  segment.expandable = true;
  segment.pageSize = pool.small ? kSmallBuffer : kLargeBuffer;
  int64_t space = kUnlimitedAddressSpace;
  if (deviceMemory)
    space = std::min(space, *deviceMemory + *deviceMemory / 8);
  segment.bytes = llvm::divideCeil(space, segment.pageSize) * segment.pageSize;
  int index = newBlock();
  Block &block = blocks[index];
  block.segment = static_cast<int64_t>(segments.size());
  block.size = segment.bytes;
  block.pool = pool.small ? PoolKind::Small : PoolKind::Large;
  block.mapped = false;
  block.expandable = true;
  segments.push_back(segment);
  pool.unmapped.insert({block.segment, 0, index});
  return index;
}

/// Links `index` between `prev` and `next` (either may be -1).
template <typename Blocks>
static void linkBlocks(int index, int prev, int next, Blocks &blocks) {
  blocks[index].prev = prev;
  blocks[index].next = next;
  if (prev >= 0)
    blocks[prev].next = index;
  if (next >= 0)
    blocks[next].prev = index;
}

bool Replay::mapBlock(int index, int64_t size) {
  int64_t page = segments[blocks[index].segment].pageSize;
  int64_t begin = blocks[index].offset / page;
  int64_t end = llvm::divideCeil(blocks[index].offset + size, page);
  int64_t bytes = (end - begin) * page;
  // The pages are created one by one and all released again when one fails.
  if (bytes == 0 || bytes > capacity() - currentStats.reservedBytes.current)
    return false;
  Pool &pool = poolOf(blocks[index]);
  pool.unmapped.erase({blocks[index].segment, blocks[index].offset, index});
  blocks[index].mapped = true;
  if (bytes < blocks[index].size) {
    int rest = newBlock();
    blocks[rest].segment = blocks[index].segment;
    blocks[rest].offset = blocks[index].offset + bytes;
    blocks[rest].size = blocks[index].size - bytes;
    blocks[rest].pool = blocks[index].pool;
    blocks[rest].mapped = false;
    blocks[rest].expandable = true;
    linkBlocks(rest, index, blocks[index].next, blocks);
    pool.unmapped.insert({blocks[rest].segment, blocks[rest].offset, rest});
    blocks[index].size = bytes;
  }
  tryMerge(index, blocks[index].prev);
  tryMerge(index, blocks[index].next);
  cacheBlock(index);
  currentStats.reservedBytes.increase(bytes);
  ++currentStats.deviceAllocs;
  return true;
}

void Replay::unmapBlock(int index) {
  // Only the pages wholly inside the free block are unmapped.
  int64_t page = segments[blocks[index].segment].pageSize;
  int64_t offset = blocks[index].offset;
  int64_t begin = llvm::divideCeil(offset, page);
  int64_t end = (offset + blocks[index].size) / page;
  if (begin >= end)
    return;
  uncacheBlock(index);
  int64_t unmappedOffset = begin * page;
  int64_t unmappedSize = (end - begin) * page;
  int64_t before = unmappedOffset - offset;
  int64_t after = blocks[index].size - before - unmappedSize;
  auto addFreePart = [&](int64_t partOffset, int64_t partSize, bool front) {
    int part = newBlock();
    blocks[part].segment = blocks[index].segment;
    blocks[part].offset = partOffset;
    blocks[part].size = partSize;
    blocks[part].pool = blocks[index].pool;
    blocks[part].expandable = true;
    if (front)
      linkBlocks(part, blocks[index].prev, index, blocks);
    else
      linkBlocks(part, index, blocks[index].next, blocks);
    cacheBlock(part);
  };
  if (before > 0)
    addFreePart(offset, before, /*front=*/true);
  if (after > 0)
    addFreePart(unmappedOffset + unmappedSize, after, /*front=*/false);
  blocks[index].offset = unmappedOffset;
  blocks[index].size = unmappedSize;
  blocks[index].mapped = false;
  tryMerge(index, blocks[index].prev);
  tryMerge(index, blocks[index].next);
  Block &block = blocks[index];
  poolOf(block).unmapped.insert({block.segment, block.offset, index});
  currentStats.reservedBytes.decrease(unmappedSize);
  ++currentStats.deviceFrees;
}

void Replay::releaseExpandableSegment(int index) {
  Block &block = blocks[index];
  poolOf(block).unmapped.erase({block.segment, block.offset, index});
  segments[block.segment].live = false;
  deleteBlock(index);
}

//===----------------------------------------------------------------------===//
// Failures, snapshots and the consistency check
//===----------------------------------------------------------------------===//

AllocationFailure Replay::describeFailure(int64_t requested, int64_t rounded,
                                          int64_t segmentBytes) const {
  AllocationFailure failure;
  failure.requestedBytes = requested;
  failure.roundedBytes = rounded;
  failure.segmentBytes = segmentBytes;
  failure.stats = currentStats;
  failure.internalAssert = sawInternalAssert;
  std::string &text = failure.message;
  llvm::raw_string_ostream os(text);
  if (requested >= kMaxRequest) {
    os << "CUDA out of memory: tried to allocate more than 1EB memory ("
       << requested << " bytes)";
    return failure;
  }
  if (sawInternalAssert) {
    os << "PyTorch fails an internal assertion here, not out of memory: to "
          "make room for "
       << segmentBytes
       << " bytes under max_split_size it would release a cached block of "
          "an expandable segment (release_block)";
    return failure;
  }
  int64_t allocated = currentStats.allocatedBytes.current;
  int64_t reserved = currentStats.reservedBytes.current;
  os << "CUDA out of memory: tried to allocate " << segmentBytes
     << " bytes (a request of " << requested << " bytes, rounded to " << rounded
     << "); ";
  if (deviceMemory)
    os << "the device has " << *deviceMemory << " bytes";
  else
    os << "the device memory is unlimited";
  if (allowedMemory)
    os << ", " << *allowedMemory << " allowed by the memory fraction";
  os << "; " << allocated << " bytes are allocated, " << reserved - allocated
     << " reserved but unallocated";
  return failure;
}

std::vector<SegmentSnapshot> Replay::snapshot() const {
  std::vector<std::pair<int64_t, int>> heads;
  for (auto [index, block] : llvm::enumerate(blocks))
    if (block.live && block.prev < 0)
      heads.push_back({block.segment, static_cast<int>(index)});
  llvm::sort(heads);
  std::vector<SegmentSnapshot> result;
  for (auto [segment, head] : heads) {
    SegmentSnapshot &snap = result.emplace_back();
    snap.smallPool = blocks[head].pool == PoolKind::Small;
    snap.expandable = segments[segment].expandable;
    for (int index = head; index >= 0; index = blocks[index].next)
      snap.blocks.push_back(
          {blocks[index].size, blocks[index].allocated, blocks[index].mapped});
  }
  return result;
}

llvm::Error Replay::checkConsistency() const {
  auto fail = [](const Twine &message) {
    return makeError("inconsistent allocator state: " + message);
  };
  int64_t allocated = 0, requested = 0, reserved = 0, allocations = 0;
  size_t cachedSmall = 0, cachedLarge = 0, unmappedBlocks = 0;
  for (auto [position, block] : llvm::enumerate(blocks)) {
    int index = static_cast<int>(position);
    if (!block.live)
      continue;
    const Segment &segment = segments[block.segment];
    if (!segment.live)
      return fail("block " + Twine(index) + " of a released segment");
    if (block.prev >= 0 &&
        (blocks[block.prev].next != index ||
         blocks[block.prev].segment != block.segment ||
         blocks[block.prev].offset + blocks[block.prev].size != block.offset))
      return fail("block " + Twine(index) + " does not follow its prev");
    if (block.prev < 0 && block.offset != 0)
      return fail("segment " + Twine(block.segment) + " starts at " +
                  Twine(block.offset));
    if (block.next < 0 && block.offset + block.size != segment.bytes)
      return fail("segment " + Twine(block.segment) + " ends at " +
                  Twine(block.offset + block.size) + ", not at " +
                  Twine(segment.bytes));
    if (block.next >= 0 && !block.allocated && !blocks[block.next].allocated &&
        blocks[block.next].mapped == block.mapped)
      return fail("free neighbours " + Twine(index) + " and " +
                  Twine(block.next) + " are not merged");
    if (block.expandable && block.prev >= 0 &&
        blocks[block.prev].mapped != block.mapped &&
        block.offset % segment.pageSize != 0)
      return fail("a mapped range ends inside a page");
    if (block.allocated) {
      allocated += block.size;
      requested += block.requested;
      ++allocations;
    } else if (!block.mapped) {
      ++unmappedBlocks;
      const Pool &pool = block.pool == PoolKind::Small ? smallPool : largePool;
      if (!pool.unmapped.count({block.segment, block.offset, index}))
        return fail("unmapped block " + Twine(index) + " is not listed");
    } else {
      const Pool &pool = block.pool == PoolKind::Small ? smallPool : largePool;
      ++(block.pool == PoolKind::Small ? cachedSmall : cachedLarge);
      if (!pool.blocks.count({block.size, block.segment, block.offset, index}))
        return fail("free block " + Twine(index) + " is not cached");
    }
    // Reserved: whole cudaMalloc'ed segments, mapped expandable blocks.
    if (block.expandable ? block.mapped : block.prev < 0)
      reserved += block.expandable ? block.size : segment.bytes;
  }
  if (cachedSmall != smallPool.blocks.size() ||
      cachedLarge != largePool.blocks.size() ||
      unmappedBlocks != smallPool.unmapped.size() + largePool.unmapped.size())
    return fail("the pools list blocks that are not free");
  int64_t liveSegments = llvm::count_if(segments, [](const Segment &segment) {
    return segment.live && !segment.expandable;
  });
  const CachingAllocatorStats &stats = currentStats;
  if (allocated != stats.allocatedBytes.current ||
      allocated != stats.activeBytes.current)
    return fail("allocated_bytes " + Twine(stats.allocatedBytes.current) +
                ", the blocks hold " + Twine(allocated));
  if (requested != stats.requestedBytes.current)
    return fail("requested_bytes " + Twine(stats.requestedBytes.current) +
                ", the blocks hold " + Twine(requested));
  if (allocations != stats.allocations.current ||
      allocations != stats.activeBlocks.current)
    return fail("allocation " + Twine(stats.allocations.current) + ", " +
                Twine(allocations) + " blocks are allocated");
  if (reserved != stats.reservedBytes.current)
    return fail("reserved_bytes " + Twine(stats.reservedBytes.current) +
                ", the segments hold " + Twine(reserved));
  if (liveSegments != stats.segments.current)
    return fail("segment " + Twine(stats.segments.current) + ", " +
                Twine(liveSegments) + " segments are live");
  for (auto [id, index] : liveTensors)
    if (index >= 0 && (!blocks[index].live || !blocks[index].allocated))
      return fail("tensor " + Twine(id) + " has no allocated block");
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Replaying a list of events
//===----------------------------------------------------------------------===//

llvm::Expected<AllocatorReplayResult>
mlir::memopt::allocator::replayAllocatorEvents(
    llvm::ArrayRef<AllocatorEvent> events, const CachingAllocatorConfig &config,
    std::optional<int64_t> deviceMemoryBytes) {
  llvm::Expected<Replay> replay = Replay::create(config, deviceMemoryBytes);
  if (!replay)
    return replay.takeError();
  AllocatorReplayResult result;
  for (auto [position, event] : llvm::enumerate(events)) {
    auto wrap = [&, position = position](llvm::Error err) {
      return makeError("event " + Twine(position) + ": " +
                       llvm::toString(std::move(err)));
    };
    switch (event.kind) {
    case AllocatorEvent::Kind::Malloc: {
      llvm::Expected<MallocResult> malloc =
          replay->malloc(event.id, event.bytes);
      if (!malloc)
        return wrap(malloc.takeError());
      if (malloc->failure) {
        result.failure = std::move(malloc->failure);
        result.failedEvent = position;
        result.stats = replay->stats();
        return result;
      }
      break;
    }
    case AllocatorEvent::Kind::Free:
      if (llvm::Error err = replay->free(event.id))
        return wrap(std::move(err));
      break;
    case AllocatorEvent::Kind::EmptyCache:
      replay->emptyCache();
      break;
    case AllocatorEvent::Kind::ResetPeaks:
      replay->resetPeaks();
      break;
    }
  }
  result.stats = replay->stats();
  return result;
}
