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
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "llvm/ADT/MapVector.h"

#include <random>
#include <type_traits>

using namespace mlir;
using namespace mlir::memopt::gen;

namespace {

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
  /// One of `candidates` (not empty), preferring any but `self`.
  template <typename T> T pickOther(ArrayRef<T> candidates, size_t self);
  /// Tries to emit one op of `kind` on node `x`; false if the shapes at hand
  /// do not allow it (nothing is emitted then).
  bool tryEmit(Kind kind, size_t x, int64_t step);
  void push(Value value, ArrayRef<size_t> operands, bool usesParam = false);
  std::string name(int64_t step, StringRef what) {
    return "layers." + std::to_string(step) + "." + what.str();
  }

  ModelBuilder &b;
  std::mt19937_64 rng;
  SmallVector<Node> nodes;
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
    SmallVector<size_t> unused;
    for (auto [i, node] : llvm::enumerate(nodes))
      if (node.uses == 0)
        unused.push_back(i);
    if (!unused.empty())
      return unused[below(unused.size())];
  }
  if (draw < 55)
    return below(n); // Any earlier value: a skip connection.
  return n - 1 - below(std::min<size_t>(n, 3));
}

template <typename T>
T RandomGraph::pickOther(ArrayRef<T> candidates, size_t self) {
  auto index = [](const T &c) -> size_t {
    if constexpr (std::is_same_v<T, size_t>)
      return c;
    else
      return c.first;
  };
  SmallVector<T> others;
  for (const T &candidate : candidates)
    if (index(candidate) != self)
      others.push_back(candidate);
  if (!others.empty() && chance(80))
    return others[below(others.size())];
  return candidates[below(candidates.size())];
}

void RandomGraph::push(Value value, ArrayRef<size_t> operands, bool usesParam) {
  Node node;
  node.value = value;
  node.dependsOnParam = usesParam;
  for (size_t operand : operands) {
    ++nodes[operand].uses;
    node.dependsOnParam |= nodes[operand].dependsOnParam;
  }
  nodes.push_back(node);
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
  case Kind::Binary: {
    // The other operand: any value of the same type, often an earlier one
    // (a residual connection).
    SmallVector<size_t> candidates;
    for (auto [i, node] : llvm::enumerate(nodes))
      if (node.value.getType() == x.getType())
        candidates.push_back(i);
    size_t yi = pickOther<size_t>(candidates, xi);
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
  case Kind::Reshape: {
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
  case Kind::Concat: {
    // Another value that matches in every dimension but the axis.
    SmallVector<std::pair<size_t, int64_t>> candidates;
    for (auto [i, node] : llvm::enumerate(nodes)) {
      auto type = cast<RankedTensorType>(node.value.getType());
      if (type.getElementType() != b.getElementType() || type.getRank() != rank)
        continue;
      SmallVector<int64_t> differing;
      for (int64_t d = 0; d < rank; ++d)
        if (type.getShape()[d] != s[d])
          differing.push_back(d);
      if (differing.size() > 1)
        continue;
      int64_t axis = differing.empty() ? below(rank) : differing.front();
      candidates.push_back({i, axis});
    }
    auto [yi, axis] = pickOther<std::pair<size_t, int64_t>>(candidates, xi);
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
  case Kind::Slice: {
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
  case Kind::Matmul: {
    // x [..., M, K] times another value: x^T-shaped (scores, x · yᵀ with
    // y of x's shape) or [..., K, N] / [K, N] (a product of activations).
    SmallVector<std::pair<size_t, bool>> candidates;
    for (auto [i, node] : llvm::enumerate(nodes)) {
      auto type = cast<RankedTensorType>(node.value.getType());
      if (type.getElementType() != b.getElementType())
        continue;
      ArrayRef<int64_t> t = type.getShape();
      if (t == s)
        candidates.push_back({i, true});
      bool sameBatch = static_cast<int64_t>(t.size()) == rank &&
                       t.drop_back(2) == s.drop_back(2);
      if ((t.size() == 2 || sameBatch) && t[t.size() - 2] == s.back())
        candidates.push_back({i, false});
    }
    if (candidates.empty())
      return false;
    auto [yi, transposeRhs] =
        pickOther<std::pair<size_t, bool>>(candidates, xi);
    Value y = nodes[yi].value;
    ArrayRef<int64_t> t = shape(y);
    SmallVector<int64_t> result(s.drop_back());
    result.push_back(transposeRhs ? t[t.size() - 2] : t.back());
    if (!fits(result))
      return false;
    push(b.matmul(x, y, false, transposeRhs, name(step, "matmul")), {xi, yi});
    return true;
  }
  }
  llvm_unreachable("unknown op kind");
}

void RandomGraph::build(int64_t ops) {
  // One or two inputs of rank 2 or 3.
  int64_t inputs = range(1, 2);
  for (int64_t i = 0; i < inputs; ++i) {
    SmallVector<int64_t> s;
    for (int64_t d = 0, rank = range(2, 3); d < rank; ++d)
      s.push_back(range(2, 8));
    Node node;
    node.value = b.addInput("x" + std::to_string(i), s);
    node.isInput = true;
    nodes.push_back(node);
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
    if (tryEmit(kind, x, step))
      ++step;
  }

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
