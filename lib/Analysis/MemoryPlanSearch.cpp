//===- MemoryPlanSearch.cpp - exact search and the portfolio planner ----===//
//
// Stages 3 and 4 of the planner described in MemoryPlan.cpp, and the
// Planner that runs the four stages: the decomposition, the greedy
// portfolio per component, the exact branch and bound and the local
// search.
//
//===----------------------------------------------------------------------===//

#include "MemoryPlanInternal.h"
#include "memopt/Analysis/MemoryPlan.h"

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
// Exact search
//===----------------------------------------------------------------------===//

namespace {
/// Values per section with range add and max queries, for the bytes still to
/// place in each section. Adds are kept at the nodes they cover (not pushed
/// down), so an add is undone by adding the opposite.
class SectionMaxTree {
public:
  explicit SectionMaxTree(llvm::ArrayRef<int64_t> values)
      : size(std::max<size_t>(values.size(), 1)), best(4 * size, 0),
        pending(4 * size, 0) {
    build(1, 0, size, values);
  }

  /// Adds `delta` to the sections [lower, upper).
  void add(uint32_t lower, uint32_t upper, int64_t delta) {
    add(1, 0, size, lower, upper, delta);
  }
  /// The maximum over all sections.
  int64_t max() const { return best[1]; }
  /// The first section whose value is at least `threshold`, or the number of
  /// sections if there is none.
  uint32_t firstAtLeast(int64_t threshold) const {
    if (best[1] < threshold)
      return static_cast<uint32_t>(size);
    size_t node = 1, lower = 0, upper = size;
    int64_t above = 0;
    while (upper - lower > 1) {
      above += pending[node];
      size_t mid = lower + (upper - lower) / 2;
      if (best[2 * node] + above >= threshold) {
        node = 2 * node;
        upper = mid;
      } else {
        node = 2 * node + 1;
        lower = mid;
      }
    }
    return static_cast<uint32_t>(lower);
  }

private:
  void build(size_t node, size_t lower, size_t upper,
             llvm::ArrayRef<int64_t> values) {
    if (upper - lower == 1) {
      best[node] = pending[node] = lower < values.size() ? values[lower] : 0;
      return;
    }
    size_t mid = lower + (upper - lower) / 2;
    build(2 * node, lower, mid, values);
    build(2 * node + 1, mid, upper, values);
    best[node] = std::max(best[2 * node], best[2 * node + 1]);
  }

  void add(size_t node, size_t nodeLower, size_t nodeUpper, uint32_t lower,
           uint32_t upper, int64_t delta) {
    if (lower <= nodeLower && nodeUpper <= upper) {
      pending[node] += delta;
      best[node] += delta;
      return;
    }
    size_t mid = nodeLower + (nodeUpper - nodeLower) / 2;
    if (lower < mid)
      add(2 * node, nodeLower, mid, lower, upper, delta);
    if (upper > mid)
      add(2 * node + 1, mid, nodeUpper, lower, upper, delta);
    best[node] = pending[node] + std::max(best[2 * node], best[2 * node + 1]);
  }

  size_t size;
  /// The maximum of the node's sections, its own pending add included.
  std::vector<int64_t> best;
  /// The add applying to every section of the node (the value at a leaf).
  std::vector<int64_t> pending;
};

/// A branch and bound over canonical plans, after minimalloc (Moffitt 2023).
///
/// A plan is canonical when every item sits at offset 0 or on top of an item
/// it overlaps in time; letting items fall as far as they can makes any plan
/// canonical without raising its arena, so the optimal plans include
/// canonical ones. The search builds a canonical plan in the order of its
/// (offset, first section) keys: the next item goes exactly at its floor (the
/// highest top among the placed items it overlaps in time), and its key must
/// exceed the last one's. Items placed at the same offset are disjoint in
/// time, so ordering them by first section loses nothing; identical items
/// (same lifetime and size) are placed in index order. Candidates are tried
/// in increasing key (offset ordering: the lowest offset first).
///
/// Bounds, with `level` the last offset, `rem[s]` the units of the unplaced
/// items live in section s and C the capacity:
/// - the unplaced items of section s stack above the placed ones there and
///   above `level`: level + rem[s] <= C and (top of s) + rem[s] <= C;
/// - in the sections before the last item's first one, an unplaced item can
///   no longer sit at `level` (its key would be smaller), so they need
///   level + 1 + rem[s] <= C.
/// Placing an item at x keeps these true iff x + max rem <= C and no section
/// before the item's first one has rem >= C - x: so candidates are cut off
/// as soon as x + max rem > C, and at a given x only items starting at or
/// before the first such section are tried. At C = LOAD on a component with
/// no slack, this is bottom-left filling of the lowest valley.
class ExactSearch {
public:
  enum class Outcome { Found, Exhausted, OutOfBudget };

  ExactSearch(llvm::ArrayRef<Item> items, uint32_t numSlots)
      : items(items), numSlots(numSlots), placed(items.size(), 0),
        floorOf(items.size(), 0), offsets(items.size(), 0),
        twin(items.size(), kNone) {
    size_t n = items.size();
    // Adjacency of overlapping lifetimes, from a sweep in start order.
    std::vector<uint32_t> byStart(n);
    std::iota(byStart.begin(), byStart.end(), 0);
    llvm::stable_sort(byStart, [&](uint32_t a, uint32_t b) {
      return items[a].lower < items[b].lower;
    });
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1;
           j < n && items[byStart[j]].lower < items[byStart[i]].upper; ++j)
        pairs.emplace_back(byStart[i], byStart[j]);
    firstNeighbor.assign(n + 1, 0);
    for (auto [a, b] : pairs) {
      ++firstNeighbor[a + 1];
      ++firstNeighbor[b + 1];
    }
    for (size_t i = 0; i < n; ++i)
      firstNeighbor[i + 1] += firstNeighbor[i];
    neighbors.resize(2 * pairs.size());
    std::vector<uint32_t> fill(firstNeighbor.begin(), firstNeighbor.end() - 1);
    for (auto [a, b] : pairs) {
      neighbors[fill[a]++] = b;
      neighbors[fill[b]++] = a;
    }
    byRank.resize(n);
    std::iota(byRank.begin(), byRank.end(), 0);
    llvm::stable_sort(byRank, [&](uint32_t a, uint32_t b) {
      if (items[a].size != items[b].size)
        return items[a].size > items[b].size;
      return items[a].upper > items[b].upper;
    });
    rank.resize(n);
    for (auto [position, item] : llvm::enumerate(byRank))
      rank[item] = position;
    // Identical items, in index order.
    std::vector<uint32_t> same(n);
    std::iota(same.begin(), same.end(), 0);
    llvm::stable_sort(same, [&](uint32_t a, uint32_t b) {
      return std::tie(items[a].lower, items[a].upper, items[a].size) <
             std::tie(items[b].lower, items[b].upper, items[b].size);
    });
    lifetimeOf.assign(n, 0);
    for (size_t i = 1; i < n; ++i) {
      const Item &x = items[same[i - 1]], &y = items[same[i]];
      if (x.lower == y.lower && x.upper == y.upper && x.size == y.size)
        twin[same[i]] = same[i - 1];
      lifetimeOf[same[i]] =
          lifetimeOf[same[i - 1]] + (x.lower != y.lower || x.upper != y.upper);
    }
    stackTop.assign(n, kNone);
    belowOf.assign(n, kNone);
  }

  /// Searches for a plan of arena at most `capacity`. With `minimize`, every
  /// plan found lowers the capacity below its arena and the search goes on
  /// (without restarting), so Exhausted then means that the last plan found
  /// is optimal. `budget` is decreased by the work done; `stop` is polled
  /// now and then (the time limit); OutOfBudget when either ends the search.
  /// The best plan found, if any, is in bestOffsets.
  template <typename Stop>
  Outcome run(int64_t capacity, bool minimize, int64_t &budget, Stop &&stop) {
    size_t n = items.size();
    std::vector<int64_t> remaining(numSlots, 0);
    for (const Item &item : items)
      for (uint32_t slot = item.lower; slot < item.upper; ++slot)
        remaining[slot] += item.size;
    SectionMaxTree rem(remaining);
    budget -= static_cast<int64_t>(numSlots);
    candidates.clear();
    failed.clear();
    sectionFloor.assign(numSlots, 0);
    placedHash = floorHash = 0;
    for (uint32_t item = 0; item < n; ++item) {
      candidates.insert(keyOf(item));
      floorHash += floorTerm(item);
    }

    struct Frame {
      Key cursor;
      uint32_t item;
      size_t trailMark;
      int64_t arena;
      uint64_t hash;
      /// The (offset, first section) of `item`.
      std::pair<int64_t, int64_t> last;
    };
    std::vector<Frame> stack;
    stack.reserve(n + 1);
    stack.push_back({{0, -1, kNone}, kNone, 0, 0, 0, {0, -1}});
    int64_t steps = 0;
    while (!stack.empty()) {
      if (budget <= 0 || ((++steps & 1023) == 0 && stop()))
        return Outcome::OutOfBudget;
      Frame &frame = stack.back();
      auto it = candidates.upper_bound(frame.cursor);
      uint32_t next = kNone;
      while (it != candidates.end()) {
        --budget;
        auto [offset, lower, order] = *it;
        uint32_t item = byRank[order];
        if (offset + rem.max() > capacity)
          break;
        if (lower > rem.firstAtLeast(capacity - offset)) {
          // No item of this offset starting later can go here either.
          frame.cursor = {offset, std::numeric_limits<int64_t>::max(), kNone};
          it = candidates.upper_bound(frame.cursor);
          continue;
        }
        frame.cursor = *it;
        uint32_t below = stackTop[lifetimeOf[item]];
        if ((twin[item] != kNone && !placed[twin[item]]) ||
            (below != kNone && rank[below] > rank[item] &&
             offsets[below] + items[below].size == offset)) {
          ++it;
          continue;
        }
        next = item;
        break;
      }
      if (next == kNone) {
        // Exhausted: remember the failure of this state.
        uint32_t item = frame.item;
        size_t mark = frame.trailMark;
        if (item != kNone && failed.size() < kMaxFailedStates) {
          auto [entry, inserted] = failed.try_emplace(frame.hash, frame.last);
          if (!inserted)
            entry->second = std::min(entry->second, frame.last);
        }
        stack.pop_back();
        if (item != kNone)
          unplace(item, mark, rem);
        continue;
      }
      const Item &current = items[next];
      int64_t offset = floorOf[next];
      int64_t arena = std::max(frame.arena, offset + current.size);
      size_t mark = trail.size();
      place(next, rem, budget);
      uint64_t hash = placedHash ^ floorHash;
      auto known = failed.find(hash);
      std::pair<int64_t, int64_t> last = {offset, current.lower};
      if ((known != failed.end() && known->second <= last) ||
          !sectionsCanBeFilled(last, capacity, budget)) {
        unplace(next, mark, rem);
        continue;
      }
      stack.push_back(
          {{offset, current.lower, kNone}, next, mark, arena, hash, last});
      if (stack.size() != n + 1)
        continue;
      // A complete plan.
      bestOffsets = offsets;
      bestArena = arena;
      if (!minimize)
        return Outcome::Found;
      capacity = arena - 1;
    }
    return Outcome::Exhausted;
  }

  /// The best plan found by run() and its arena.
  std::vector<int64_t> bestOffsets;
  int64_t bestArena = 0;

private:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  /// Bounds the memory of the failed states (about 32 MB).
  static constexpr size_t kMaxFailedStates = 1 << 20;
  /// (offset, first section, rank): the order of placement; items of the
  /// same offset and first section overlap, so the rank only orders the
  /// tries: the longest, then the largest, first (the most constrained).
  using Key = std::tuple<int64_t, int64_t, uint32_t>;

  Key keyOf(uint32_t item) const {
    return {floorOf[item], items[item].lower, rank[item]};
  }

  static uint64_t mix(uint64_t value) {
    value += 0x9e3779b97f4a7c15ULL;
    value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
    value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
    return value ^ (value >> 31);
  }
  /// The hash terms of a placed item and of an unplaced item's floor.
  static uint64_t placedTerm(uint32_t item) { return mix(item); }
  uint64_t floorTerm(uint32_t item) const {
    return mix(mix(item ^ 0x5bd1e995ULL) +
               static_cast<uint64_t>(floorOf[item]));
  }

  /// The section inference: an unplaced item can only sit at its floor if
  /// its key exceeds `last`, else above the last offset; floors only rise.
  /// So in each section nothing can start below the lowest such place, and
  /// the section's unplaced units must fit between it and the capacity.
  /// O(sections + lifetimes of the unplaced items).
  bool sectionsCanBeFilled(std::pair<int64_t, int64_t> last, int64_t capacity,
                           int64_t &budget) {
    int64_t level = last.first;
    lowest.assign(numSlots, std::numeric_limits<int64_t>::max());
    units.assign(numSlots, 0);
    int64_t work = numSlots;
    for (uint32_t item = 0; item < items.size(); ++item) {
      if (placed[item])
        continue;
      const Item &current = items[item];
      int64_t low = floorOf[item];
      if (std::make_pair(low, int64_t(current.lower)) <= last)
        low = level + 1;
      work += current.upper - current.lower;
      for (uint32_t slot = current.lower; slot < current.upper; ++slot) {
        lowest[slot] = std::min(lowest[slot], low);
        units[slot] += current.size;
      }
    }
    budget -= work;
    for (uint32_t slot = 0; slot < numSlots; ++slot)
      if (units[slot] > 0 &&
          std::max(lowest[slot], sectionFloor[slot]) + units[slot] > capacity)
        return false;
    return true;
  }

  void place(uint32_t item, SectionMaxTree &rem, int64_t &budget) {
    const Item &current = items[item];
    placed[item] = 1;
    offsets[item] = floorOf[item];
    candidates.erase(keyOf(item));
    placedHash ^= placedTerm(item);
    floorHash -= floorTerm(item);
    belowOf[item] = stackTop[lifetimeOf[item]];
    stackTop[lifetimeOf[item]] = item;
    rem.add(current.lower, current.upper, -current.size);
    int64_t top = offsets[item] + current.size;
    for (uint32_t slot = current.lower; slot < current.upper; ++slot) {
      floorTrail.push_back(sectionFloor[slot]);
      sectionFloor[slot] = top;
    }
    uint32_t begin = firstNeighbor[item], end = firstNeighbor[item + 1];
    budget -= 1 + (end - begin);
    for (uint32_t edge = begin; edge < end; ++edge) {
      uint32_t other = neighbors[edge];
      if (placed[other] || floorOf[other] >= top)
        continue;
      trail.emplace_back(other, floorOf[other]);
      candidates.erase(keyOf(other));
      floorHash -= floorTerm(other);
      floorOf[other] = top;
      floorHash += floorTerm(other);
      candidates.insert(keyOf(other));
    }
  }

  void unplace(uint32_t item, size_t mark, SectionMaxTree &rem) {
    while (trail.size() > mark) {
      auto [other, floor] = trail.back();
      trail.pop_back();
      candidates.erase(keyOf(other));
      floorHash -= floorTerm(other);
      floorOf[other] = floor;
      floorHash += floorTerm(other);
      candidates.insert(keyOf(other));
    }
    const Item &current = items[item];
    rem.add(current.lower, current.upper, current.size);
    for (uint32_t slot = current.upper; slot-- > current.lower;) {
      sectionFloor[slot] = floorTrail.back();
      floorTrail.pop_back();
    }
    placed[item] = 0;
    stackTop[lifetimeOf[item]] = belowOf[item];
    candidates.insert(keyOf(item));
    placedHash ^= placedTerm(item);
    floorHash += floorTerm(item);
  }

  llvm::ArrayRef<Item> items;
  uint32_t numSlots;
  std::vector<uint32_t> firstNeighbor, neighbors;
  std::vector<uint8_t> placed;
  /// Per item: the highest top among the placed items it overlaps in time.
  std::vector<int64_t> floorOf;
  std::vector<int64_t> offsets;
  /// Items of the same lifetime stacked directly on each other can be
  /// permuted, so a stack is built in rank order. Per item its lifetime's
  /// number; per lifetime the last placed item; per placed item the one
  /// placed before it of the same lifetime.
  std::vector<uint32_t> lifetimeOf, stackTop, belowOf;
  /// Items by rank (see Key), and the rank of each.
  std::vector<uint32_t> byRank, rank;
  /// The identical item of the next lower index, or kNone.
  std::vector<uint32_t> twin;
  /// The unplaced items by key.
  std::set<Key> candidates;
  /// (item, previous floor) for every floor raised, to undo placements.
  std::vector<std::pair<uint32_t, int64_t>> trail;
  /// The states known to fail: the hash of the placed items and of the
  /// unplaced items' floors (all the future depends on, with the last key)
  /// -> the smallest last (offset, first section) with which it failed. A
  /// larger last key only allows fewer continuations, so it fails too.
  llvm::DenseMap<uint64_t, std::pair<int64_t, int64_t>> failed;
  /// Per section: the top of the placed items there, and the previous values
  /// (in placement order, to undo).
  std::vector<int64_t> sectionFloor, floorTrail;
  /// Scratch of sectionsCanBeFilled.
  std::vector<int64_t> lowest, units;
  uint64_t placedHash = 0, floorHash = 0;
};
} // namespace

//===----------------------------------------------------------------------===//
// The planner
//===----------------------------------------------------------------------===//

namespace {
/// Components with at most this many overlapping pairs of lifetimes run the
/// best-fit members of the portfolio (whose cost is proportional to the
/// pairs) and the local search; bigger ones use the sweeps only.
constexpr int64_t kMaxPairsForBestFit = 10'000'000;
/// Components with at most this many items and overlapping pairs get the
/// exact search: its memory grows with the pairs, and on bigger ones it
/// rarely finishes within the budget.
constexpr size_t kMaxItemsForExact = 5000;
constexpr int64_t kMaxPairsForExact = 2'000'000;

/// A splitmix64 generator: the search's only randomness, seeded with a
/// constant so that plans are deterministic.
class Random {
public:
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform-ish in [0, bound).
  uint64_t below(uint64_t bound) { return next() % bound; }

private:
  uint64_t state = 0x6d656d6f7074ULL;
};

/// A component left by the decomposition, and its plan so far.
struct Leaf {
  /// Where the component's offsets start (above the stacks below it).
  int64_t base = 0;
  /// The input indices of its items.
  std::vector<uint32_t> ids;
  std::vector<Item> items;
  uint32_t numSlots = 0;
  int64_t load = 0;
  int64_t pairs = 0;
  /// The best plan so far (offsets relative to base).
  std::vector<int64_t> offsets;
  int64_t arena = 0;
  std::string strategy;
  bool searched = false;
  /// No plan of the component has a smaller arena (an exhaustive search).
  bool proved = false;

  int64_t top() const { return base + arena; }
  /// Whether best-fit placement is affordable (see kMaxPairsForBestFit).
  bool canSearch() const { return pairs <= kMaxPairsForBestFit; }
  /// Whether the exact search is (see kMaxItemsForExact).
  bool canSolveExactly() const {
    return items.size() <= kMaxItemsForExact && pairs <= kMaxPairsForExact;
  }
};

class Planner {
public:
  Planner(llvm::ArrayRef<PlanBuffer> buffers, const MemoryPlanOptions &options)
      : buffers(buffers), options(options), budget(options.searchBudget),
        exactBudget(options.exactBudget),
        start(std::chrono::steady_clock::now()) {}

  MemoryPlan run();

private:
  /// One buffer of non-zero size, in alignment units.
  struct Unit {
    int64_t lower, upper, size;
    uint32_t id;
  };

  /// Stage 1 (see the file comment of MemoryPlan.cpp): splits the buffers
  /// into components, stacks the spanning buffers of each at `offsets`
  /// (raising `arena` to their top) and returns the leaves left, each planned
  /// by the greedy portfolio.
  std::vector<Leaf> decompose(std::vector<int64_t> &offsets, int64_t &arena);
  /// Stage 3: the exact search on the leaves that may set the arena.
  void solveLeavesExactly(std::vector<Leaf> &leaves, int64_t arena);
  /// Stage 4: the local search on the leaf on top.
  void improveTopLeaf(std::vector<Leaf> &leaves, int64_t arena);
  /// Builds the leaf of `units` and runs the greedy portfolio on it.
  Leaf planComponent(llvm::ArrayRef<Unit> units, int64_t base);
  /// Local search on `leaf` until its arena is at most `target` or the
  /// budget is spent.
  void improve(Leaf &leaf, int64_t target);
  /// Exact search on `leaf` with at most `share` work units (taken from
  /// exactBudget).
  void solveExactly(Leaf &leaf, int64_t share);
  bool outOfTime() const {
    return options.timeLimitSeconds > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
                   .count() > options.timeLimitSeconds;
  }

  llvm::ArrayRef<PlanBuffer> buffers;
  const MemoryPlanOptions &options;
  int64_t budget;
  int64_t exactBudget;
  std::chrono::steady_clock::time_point start;
};
} // namespace

MemoryPlan Planner::run() {
  int64_t alignment = options.alignment;
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  plan.loadBytes = computeLoad(buffers, alignment);

  std::vector<int64_t> offsets(buffers.size(), 0);
  int64_t arena = 0;
  std::vector<Leaf> leaves = decompose(offsets, arena);
  solveLeavesExactly(leaves, arena);
  improveTopLeaf(leaves, arena);

  // The strategy reported is that of the component that sets the arena. The
  // arena is optimal if it is LOAD, or if every component that sets it is
  // proved optimal (the stacks below them lose nothing).
  std::string strategy = "trivial";
  bool proved = true;
  for (const Leaf &leaf : leaves) {
    for (auto [id, offset] : llvm::zip_equal(leaf.ids, leaf.offsets))
      offsets[id] = leaf.base + offset;
    if (leaf.top() > arena) {
      arena = leaf.top();
      strategy = leaf.strategy;
    } else if (leaf.top() == arena && strategy == "trivial") {
      strategy = leaf.strategy;
    }
  }

  for (auto [index, offset] : llvm::enumerate(offsets))
    plan.offsets[index] = offset * alignment;
  plan.arenaBytes = arena * alignment;
  plan.strategy = strategy;
  for (const Leaf &leaf : leaves)
    if (leaf.top() == arena && !leaf.proved && leaf.arena != leaf.load)
      proved = false;
  plan.provedOptimal = plan.arenaBytes == plan.loadBytes || proved;
  return plan;
}

std::vector<Leaf> Planner::decompose(std::vector<int64_t> &offsets,
                                     int64_t &arena) {
  int64_t alignment = options.alignment;
  std::vector<Unit> all;
  for (auto [index, buffer] : llvm::enumerate(buffers))
    if (buffer.size > 0)
      all.push_back({buffer.lower, buffer.upper,
                     alignUp(buffer.size, alignment) / alignment,
                     static_cast<uint32_t>(index)});

  // A worklist of (units, base).
  std::vector<Leaf> leaves;
  std::vector<std::pair<std::vector<Unit>, int64_t>> work;
  work.emplace_back(std::move(all), 0);
  while (!work.empty()) {
    auto [units, base] = std::move(work.back());
    work.pop_back();
    llvm::sort(units, [](const Unit &a, const Unit &b) {
      return std::tie(a.lower, a.upper, a.id) <
             std::tie(b.lower, b.upper, b.id);
    });
    for (size_t first = 0; first < units.size();) {
      size_t last = first + 1;
      int64_t upper = units[first].upper;
      for (; last < units.size() && units[last].lower < upper; ++last)
        upper = std::max(upper, units[last].upper);
      llvm::MutableArrayRef<Unit> component(&units[first], last - first);
      first = last;

      // Stack the buffers live over the whole component at the bottom,
      // largest first.
      int64_t lower = component.front().lower;
      std::vector<Unit> spanning, rest;
      for (const Unit &unit : component)
        (unit.lower == lower && unit.upper == upper ? spanning : rest)
            .push_back(unit);
      llvm::stable_sort(spanning, [](const Unit &a, const Unit &b) {
        return a.size > b.size;
      });
      int64_t top = base;
      for (const Unit &unit : spanning) {
        offsets[unit.id] = top;
        top += unit.size;
      }
      arena = std::max(arena, top);
      if (rest.empty())
        continue;
      if (!spanning.empty()) {
        work.emplace_back(std::move(rest), top);
        continue;
      }
      leaves.push_back(planComponent(rest, base));
    }
  }
  return leaves;
}

void Planner::solveLeavesExactly(std::vector<Leaf> &leaves, int64_t arena) {
  // The leaves that may set the arena (above the highest bound: a stack or a
  // leaf's LOAD) and are small enough, smallest first: each gets an equal
  // share of what is left of the budget, so what the small ones do not use
  // goes to the bigger ones.
  int64_t bound = arena;
  for (const Leaf &leaf : leaves)
    bound = std::max(bound, leaf.base + leaf.load);
  std::vector<size_t> exactOrder;
  for (auto [index, leaf] : llvm::enumerate(leaves))
    if (leaf.top() > bound && leaf.canSolveExactly())
      exactOrder.push_back(index);
  llvm::stable_sort(exactOrder, [&](size_t a, size_t b) {
    return leaves[a].items.size() < leaves[b].items.size();
  });
  for (auto [position, index] : llvm::enumerate(exactOrder)) {
    if (exactBudget <= 0 || outOfTime())
      break;
    solveExactly(leaves[index],
                 exactBudget /
                     static_cast<int64_t>(exactOrder.size() - position));
  }
}

void Planner::improveTopLeaf(std::vector<Leaf> &leaves, int64_t arena) {
  // The budget is spent where it lowers the arena: on the leaf on top, until
  // it is no higher than the next one; when the top leaf cannot be improved
  // any further, nothing can.
  while (budget > 0 && !leaves.empty()) {
    auto highest = llvm::max_element(
        leaves, [](const Leaf &a, const Leaf &b) { return a.top() < b.top(); });
    Leaf &leaf = *highest;
    if (leaf.top() <= arena || leaf.searched || leaf.proved ||
        !leaf.canSearch() || leaf.arena == leaf.load)
      break;
    int64_t next = arena;
    for (const Leaf &other : leaves)
      if (&other != &leaf)
        next = std::max(next, other.top());
    if (next >= leaf.top())
      break;
    improve(leaf, std::max(leaf.load, next - leaf.base));
    leaf.searched = true;
  }
}

Leaf Planner::planComponent(llvm::ArrayRef<Unit> units, int64_t base) {
  Leaf leaf;
  leaf.base = base;
  std::vector<Item> &items = leaf.items;
  items.resize(units.size());
  std::vector<int64_t> lowers, uppers;
  std::vector<PlanBuffer> asBuffers;
  for (auto [item, unit] : llvm::zip_equal(items, units)) {
    item.size = unit.size;
    leaf.ids.push_back(unit.id);
    lowers.push_back(unit.lower);
    uppers.push_back(unit.upper);
    asBuffers.push_back({unit.lower, unit.upper, unit.size});
  }
  leaf.numSlots = compressLifetimes(lowers, uppers, items);
  int64_t load = leaf.load = computeLoad(asBuffers);
  leaf.pairs = countOverlappingPairs(items);

  leaf.arena = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> offsets(items.size());
  auto consider = [&](int64_t arena, llvm::StringRef strategy) {
    if (arena >= leaf.arena)
      return;
    leaf.arena = arena;
    leaf.strategy = strategy.str();
    leaf.offsets = offsets;
  };

  // The sweeps first: they are O(n log n) whatever the overlap.
  consider(sweepPlace(items, /*longestFirst=*/true, offsets), "sweep-length");
  if (leaf.arena > load)
    consider(sweepPlace(items, /*longestFirst=*/false, offsets), "sweep-size");

  if (leaf.arena > load && leaf.canSearch()) {
    BestFitPlacer placer(items, leaf.numSlots);
    auto length = [&](uint32_t item) {
      return static_cast<int64_t>(items[item].upper - items[item].lower);
    };
    std::vector<std::pair<std::vector<uint32_t>, const char *>> orders;
    orders.emplace_back(orderBySize(items), "greedy-size");
    orders.emplace_back(sortedOrder(items.size(),
                                    [&](uint32_t a, uint32_t b) {
                                      if (length(a) != length(b))
                                        return length(a) > length(b);
                                      return items[a].size > items[b].size;
                                    }),
                        "greedy-length");
    orders.emplace_back(
        sortedOrder(items.size(),
                    [&](uint32_t a, uint32_t b) {
                      // Areas are compared in floating point: size x length
                      // may overflow.
                      double x = static_cast<double>(items[a].size) * length(a);
                      double y = static_cast<double>(items[b].size) * length(b);
                      if (x != y)
                        return x > y;
                      return items[a].size > items[b].size;
                    }),
        "greedy-area");
    for (auto &[order, name] : orders) {
      if (leaf.arena == load)
        break;
      int64_t work = 0;
      consider(placer.place(order, 0, offsets, work), name);
    }
  }
  return leaf;
}

void Planner::improve(Leaf &leaf, int64_t target) {
  llvm::ArrayRef<Item> items = leaf.items;
  std::vector<int64_t> &bestOffsets = leaf.offsets;
  // Local search over first-fit orders, starting from the best plan so far
  // in the order of its offsets (which first fit places no higher): move a
  // buffer that reaches the top of the arena to an earlier position (so it
  // is placed while there is more room below), or swap two buffers; keep the
  // move unless the arena grows (equal arenas are accepted, to walk
  // plateaus).
  BestFitPlacer placer(items, leaf.numSlots, /*firstFit=*/true);
  Random random;
  size_t n = items.size();
  std::vector<uint32_t> order = sortedOrder(n, [&](uint32_t a, uint32_t b) {
    return std::tie(bestOffsets[a], items[a].lower) <
           std::tie(bestOffsets[b], items[b].lower);
  });
  std::vector<int64_t> offsets(n);
  int64_t work = 0;
  int64_t arena = placer.place(order, 0, offsets, work);
  budget -= work;
  if (arena < leaf.arena) {
    leaf.arena = arena;
    leaf.strategy = "search";
    bestOffsets = offsets;
  }
  std::vector<uint32_t> position(n);
  for (auto [pos, item] : llvm::enumerate(order))
    position[item] = pos;
  std::vector<uint32_t> candidateOrder;
  std::vector<int64_t> candidateOffsets;
  std::vector<uint32_t> onTop, candidateTop;
  // The items reaching the arena's top.
  auto topCount = [&](llvm::ArrayRef<int64_t> at, int64_t top,
                      std::vector<uint32_t> &result) {
    result.clear();
    for (uint32_t item = 0; item < n; ++item)
      if (at[item] + items[item].size == top)
        result.push_back(item);
    return result.size();
  };
  topCount(offsets, arena, onTop);
  while (budget > 0 && arena > target && n > 1) {
    if (outOfTime())
      break;
    candidateOrder = order;
    size_t from;
    if (onTop.empty() && topCount(offsets, arena, onTop) == 0)
      break;
    budget -= static_cast<int64_t>(n);
    if (random.below(4) != 0) {
      uint32_t item = onTop[random.below(onTop.size())];
      size_t oldPos = position[item];
      if (oldPos == 0)
        continue;
      size_t newPos = random.below(oldPos);
      std::rotate(candidateOrder.begin() + newPos,
                  candidateOrder.begin() + oldPos,
                  candidateOrder.begin() + oldPos + 1);
      from = newPos;
    } else {
      size_t a = random.below(n), b = random.below(n);
      if (a == b)
        continue;
      std::swap(candidateOrder[a], candidateOrder[b]);
      from = std::min(a, b);
    }
    candidateOffsets = offsets;
    work = 0;
    int64_t candidateArena =
        placer.place(candidateOrder, from, candidateOffsets, work);
    budget -= work;
    // Fewer buffers on top, at the same arena, is progress too.
    if (candidateArena > arena)
      continue;
    size_t count = topCount(candidateOffsets, candidateArena, candidateTop);
    if (candidateArena == arena && count > onTop.size())
      continue;
    onTop.swap(candidateTop);
    order.swap(candidateOrder);
    offsets.swap(candidateOffsets);
    for (auto [pos, item] : llvm::enumerate(order))
      position[item] = pos;
    if (candidateArena < leaf.arena) {
      leaf.arena = candidateArena;
      leaf.strategy = "search";
      bestOffsets = offsets;
    }
    arena = candidateArena;
  }
}

void Planner::solveExactly(Leaf &leaf, int64_t share) {
  ExactSearch search(leaf.items, leaf.numSlots);
  int64_t left = share;
  auto stop = [&] { return outOfTime(); };
  // LOAD first: if reached, the plan is optimal; if the search space is
  // exhausted, LOAD is out of reach and the search minimizes below the best
  // arena so far.
  ExactSearch::Outcome outcome =
      search.run(leaf.load, /*minimize=*/false, left, stop);
  if (outcome == ExactSearch::Outcome::Exhausted && leaf.arena > leaf.load + 1)
    outcome = search.run(leaf.arena - 1, /*minimize=*/true, left, stop);
  if (outcome != ExactSearch::Outcome::OutOfBudget)
    leaf.proved = true;
  exactBudget -= share - left;
  if (!search.bestOffsets.empty() && search.bestArena < leaf.arena) {
    leaf.arena = search.bestArena;
    leaf.offsets = search.bestOffsets;
    leaf.strategy = "exact";
  }
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

llvm::Expected<MemoryPlan>
mlir::memopt::planMemory(llvm::ArrayRef<PlanBuffer> buffers,
                         const MemoryPlanOptions &options) {
  if (llvm::Error error = validatePlanInput(buffers, options.alignment))
    return std::move(error);
  return Planner(buffers, options).run();
}
