//===- RandomGraph.cpp - random valid training graphs ---------------------===//
//
// A random forward graph for differential testing: `ops` ops, each drawn
// from a mix of linear algebra, elementwise, normalization and shape ops,
// whose operands are mostly recent or still unused values and sometimes any
// earlier value (skip connections), with shapes kept consistent by
// construction. The values left unused become outputs (those of one type
// summed), each with a loss term (MSE against a target input, or
// cross-entropy over the last dimension against a labels input); the terms
// sum to the loss, so every parameter reaches it. The graph is a pure function
// of the seed: the generator draws from std::mt19937_64 (whose sequence the C++
// standard fixes) with its own modular reductions, never from
// implementation-defined distributions.
//
// Generation is O(n log^2 n) in the number of ops: the candidate lists the
// ops draw from (the unused values, the values of a type, the values a
// concat or a matmul can pair with) are never built; they are ordered
// indices over per-shape lists, so the draws are those of the lists in node
// order and a seed gives the same graph as the quadratic enumeration did.
//
//===----------------------------------------------------------------------===//

#include "memopt/Models/Models.h"

#include "llvm/ADT/MapVector.h"

#include <functional>
#include <map>
#include <random>

using namespace mlir;
using namespace mlir::memopt::gen;

namespace {

/// A Fenwick tree over node indices holding 0 or 1 per index: the unused
/// values, with the k-th in index order.
class IndexSet {
public:
  explicit IndexSet(size_t capacity) : tree(capacity + 1, 0) {}

  void add(size_t index, int64_t delta) {
    count += delta;
    for (size_t i = index + 1; i < tree.size(); i += i & -i)
      tree[i] += delta;
  }
  int64_t size() const { return count; }
  /// The index of the k-th (0-based) member.
  size_t kth(int64_t k) const {
    size_t position = 0;
    size_t step = 1;
    while (step * 2 < tree.size())
      step *= 2;
    for (; step; step /= 2)
      if (position + step < tree.size() && tree[position + step] <= k) {
        position += step;
        k -= tree[position];
      }
    return position;
  }

private:
  std::vector<int64_t> tree;
  int64_t count = 0;
};

/// The k-th (0-based) member of an ordered list of entries in [0, end),
/// given `countUpTo(e)`, the number of members <= e: the smallest e with
/// countUpTo(e) > k (there is one).
static uint64_t kthMember(int64_t k, uint64_t end,
                          llvm::function_ref<int64_t(uint64_t)> countUpTo) {
  uint64_t lo = 0, hi = end - 1;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (countUpTo(mid) > k)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/// The members <= `bound` of an ascending list.
static int64_t countUpTo(const std::vector<uint32_t> *list, uint64_t bound) {
  if (!list)
    return 0;
  return std::upper_bound(list->begin(), list->end(), bound) - list->begin();
}

/// Whether `node` is in the ascending `list` (null: empty).
static bool isMember(const std::vector<uint32_t> *list, uint64_t node) {
  return list && std::binary_search(list->begin(), list->end(), node);
}

/// Bounds that keep every tensor small enough to run.
constexpr int64_t kMaxDim = 48;
constexpr int64_t kMaxElements = 8192;

class RandomGraph {
public:
  RandomGraph(ModelBuilder &builder, uint64_t seed) : b(builder), rng(seed) {}

  void build(int64_t ops);

private:
  enum class Kind {
    Linear,
    BiasAdd,
    Unary,
    Binary,
    LayerNorm,
    RmsNorm,
    Softmax,
    Dropout,
    Reshape,
    Transpose,
    Concat,
    Slice,
    Matmul,
  };

  struct Node {
    Value value;
    /// Whether the value depends on a parameter (a loss on it has a
    /// gradient).
    bool dependsOnParam = false;
    int64_t uses = 0;
    bool isInput = false;
  };

  int64_t below(int64_t n) { return static_cast<int64_t>(rng() % n); }
  int64_t range(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }
  bool chance(int64_t percent) { return below(100) < percent; }

  static ArrayRef<int64_t> shape(Value v) { return ModelBuilder::shapeOf(v); }
  static bool fits(ArrayRef<int64_t> shape);

  /// A recent node most of the time, any earlier one otherwise.
  size_t pickOperand();
  /// One of the `size` candidates (not none), preferring any but the
  /// `selfCount` of them that are `self`: the pick of the old explicit
  /// lists, `others[below(others.size())]` with 80% chance, else any.
  /// `kth(k, skipSelf)` is the k-th candidate, of all or of the others.
  uint64_t pickOther(int64_t size, int64_t selfCount,
                     llvm::function_ref<uint64_t(int64_t, bool)> kth);
  /// pickOther over an ordered set of candidate entries in [0, end), given
  /// `countUpTo(e)`, the number of candidates <= e; `selfEntries`
  /// (ascending) are the candidates that are `self`.
  uint64_t pickOtherEntry(uint64_t end, ArrayRef<uint64_t> selfEntries,
                          llvm::function_ref<int64_t(uint64_t)> countUpTo);
  /// Appends `node` and indexes it.
  void addNode(const Node &node);
  /// The indices of the nodes of element type `element` and `shape`
  /// (`wildcard` = -1) or of `shape` but with any size in dimension
  /// `wildcard`. Null if none.
  const std::vector<uint32_t> *lookup(Type element, ArrayRef<int64_t> shape,
                                      int64_t wildcard) const;
  /// Tries to emit one op of `kind` on node `x`; false if the shapes at hand
  /// do not allow it (nothing is emitted then).
  bool tryEmit(Kind kind, size_t x, int64_t step);
  // The kinds that pick a second operand or a new shape.
  bool emitBinary(size_t xi, int64_t step);
  bool emitReshape(size_t xi, int64_t step);
  bool emitConcat(size_t xi, int64_t step);
  bool emitSlice(size_t xi, int64_t step);
  bool emitMatmul(size_t xi, int64_t step);
  void push(Value value, ArrayRef<size_t> operands, bool usesParam = false);
  std::string name(int64_t step, StringRef what) {
    return "layers." + std::to_string(step) + "." + what.str();
  }

  ModelBuilder &b;
  std::mt19937_64 rng;
  SmallVector<Node> nodes;
  /// The unused nodes (uses == 0).
  IndexSet unused{0};
  /// Node indices, ascending, by (element type, wildcard, shape) with
  /// the wildcard dimension's size replaced by -1 (see lookup).
  std::map<std::vector<int64_t>, std::vector<uint32_t>> byShape;
};

} // namespace

bool RandomGraph::fits(ArrayRef<int64_t> shape) {
  int64_t elements = 1;
  for (int64_t dim : shape) {
    if (dim < 1 || dim > kMaxDim)
      return false;
    elements *= dim;
  }
  return elements <= kMaxElements;
}

size_t RandomGraph::pickOperand() {
  size_t n = nodes.size();
  int64_t draw = below(100);
  if (draw < 35) {
    // A value nothing uses yet: keeps most of the graph on the loss's path.
    if (unused.size() > 0)
      return unused.kth(below(unused.size()));
  }
  if (draw < 55)
    return below(n); // Any earlier value: a skip connection.
  return n - 1 - below(std::min<size_t>(n, 3));
}

uint64_t
RandomGraph::pickOther(int64_t size, int64_t selfCount,
                       llvm::function_ref<uint64_t(int64_t, bool)> kth) {
  int64_t others = size - selfCount;
  if (others > 0 && chance(80))
    return kth(below(others), /*skipSelf=*/true);
  return kth(below(size), /*skipSelf=*/false);
}

uint64_t
RandomGraph::pickOtherEntry(uint64_t end, ArrayRef<uint64_t> selfEntries,
                            llvm::function_ref<int64_t(uint64_t)> countUpTo) {
  return pickOther(countUpTo(end), selfEntries.size(),
                   [&](int64_t k, bool skipSelf) {
                     return kthMember(k, end, [&](uint64_t e) {
                       int64_t count = countUpTo(e);
                       if (skipSelf)
                         for (uint64_t self : selfEntries)
                           count -= e >= self ? 1 : 0;
                       return count;
                     });
                   });
}

static std::vector<int64_t> shapeKey(Type element, ArrayRef<int64_t> shape,
                                     int64_t wildcard) {
  std::vector<int64_t> key = {static_cast<int64_t>(reinterpret_cast<intptr_t>(
                                  element.getAsOpaquePointer())),
                              wildcard};
  key.insert(key.end(), shape.begin(), shape.end());
  if (wildcard >= 0)
    key[2 + wildcard] = -1;
  return key;
}

const std::vector<uint32_t> *RandomGraph::lookup(Type element,
                                                 ArrayRef<int64_t> shape,
                                                 int64_t wildcard) const {
  auto it = byShape.find(shapeKey(element, shape, wildcard));
  return it == byShape.end() ? nullptr : &it->second;
}

void RandomGraph::addNode(const Node &node) {
  uint32_t index = nodes.size();
  nodes.push_back(node);
  if (node.uses == 0)
    unused.add(index, 1);
  auto type = cast<RankedTensorType>(node.value.getType());
  Type element = type.getElementType();
  ArrayRef<int64_t> s = type.getShape();
  byShape[shapeKey(element, s, -1)].push_back(index);
  for (int64_t d = 0, rank = s.size(); d < rank; ++d)
    byShape[shapeKey(element, s, d)].push_back(index);
}

void RandomGraph::push(Value value, ArrayRef<size_t> operands, bool usesParam) {
  Node node;
  node.value = value;
  node.dependsOnParam = usesParam;
  for (size_t operand : operands) {
    if (nodes[operand].uses++ == 0)
      unused.add(operand, -1);
    node.dependsOnParam |= nodes[operand].dependsOnParam;
  }
  addNode(node);
}

bool RandomGraph::emitBinary(size_t xi, int64_t step) {
  Value x = nodes[xi].value;
  ArrayRef<int64_t> s = shape(x);
  // The other operand: any value of the same type, often an earlier one
  // (a residual connection). x is one of them.
  const std::vector<uint32_t> &candidates =
      *lookup(cast<RankedTensorType>(x.getType()).getElementType(), s, -1);
  size_t self = llvm::lower_bound(candidates, xi) - candidates.begin();
  size_t yi = pickOther(candidates.size(), 1, [&](int64_t k, bool skipSelf) {
    return candidates[skipSelf && k >= static_cast<int64_t>(self) ? k + 1 : k];
  });
  Value y = nodes[yi].value;
  std::string loc = name(step, "residual");
  switch (below(3)) {
  case 0:
    push(b.add(x, y, loc), {xi, yi});
    break;
  case 1:
    push(b.sub(x, y, loc), {xi, yi});
    break;
  default:
    push(b.mul(x, y, loc), {xi, yi});
    break;
  }
  return true;
}

bool RandomGraph::emitReshape(size_t xi, int64_t step) {
  Value x = nodes[xi].value;
  ArrayRef<int64_t> s = shape(x);
  int64_t rank = s.size();
  // Split a dimension of a rank-2 value in two, or merge two adjacent
  // dimensions of a rank-3 value.
  SmallVector<int64_t> result;
  if (rank == 2) {
    int64_t dim = below(2);
    SmallVector<int64_t> divisors;
    for (int64_t d = 2; d < s[dim]; ++d)
      if (s[dim] % d == 0)
        divisors.push_back(d);
    if (divisors.empty())
      return false;
    int64_t d = divisors[below(divisors.size())];
    result.assign(s.begin(), s.end());
    result[dim] = s[dim] / d;
    result.insert(result.begin() + dim, d);
  } else {
    result = chance(50) ? SmallVector<int64_t>{s[0] * s[1], s[2]}
                        : SmallVector<int64_t>{s[0], s[1] * s[2]};
  }
  if (!fits(result))
    return false;
  push(b.reshape(x, result, name(step, "reshape")), {xi});
  return true;
}

bool RandomGraph::emitConcat(size_t xi, int64_t step) {
  Value x = nodes[xi].value;
  ArrayRef<int64_t> s = shape(x);
  int64_t rank = s.size();
  // Another value that matches in every dimension but the axis: the
  // members of the lists with one dimension free, in node order; the
  // values of x's shape are in all of them, and each drew its axis, in
  // node order, before the pick.
  Type element = b.getElementType();
  const std::vector<uint32_t> *same = lookup(element, s, -1);
  SmallVector<const std::vector<uint32_t> *> free;
  for (int64_t d = 0; d < rank; ++d)
    free.push_back(lookup(element, s, d));
  auto countUpToNode = [&](uint64_t node) {
    int64_t total = -(rank - 1) * countUpTo(same, node);
    for (const std::vector<uint32_t> *list : free)
      total += countUpTo(list, node);
    return total;
  };
  int64_t numSame = countUpTo(same, nodes.size());
  // x is a candidate when its element type is the model's.
  SmallVector<uint64_t, 1> selfEntries;
  if (isMember(same, xi))
    selfEntries.push_back(xi);
  std::mt19937_64 axisDraws = rng;
  rng.discard(numSame);
  size_t yi = pickOtherEntry(nodes.size(), selfEntries, countUpToNode);
  ArrayRef<int64_t> t = shape(nodes[yi].value);
  int64_t axis = 0;
  if (t == s) {
    axisDraws.discard(countUpTo(same, yi) - 1);
    axis = static_cast<int64_t>(axisDraws() % rank);
  } else {
    while (t[axis] == s[axis])
      ++axis;
  }
  SmallVector<int64_t> result(s);
  result[axis] += shape(nodes[yi].value)[axis];
  if (!fits(result))
    return false;
  Value y = nodes[yi].value;
  Value joined = chance(50) ? b.concat({x, y}, axis, name(step, "concat"))
                            : b.concat({y, x}, axis, name(step, "concat"));
  push(joined, {xi, yi});
  return true;
}

bool RandomGraph::emitSlice(size_t xi, int64_t step) {
  Value x = nodes[xi].value;
  ArrayRef<int64_t> s = shape(x);
  int64_t rank = s.size();
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (s[d] >= 2)
      dims.push_back(d);
  if (dims.empty())
    return false;
  int64_t dim = dims[below(dims.size())];
  SmallVector<int64_t> offsets(rank, 0), sizes(s);
  sizes[dim] = range(1, s[dim] - 1);
  offsets[dim] = below(s[dim] - sizes[dim] + 1);
  push(b.slice(x, offsets, sizes, name(step, "slice")), {xi});
  return true;
}

bool RandomGraph::emitMatmul(size_t xi, int64_t step) {
  Value x = nodes[xi].value;
  ArrayRef<int64_t> s = shape(x);
  int64_t rank = s.size();
  // x [..., M, K] times another value: x^T-shaped (scores, x · yᵀ with
  // y of x's shape) or [..., K, N] / [K, N] (a product of activations).
  // The candidates in node order, x^T-shaped first: entry 2i for (i,
  // x^T-shaped), 2i + 1 for (i, [..., K, N]).
  Type element = b.getElementType();
  const std::vector<uint32_t> *transposed = lookup(element, s, -1);
  // [K, N] (any N), and [..., K, N] with x's batch dimensions.
  const std::vector<uint32_t> *matrices =
      lookup(element, {s.back(), 0}, /*wildcard=*/1);
  const std::vector<uint32_t> *batched = nullptr;
  if (rank > 2) {
    SmallVector<int64_t> rhs(s.drop_back(2));
    rhs.append({s.back(), 0});
    batched = lookup(element, rhs, rank - 1);
  }
  auto countUpToEntry = [&](uint64_t entry) {
    // Entries 2i are at most `entry` for i <= entry / 2; entries 2i + 1
    // for i <= (entry - 1) / 2.
    int64_t total = countUpTo(transposed, entry / 2);
    if (entry >= 1)
      total += countUpTo(matrices, (entry - 1) / 2) +
               countUpTo(batched, (entry - 1) / 2);
    return total;
  };
  uint64_t end = 2 * nodes.size();
  if (countUpToEntry(end) == 0)
    return false;
  SmallVector<uint64_t, 2> selfEntries;
  if (isMember(transposed, xi))
    selfEntries.push_back(2 * xi);
  if (isMember(matrices, xi) || isMember(batched, xi))
    selfEntries.push_back(2 * xi + 1);
  uint64_t entry = pickOtherEntry(end, selfEntries, countUpToEntry);
  size_t yi = entry / 2;
  bool transposeRhs = entry % 2 == 0;
  Value y = nodes[yi].value;
  ArrayRef<int64_t> t = shape(y);
  SmallVector<int64_t> result(s.drop_back());
  result.push_back(transposeRhs ? t[t.size() - 2] : t.back());
  if (!fits(result))
    return false;
  push(b.matmul(x, y, false, transposeRhs, name(step, "matmul")), {xi, yi});
  return true;
}

bool RandomGraph::tryEmit(Kind kind, size_t xi, int64_t step) {
  Value x = nodes[xi].value;
  ArrayRef<int64_t> s = shape(x);
  int64_t rank = s.size();
  switch (kind) {
  case Kind::Linear: {
    int64_t out = range(2, 12);
    bool outMajor = chance(50);
    SmallVector<int64_t> result(s);
    result.back() = out;
    if (!fits(result))
      return false;
    push(b.linear(x, name(step, "linear"), out, /*bias=*/false, outMajor), {xi},
         /*usesParam=*/true);
    return true;
  }
  case Kind::BiasAdd: {
    int64_t dim = chance(70) ? rank - 1 : below(rank);
    Value bias = b.param(name(step, "bias_add.bias"), {s[dim]});
    push(b.biasAdd(x, bias, dim == rank - 1 ? -1 : dim, name(step, "bias_add")),
         {xi}, /*usesParam=*/true);
    return true;
  }
  case Kind::Unary: {
    std::string loc = name(step, "act");
    switch (below(5)) {
    case 0:
      push(b.relu(x, loc), {xi});
      break;
    case 1:
      push(b.gelu(x, /*approximate=*/false, loc), {xi});
      break;
    case 2:
      push(b.gelu(x, /*approximate=*/true, loc), {xi});
      break;
    case 3:
      push(b.silu(x, loc), {xi});
      break;
    default:
      push(b.scale(x, 0.5, loc), {xi});
      break;
    }
    return true;
  }
  case Kind::Binary:
    return emitBinary(xi, step);
  case Kind::LayerNorm:
    push(b.layerNorm(x, name(step, "norm"), 1e-5), {xi}, /*usesParam=*/true);
    return true;
  case Kind::RmsNorm:
    push(b.rmsNorm(x, name(step, "norm"), 1e-6), {xi}, /*usesParam=*/true);
    return true;
  case Kind::Softmax: {
    static const double scales[] = {1.0, 0.5, 0.125};
    push(b.softmax(x, scales[below(3)], /*causal=*/chance(50),
                   name(step, "softmax")),
         {xi});
    return true;
  }
  case Kind::Dropout:
    push(b.dropout(x, 0.1, name(step, "dropout")), {xi});
    return true;
  case Kind::Reshape:
    return emitReshape(xi, step);
  case Kind::Transpose: {
    SmallVector<int64_t> perm;
    if (rank == 2) {
      perm = {1, 0};
    } else {
      static const int64_t perms[][3] = {
          {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
      const int64_t(&chosen)[3] = perms[below(5)];
      perm.assign(std::begin(chosen), std::end(chosen));
    }
    push(b.transpose(x, perm, name(step, "transpose")), {xi});
    return true;
  }
  case Kind::Concat:
    return emitConcat(xi, step);
  case Kind::Slice:
    return emitSlice(xi, step);
  case Kind::Matmul:
    return emitMatmul(xi, step);
  }
  llvm_unreachable("unknown op kind");
}

void RandomGraph::build(int64_t ops) {
  // One or two inputs of rank 2 or 3.
  int64_t inputs = range(1, 2);
  unused = IndexSet(inputs + ops);
  for (int64_t i = 0; i < inputs; ++i) {
    SmallVector<int64_t> s;
    for (int64_t d = 0, rank = range(2, 3); d < rank; ++d)
      s.push_back(range(2, 8));
    Node node;
    node.value = b.addInput("x" + std::to_string(i), s);
    node.isInput = true;
    addNode(node);
  }
  // Relative frequencies of the op kinds.
  static const std::pair<Kind, int64_t> weights[] = {
      {Kind::Linear, 14},   {Kind::BiasAdd, 6},   {Kind::Unary, 12},
      {Kind::Binary, 12},   {Kind::LayerNorm, 5}, {Kind::RmsNorm, 3},
      {Kind::Softmax, 5},   {Kind::Dropout, 4},   {Kind::Reshape, 8},
      {Kind::Transpose, 7}, {Kind::Concat, 7},    {Kind::Slice, 8},
      {Kind::Matmul, 9}};
  int64_t total = 0;
  for (auto [kind, weight] : weights)
    total += weight;
  for (int64_t step = 0; step < ops;) {
    Kind kind;
    if (step == 0) {
      // The first op reads a parameter, so the loss always has one.
      static const Kind first[] = {Kind::Linear, Kind::BiasAdd, Kind::LayerNorm,
                                   Kind::RmsNorm};
      kind = first[below(4)];
    } else {
      int64_t draw = below(total);
      kind = weights[0].first;
      for (auto [candidate, weight] : weights) {
        if (draw < weight) {
          kind = candidate;
          break;
        }
        draw -= weight;
      }
    }
    size_t x = step == 0 ? nodes.size() - 1 : pickOperand();
    b.setLayer("layers." + std::to_string(step));
    if (tryEmit(kind, x, step))
      ++step;
  }
  b.setLayer("");

  // The outputs: every value nothing uses that depends on a parameter (so
  // that every parameter reaches the loss), values of one type summed; then
  // one loss term per output, summed into the loss.
  llvm::MapVector<Type, Value> outputs;
  for (const Node &node : nodes)
    if (node.uses == 0 && !node.isInput && node.dependsOnParam)
      outputs.try_emplace(node.value.getType(), Value());
  for (auto [i, node] : llvm::enumerate(nodes)) {
    if (node.uses != 0 || node.isInput)
      continue;
    auto it = outputs.find(node.value.getType());
    if (it == outputs.end())
      continue;
    it->second = it->second ? b.add(it->second, node.value,
                                    "output." + std::to_string(i))
                            : node.value;
  }
  Value loss;
  for (auto [index, entry] : llvm::enumerate(outputs)) {
    Value out = entry.second;
    ArrayRef<int64_t> s = shape(out);
    std::string suffix = std::to_string(index);
    Value term;
    if (chance(50)) {
      Value target = b.addInput("target" + suffix, s);
      term = b.mseLoss(out, target, "loss." + suffix);
    } else {
      Value labels = b.addIndexInput("labels" + suffix, s.drop_back());
      term = b.crossEntropy(out, labels, "loss." + suffix);
    }
    loss = loss ? b.add(loss, term, "loss") : term;
  }
  b.finish(loss);
}

void mlir::memopt::gen::buildRandom(ModelBuilder &builder,
                                    const RandomConfig &config) {
  RandomGraph(builder, config.seed).build(config.ops);
}
