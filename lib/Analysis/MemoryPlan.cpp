//===- MemoryPlan.cpp - static offsets for buffers of known lifetime ------===//
//
// The planner works in alignment units (sizes rounded up, offsets multiples
// of the alignment) on the buffers of non-zero size, in four stages:
//
// 1. Decomposition. Buffers are split into independent components at the
//    program points no lifetime crosses; in a component, the buffers live
//    over its whole span (parameters, optimizer state) overlap every other
//    buffer, so stacking them at the bottom loses nothing; the rest is
//    decomposed again.
// 2. A portfolio of greedy placements per remaining component: best fit in
//    several orders (size, lifetime length, area, start) and two sweeps over
//    time; the smallest arena wins; a member that reaches LOAD stops it.
// 3. An exact branch and bound (after minimalloc) for the components of at
//    most a few thousand buffers that may set the arena, smallest first,
//    under its own deterministic work budget.
// 4. Improvement under a deterministic work budget: a local search over the
//    order of the best-fit placement that moves the buffers on top of the
//    arena earlier, on the component on top unless proved optimal.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/MemoryPlan.h"
#include "MemoryPlanInternal.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::detail;

//===----------------------------------------------------------------------===//
// Validation, LOAD and the checker
//===----------------------------------------------------------------------===//

llvm::Error mlir::memopt::validatePlanInput(llvm::ArrayRef<PlanBuffer> buffers,
                                            int64_t alignment) {
  if (alignment <= 0 || !llvm::isPowerOf2_64(alignment))
    return llvm::createStringError("alignment " + std::to_string(alignment) +
                                   " is not a positive power of two");
  int64_t total = 0;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (buffer.size < 0)
      return llvm::createStringError(
          llvm::formatv("buffer {0}: negative size {1}", index, buffer.size));
    if (buffer.lower >= buffer.upper)
      return llvm::createStringError(
          llvm::formatv("buffer {0}: empty lifetime [{1}, {2}) (expected "
                        "lower < upper)",
                        index, buffer.lower, buffer.upper));
    if (buffer.size > std::numeric_limits<int64_t>::max() - (alignment - 1))
      return llvm::createStringError(llvm::formatv(
          "buffer {0}: size {1} overflows when aligned", index, buffer.size));
    if (llvm::AddOverflow(total, alignUp(buffer.size, alignment), total))
      return llvm::createStringError(
          llvm::formatv("buffer {0}: the sum of the aligned sizes overflows "
                        "a 64-bit integer",
                        index));
  }
  return llvm::Error::success();
}

int64_t mlir::memopt::computeLoad(llvm::ArrayRef<PlanBuffer> buffers,
                                  int64_t alignment) {
  // Ends sort before starts at the same point: lifetimes are half-open.
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(2 * buffers.size());
  for (const PlanBuffer &buffer : buffers) {
    if (buffer.size <= 0)
      continue;
    int64_t size = alignUp(buffer.size, alignment);
    events.emplace_back(buffer.lower, size);
    events.emplace_back(buffer.upper, -size);
  }
  llvm::sort(events);
  int64_t live = 0, load = 0;
  for (auto [point, delta] : events) {
    live += delta;
    load = std::max(load, live);
  }
  return load;
}

llvm::Error mlir::memopt::verifyMemoryPlan(llvm::ArrayRef<PlanBuffer> buffers,
                                           llvm::ArrayRef<int64_t> offsets,
                                           int64_t arenaBytes,
                                           int64_t alignment) {
  if (llvm::Error error = validatePlanInput(buffers, alignment))
    return error;
  if (offsets.size() != buffers.size())
    return llvm::createStringError(llvm::formatv(
        "{0} offsets for {1} buffers", offsets.size(), buffers.size()));
  auto sizeOf = [&](size_t index) {
    return alignUp(buffers[index].size, alignment);
  };
  for (auto [index, offset] : llvm::enumerate(offsets)) {
    if (offset < 0 || offset % alignment != 0)
      return llvm::createStringError(llvm::formatv(
          "buffer {0}: offset {1} is not a non-negative multiple of {2}", index,
          offset, alignment));
    if (offset > arenaBytes - sizeOf(index))
      return llvm::createStringError(llvm::formatv(
          "buffer {0}: bytes [{1}, {1} + {2}) exceed the arena of {3} bytes",
          index, offset, sizeOf(index), arenaBytes));
  }

  // Sweep over time; `live` holds the byte ranges of the live buffers,
  // disjoint so far, ordered by offset, so a new range can only collide with
  // its neighbours.
  struct Event {
    int64_t point;
    bool isStart;
    uint32_t index;
  };
  std::vector<Event> events;
  events.reserve(2 * buffers.size());
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (buffer.size == 0)
      continue;
    events.push_back({buffer.lower, true, static_cast<uint32_t>(index)});
    events.push_back({buffer.upper, false, static_cast<uint32_t>(index)});
  }
  llvm::sort(events, [](const Event &a, const Event &b) {
    return std::tie(a.point, a.isStart, a.index) <
           std::tie(b.point, b.isStart, b.index);
  });
  auto conflict = [&](uint32_t a, uint32_t b) {
    if (a > b)
      std::swap(a, b);
    return llvm::createStringError(llvm::formatv(
        "buffers {0} (live [{1}, {2}), bytes [{3}, {4})) and {5} (live [{6}, "
        "{7}), bytes [{8}, {9})) overlap in time and in memory",
        a, buffers[a].lower, buffers[a].upper, offsets[a],
        offsets[a] + sizeOf(a), b, buffers[b].lower, buffers[b].upper,
        offsets[b], offsets[b] + sizeOf(b)));
  };
  std::set<std::pair<int64_t, uint32_t>> live;
  for (const Event &event : events) {
    int64_t offset = offsets[event.index];
    if (!event.isStart) {
      live.erase({offset, event.index});
      continue;
    }
    auto next = live.lower_bound({offset, 0});
    if (next != live.end() && next->first < offset + sizeOf(event.index))
      return conflict(event.index, next->second);
    if (next != live.begin()) {
      auto prev = std::prev(next);
      if (prev->first + sizeOf(prev->second) > offset)
        return conflict(event.index, prev->second);
    }
    live.insert({offset, event.index});
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Greedy placement
//===----------------------------------------------------------------------===//

namespace {
/// Disjoint byte ranges, overlapping and touching ones merged: a union of
/// ranges with as few entries as it has maximal runs.
class RangeUnion {
public:
  void add(int64_t begin, int64_t end) {
    auto it = ranges.upper_bound(begin);
    if (it != ranges.begin()) {
      auto prev = std::prev(it);
      if (prev->second >= begin) {
        begin = prev->first;
        end = std::max(end, prev->second);
        ranges.erase(prev);
      }
    }
    while (it != ranges.end() && it->first <= end) {
      end = std::max(end, it->second);
      it = ranges.erase(it);
    }
    ranges.emplace_hint(it, begin, end);
  }
  const std::map<int64_t, int64_t> &get() const { return ranges; }

private:
  /// begin -> end.
  std::map<int64_t, int64_t> ranges;
};

/// The baseline's index of the placed items: a segment tree over slots whose
/// nodes keep, as merged byte ranges, the items covering them (`own`, each
/// item at the nodes of its canonical decomposition) and the union of `own`
/// over their subtree (`below`). The bytes taken by the items overlapping a
/// lifetime are the union of `below` at its canonical nodes and `own` at
/// their ancestors: O(log T) unions, each as many ranges as it has runs,
/// whatever the number of items in them. Best fit over those runs gives the
/// offsets of BestFitPlacer (gaps of zero bytes fit nothing), without its
/// O(overlapping items) per placement.
class GreedyBySizePlacer {
public:
  explicit GreedyBySizePlacer(uint32_t numSlots)
      : numSlots(std::max<uint32_t>(numSlots, 1)),
        own(4 * static_cast<size_t>(this->numSlots)),
        below(4 * static_cast<size_t>(this->numSlots)) {}

  /// Places `item` (best fit, lowest gap on ties, else on top); returns its
  /// offset.
  int64_t place(const Item &item) {
    unions.clear();
    collect(1, 0, numSlots, item.lower, item.upper);
    // Merge the unions' runs in offset order.
    using Cursor = std::pair<std::map<int64_t, int64_t>::const_iterator,
                             std::map<int64_t, int64_t>::const_iterator>;
    auto later = [](const Cursor &a, const Cursor &b) {
      return a.first->first > b.first->first;
    };
    heap.clear();
    for (const RangeUnion *ranges : unions)
      if (!ranges->get().empty())
        heap.push_back({ranges->get().begin(), ranges->get().end()});
    std::make_heap(heap.begin(), heap.end(), later);
    int64_t cursor = 0, best = -1;
    int64_t bestGap = std::numeric_limits<int64_t>::max();
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      Cursor &next = heap.back();
      auto [begin, end] = *next.first;
      int64_t gap = begin - cursor;
      if (gap >= item.size && gap < bestGap) {
        best = cursor;
        bestGap = gap;
        // An exact fit is the best and, found first, the lowest.
        if (gap == item.size)
          break;
      }
      cursor = std::max(cursor, end);
      if (++next.first == next.second)
        heap.pop_back();
      else
        std::push_heap(heap.begin(), heap.end(), later);
    }
    int64_t offset = best >= 0 ? best : cursor;
    insert(1, 0, numSlots, item.lower, item.upper, offset, offset + item.size);
    return offset;
  }

private:
  RangeUnion &at(std::vector<std::unique_ptr<RangeUnion>> &unionsOf,
                 size_t node) {
    if (!unionsOf[node])
      unionsOf[node] = std::make_unique<RangeUnion>();
    return *unionsOf[node];
  }

  void insert(size_t node, uint32_t nodeLower, uint32_t nodeUpper,
              uint32_t lower, uint32_t upper, int64_t begin, int64_t end) {
    at(below, node).add(begin, end);
    if (lower <= nodeLower && nodeUpper <= upper) {
      at(own, node).add(begin, end);
      return;
    }
    uint32_t mid = nodeLower + (nodeUpper - nodeLower) / 2;
    if (lower < mid)
      insert(2 * node, nodeLower, mid, lower, upper, begin, end);
    if (upper > mid)
      insert(2 * node + 1, mid, nodeUpper, lower, upper, begin, end);
  }

  void collect(size_t node, uint32_t nodeLower, uint32_t nodeUpper,
               uint32_t lower, uint32_t upper) {
    if (!below[node])
      return;
    if (lower <= nodeLower && nodeUpper <= upper) {
      unions.push_back(below[node].get());
      return;
    }
    if (own[node])
      unions.push_back(own[node].get());
    uint32_t mid = nodeLower + (nodeUpper - nodeLower) / 2;
    if (lower < mid)
      collect(2 * node, nodeLower, mid, lower, upper);
    if (upper > mid)
      collect(2 * node + 1, mid, nodeUpper, lower, upper);
  }

  uint32_t numSlots;
  std::vector<std::unique_ptr<RangeUnion>> own, below;
  /// Scratch of place().
  std::vector<const RangeUnion *> unions;
  std::vector<std::pair<std::map<int64_t, int64_t>::const_iterator,
                        std::map<int64_t, int64_t>::const_iterator>>
      heap;
};
} // namespace

std::vector<uint32_t>
mlir::memopt::detail::orderBySize(llvm::ArrayRef<Item> items) {
  return sortedOrder(items.size(), [&](uint32_t a, uint32_t b) {
    if (items[a].size != items[b].size)
      return items[a].size > items[b].size;
    return items[a].upper - items[a].lower > items[b].upper - items[b].lower;
  });
}

//===----------------------------------------------------------------------===//
// Sweep placement
//===----------------------------------------------------------------------===//

int64_t mlir::memopt::detail::sweepPlace(llvm::ArrayRef<Item> items,
                                         bool longestFirst,
                                         std::vector<int64_t> &offsets) {
  std::vector<uint32_t> starts =
      sortedOrder(items.size(), [&](uint32_t a, uint32_t b) {
        const Item &x = items[a], &y = items[b];
        if (x.lower != y.lower)
          return x.lower < y.lower;
        if (longestFirst && x.upper != y.upper)
          return x.upper > y.upper;
        if (x.size != y.size)
          return x.size > y.size;
        return x.upper > y.upper;
      });
  std::vector<uint32_t> ends =
      sortedOrder(items.size(), [&](uint32_t a, uint32_t b) {
        return items[a].upper < items[b].upper;
      });
  std::map<int64_t, int64_t> blocks;          // offset -> end of live items
  std::set<std::pair<int64_t, int64_t>> gaps; // (size, offset) between them
  int64_t arena = 0;
  size_t nextEnd = 0;
  for (uint32_t item : starts) {
    const Item &current = items[item];
    for (; nextEnd < ends.size() && items[ends[nextEnd]].upper <= current.lower;
         ++nextEnd) {
      auto block = blocks.find(offsets[ends[nextEnd]]);
      int64_t begin = block->first, end = block->second;
      int64_t prevEnd = block == blocks.begin() ? 0 : std::prev(block)->second;
      auto following = std::next(block);
      if (begin > prevEnd)
        gaps.erase({begin - prevEnd, prevEnd});
      if (following != blocks.end()) {
        if (following->first > end)
          gaps.erase({following->first - end, end});
        gaps.insert({following->first - prevEnd, prevEnd});
      }
      blocks.erase(block);
    }
    int64_t offset;
    auto gap = gaps.lower_bound({current.size, 0});
    if (gap != gaps.end()) {
      auto [gapSize, gapOffset] = *gap;
      gaps.erase(gap);
      if (gapSize > current.size)
        gaps.insert({gapSize - current.size, gapOffset + current.size});
      offset = gapOffset;
    } else {
      offset = blocks.empty() ? 0 : std::prev(blocks.end())->second;
    }
    blocks.emplace(offset, offset + current.size);
    offsets[item] = offset;
    arena = std::max(arena, offset + current.size);
  }
  return arena;
}

//===----------------------------------------------------------------------===//
// Lifetimes
//===----------------------------------------------------------------------===//

uint32_t mlir::memopt::detail::compressLifetimes(llvm::ArrayRef<int64_t> lowers,
                                                 llvm::ArrayRef<int64_t> uppers,
                                                 std::vector<Item> &items) {
  std::vector<int64_t> points(lowers.begin(), lowers.end());
  points.insert(points.end(), uppers.begin(), uppers.end());
  llvm::sort(points);
  points.erase(std::unique(points.begin(), points.end()), points.end());
  auto slot = [&](int64_t point) {
    return static_cast<uint32_t>(llvm::lower_bound(points, point) -
                                 points.begin());
  };
  for (auto [item, lower, upper] : llvm::zip_equal(items, lowers, uppers)) {
    item.lower = slot(lower);
    item.upper = slot(upper);
  }
  return static_cast<uint32_t>(points.size() - 1);
}

int64_t
mlir::memopt::detail::countOverlappingPairs(llvm::ArrayRef<Item> items) {
  std::vector<uint32_t> lowers, uppers;
  for (const Item &item : items) {
    lowers.push_back(item.lower);
    uppers.push_back(item.upper);
  }
  llvm::sort(lowers);
  llvm::sort(uppers);
  int64_t total = 0;
  for (const Item &item : items) {
    // Items starting before this one ends, minus those ending before it
    // starts, minus itself.
    int64_t startedBefore =
        llvm::lower_bound(lowers, item.upper) - lowers.begin();
    int64_t endedBefore =
        llvm::upper_bound(uppers, item.lower) - uppers.begin();
    total += startedBefore - endedBefore - 1;
  }
  return total / 2;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

MemoryPlan mlir::memopt::planGreedyBySize(llvm::ArrayRef<PlanBuffer> buffers,
                                          int64_t alignment) {
  size_t placed = 0;
  return *planGreedyBySize(
      buffers, alignment, std::chrono::steady_clock::time_point::max(), placed);
}

std::optional<MemoryPlan> mlir::memopt::planGreedyBySize(
    llvm::ArrayRef<PlanBuffer> buffers, int64_t alignment,
    std::chrono::steady_clock::time_point deadline, size_t &placed) {
  MemoryPlan plan;
  plan.strategy = "greedy-size";
  plan.offsets.assign(buffers.size(), 0);
  plan.loadBytes = computeLoad(buffers, alignment);
  placed = 0;
  std::vector<Item> items;
  std::vector<uint32_t> ids;
  std::vector<int64_t> lowers, uppers;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (buffer.size <= 0)
      continue;
    items.push_back({0, 0, alignUp(buffer.size, alignment) / alignment});
    ids.push_back(index);
    lowers.push_back(buffer.lower);
    uppers.push_back(buffer.upper);
  }
  if (items.empty())
    return plan;
  uint32_t numSlots = compressLifetimes(lowers, uppers, items);
  GreedyBySizePlacer placer(numSlots);
  int64_t arena = 0;
  for (uint32_t item : orderBySize(items)) {
    if (placed % 4096 == 0 && std::chrono::steady_clock::now() > deadline)
      return std::nullopt;
    int64_t offset = placer.place(items[item]);
    arena = std::max(arena, offset + items[item].size);
    plan.offsets[ids[item]] = offset * alignment;
    ++placed;
  }
  plan.arenaBytes = arena * alignment;
  plan.provedOptimal = plan.arenaBytes == plan.loadBytes;
  return plan;
}
