//===- MemoryPlanInternal.h - shared by the memory planner files -*- C++
//-*-===//
//
// Internal to the analysis library: what the greedy placers (MemoryPlan.cpp)
// and the exact search and portfolio planner (MemoryPlanSearch.cpp) share:
// the planner's view of a buffer (Item), the best-fit placer and the greedy
// orders, the sweep and the lifetime compression.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_ANALYSIS_MEMORYPLANINTERNAL_H
#define MEMOPT_LIB_ANALYSIS_MEMORYPLANINTERNAL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

namespace mlir::memopt::detail {

/// `value` rounded up to `alignment` (a power of two); the caller guarantees
/// that this does not overflow.
inline int64_t alignUp(int64_t value, int64_t alignment) {
  return (value + (alignment - 1)) & ~(alignment - 1);
}

/// A buffer of a component as the planner sees it: lifetime in compressed
/// slots [lower, upper) of the component, size in alignment units (> 0).
struct Item {
  uint32_t lower;
  uint32_t upper;
  int64_t size;
};

/// The already placed items, indexed by lifetime: a segment tree over slots
/// whose nodes list the items covering them (each item is listed at the
/// O(log T) nodes of its canonical decomposition), so the items overlapping a
/// query lifetime are found in time proportional to their number.
class OverlapIndex {
public:
  explicit OverlapIndex(uint32_t numSlots)
      : numSlots(std::max<uint32_t>(numSlots, 1)),
        head(4 * static_cast<size_t>(this->numSlots), -1),
        count(4 * static_cast<size_t>(this->numSlots), 0) {}

  void clear() {
    std::fill(head.begin(), head.end(), -1);
    std::fill(count.begin(), count.end(), 0);
    next.clear();
    itemOf.clear();
  }

  void insert(uint32_t item, uint32_t lower, uint32_t upper) {
    insert(1, 0, numSlots, lower, upper, item);
  }

  /// Calls `fn(item)` for every listed item overlapping [lower, upper),
  /// possibly more than once; returns the number of entries and nodes
  /// visited (the work).
  template <typename Fn>
  int64_t query(uint32_t lower, uint32_t upper, Fn &&fn) const {
    int64_t work = 0;
    query(1, 0, numSlots, lower, upper, fn, work);
    return work;
  }

private:
  void insert(size_t node, uint32_t nodeLower, uint32_t nodeUpper,
              uint32_t lower, uint32_t upper, uint32_t item) {
    ++count[node];
    if (lower <= nodeLower && nodeUpper <= upper) {
      next.push_back(head[node]);
      itemOf.push_back(item);
      head[node] = static_cast<int32_t>(itemOf.size() - 1);
      return;
    }
    uint32_t mid = nodeLower + (nodeUpper - nodeLower) / 2;
    if (lower < mid)
      insert(2 * node, nodeLower, mid, lower, upper, item);
    if (upper > mid)
      insert(2 * node + 1, mid, nodeUpper, lower, upper, item);
  }

  template <typename Fn>
  void query(size_t node, uint32_t nodeLower, uint32_t nodeUpper,
             uint32_t lower, uint32_t upper, Fn &fn, int64_t &work) const {
    if (count[node] == 0)
      return;
    ++work;
    for (int32_t entry = head[node]; entry >= 0; entry = next[entry]) {
      ++work;
      fn(itemOf[entry]);
    }
    if (nodeUpper - nodeLower == 1)
      return;
    uint32_t mid = nodeLower + (nodeUpper - nodeLower) / 2;
    if (lower < mid)
      query(2 * node, nodeLower, mid, lower, upper, fn, work);
    if (upper > mid)
      query(2 * node + 1, mid, nodeUpper, lower, upper, fn, work);
  }

  uint32_t numSlots;
  std::vector<int32_t> head;
  std::vector<uint32_t> count;
  std::vector<int32_t> next;
  std::vector<uint32_t> itemOf;
};

/// Places items one at a time in a given order, each at the start of the
/// smallest gap that fits it between the placed items overlapping it in time
/// (the lowest such gap on ties), else on top of them. With `firstFit`, the
/// lowest gap that fits instead: placing the items of any plan in the order
/// of their offsets then gives every item an offset no higher than in that
/// plan (the items placed before it end below its old offset), so an order
/// represents any plan, the optimal ones included.
class BestFitPlacer {
public:
  BestFitPlacer(llvm::ArrayRef<Item> items, uint32_t numSlots,
                bool firstFit = false)
      : items(items), index(numSlots), seen(items.size(), 0),
        firstFit(firstFit) {}

  /// Places `order[from:]` given that `order[:from]` already sit at
  /// `offsets`; returns the arena. Adds the work done to `work`.
  int64_t place(llvm::ArrayRef<uint32_t> order, size_t from,
                std::vector<int64_t> &offsets, int64_t &work) {
    index.clear();
    int64_t arena = 0;
    for (uint32_t item : order.take_front(from)) {
      index.insert(item, items[item].lower, items[item].upper);
      arena = std::max(arena, offsets[item] + items[item].size);
    }
    work += from;
    for (uint32_t item : order.drop_front(from)) {
      const Item &current = items[item];
      ++stamp;
      ranges.clear();
      work += index.query(current.lower, current.upper, [&](uint32_t other) {
        if (seen[other] == stamp)
          return;
        seen[other] = stamp;
        ranges.emplace_back(offsets[other], offsets[other] + items[other].size);
      });
      llvm::sort(ranges);
      int64_t cursor = 0, best = -1;
      int64_t bestGap = std::numeric_limits<int64_t>::max();
      for (auto [begin, end] : ranges) {
        int64_t gap = begin - cursor;
        if (gap >= current.size && gap < bestGap) {
          best = cursor;
          bestGap = gap;
          if (firstFit)
            break;
        }
        cursor = std::max(cursor, end);
      }
      int64_t offset = best >= 0 ? best : cursor;
      offsets[item] = offset;
      arena = std::max(arena, offset + current.size);
      index.insert(item, current.lower, current.upper);
      ++work;
    }
    return arena;
  }

private:
  llvm::ArrayRef<Item> items;
  OverlapIndex index;
  std::vector<uint32_t> seen;
  uint32_t stamp = 0;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  bool firstFit;
};

/// Item indices sorted by `less`, ties by index (stable).
template <typename Less>
std::vector<uint32_t> sortedOrder(size_t size, Less less) {
  std::vector<uint32_t> order(size);
  std::iota(order.begin(), order.end(), 0);
  llvm::stable_sort(order, less);
  return order;
}

/// The baseline order: size descending, then longer lifetime, then index.
std::vector<uint32_t> orderBySize(llvm::ArrayRef<Item> items);

/// Places the items in order of their start, as an allocator that knows the
/// future would: at each point the items ending there are freed, then those
/// starting there are placed best fit among the live ones (the longest first
/// if `longestFirst`, else the largest). O(n log n); the portfolio's member
/// for components too big for the general best fit.
int64_t sweepPlace(llvm::ArrayRef<Item> items, bool longestFirst,
                   std::vector<int64_t> &offsets);

/// Lifetimes compressed to slots: the distinct points of the component,
/// consecutive pairs of which are the slots. Sets the items' lifetimes;
/// returns the number of slots.
uint32_t compressLifetimes(llvm::ArrayRef<int64_t> lowers,
                           llvm::ArrayRef<int64_t> uppers,
                           std::vector<Item> &items);

/// The number of pairs of items whose lifetimes overlap.
int64_t countOverlappingPairs(llvm::ArrayRef<Item> items);

} // namespace mlir::memopt::detail

#endif // MEMOPT_LIB_ANALYSIS_MEMORYPLANINTERNAL_H
