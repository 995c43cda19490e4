//===- ShardingModels.cpp - the train ops' tensor-parallel rules ----------===//
//
// ShardPropagationOpInterface: the state its rules act on
// (ShardPropagationState), the shape helpers they share with train-shard's
// planning, and the rules of the train ops, attached as external models by
// registerShardingInterfaceModels:
//
//   - matmul: ends a region (row-parallel) or multiplies per head;
//   - per-head and per-column ops (bias add, slice, reshape, transpose,
//     softmax, rotary, attention, dropout, elementwise) carry the split to
//     their results;
//   - cross-entropy ends a region when its logits are split along the
//     classes (vocabulary parallelism).
//
// train-shard itself starts the regions (at its candidate matmuls) and calls
// a rule at every op one of whose operands is split.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/ShardingInterface.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::memopt;

#include "memopt/Transforms/ShardingInterface.cpp.inc"

//===----------------------------------------------------------------------===//
// ShardPropagationState
//===----------------------------------------------------------------------===//

ShardPropagationState::ShardPropagationState(
    Operation *op, Simulation &sim, const ShardPropagationConfig &config)
    : op(op), sim(sim), config(config), starts(config.tiedRegions.size()) {
  for (Value operand : op->getOperands()) {
    auto it = sim.splits.find(operand);
    operandSplits.push_back(it == sim.splits.end() ? std::nullopt
                                                   : std::optional(it->second));
    if (operandSplits.back()) {
      anySplit = true;
      starts |= operandSplits.back()->starts;
      kvOnly |= operandSplits.back()->kvOnly;
    }
  }
}

void ShardPropagationState::setSplit(Value value, int64_t dim, int64_t blocks) {
  sim.splits[value] = TensorSplit{dim, blocks, starts, kvOnly};
}

LogicalResult ShardPropagationState::fail(const Twine &reason) {
  sim.failedAt = op;
  sim.blamed = starts;
  sim.reason = reason.str();
  return failure();
}

LogicalResult ShardPropagationState::endRowParallel() {
  if (kvOnly)
    return fail("a row-parallel matmul of replicated KV heads");
  if (starts.anyCommon(config.tiedRegions))
    return fail("a row-parallel matmul after a matmul by an embedding "
                "table");
  sim.rowParallel.insert(op);
  return success();
}

void ShardPropagationState::endVocabParallel() {
  sim.vocabLosses.insert(op);
  sim.vocabRegions |= starts;
}

//===----------------------------------------------------------------------===//
// Helpers shared with train-shard's planning
//===----------------------------------------------------------------------===//

train::ParamOp mlir::memopt::getOwnParam(Value value) {
  if (!value.hasOneUse())
    return nullptr;
  if (auto cast = value.getDefiningOp<train::CastOp>()) {
    value = cast.getInput();
    if (!value.hasOneUse())
      return nullptr;
  }
  return value.getDefiningOp<train::ParamOp>();
}

std::optional<int64_t> mlir::memopt::mapReshapeDim(RankedTensorType type,
                                                   RankedTensorType resultType,
                                                   int64_t dim, int64_t parts) {
  ArrayRef<int64_t> in = type.getShape(), out = resultType.getShape();
  // Walk both shapes in groups of equal products.
  size_t i = 0, o = 0;
  while (i < in.size() && o < out.size()) {
    size_t groupIn = i, groupOut = o;
    int64_t productIn = in[i++], productOut = out[o++];
    while (productIn != productOut) {
      if (productIn < productOut && i < in.size())
        productIn *= in[i++];
      else if (o < out.size())
        productOut *= out[o++];
      else
        return std::nullopt;
    }
    if (dim >= static_cast<int64_t>(groupIn) && dim < static_cast<int64_t>(i)) {
      // Only the group's leading dimension splits into contiguous chunks.
      for (size_t d = groupIn; d < static_cast<size_t>(dim); ++d)
        if (in[d] != 1)
          return std::nullopt;
      // Skip unit dimensions that start the group (they cannot split).
      while (parts > 1 && groupOut < o && out[groupOut] == 1)
        ++groupOut;
      if (groupOut == o)
        return std::nullopt;
      return groupOut;
    }
  }
  return std::nullopt;
}

bool mlir::memopt::needsKvReplication(train::AttentionOp attention,
                                      int64_t tp) {
  int64_t heads = attention.getQuery().getType().getDimSize(1);
  int64_t kv = attention.getKey().getType().getDimSize(1);
  return kv % tp != 0 && tp % kv == 0 && heads % tp == 0;
}

//===----------------------------------------------------------------------===//
// The train ops' rules
//===----------------------------------------------------------------------===//

namespace {

/// The base of a rule of `OpTy`: `Rule::propagate(OpTy, state)`.
template <typename Rule, typename OpTy>
struct ShardingRule
    : public ShardPropagationOpInterface::ExternalModel<Rule, OpTy> {
  LogicalResult propagateSharding(Operation *op,
                                  ShardPropagationState &state) const {
    return Rule::propagate(cast<OpTy>(op), state);
  }
};

struct MatmulRule : public ShardingRule<MatmulRule, train::MatmulOp> {
  static LogicalResult propagate(train::MatmulOp matmul,
                                 ShardPropagationState &state) {
    int64_t rank = matmul.getLhs().getType().getRank();
    const std::optional<TensorSplit> &lhs = state.getOperandSplit(0);
    const std::optional<TensorSplit> &rhs = state.getOperandSplit(1);
    // End a region: lhs split along the contraction, rhs a weight.
    bool weight = matmul.getRhs().getType().getRank() == 2 &&
                  getOwnParam(matmul.getRhs());
    if (lhs && !rhs && weight && !matmul.getTransposeLhs() &&
        lhs->dim == rank - 1 && lhs->blocks == 1)
      return state.endRowParallel();
    // Per-head products (attention scores and context): both split along
    // the same batch dimension.
    if (lhs && rhs && lhs->dim == rhs->dim && lhs->blocks == 1 &&
        rhs->blocks == 1 && lhs->kvOnly == rhs->kvOnly && lhs->dim < rank - 2) {
      state.setSplit(matmul.getResult(), lhs->dim);
      return success();
    }
    return state.fail("a matmul whose operands are split differently");
  }
};

struct BiasAddRule : public ShardingRule<BiasAddRule, train::BiasAddOp> {
  static LogicalResult propagate(train::BiasAddOp bias,
                                 ShardPropagationState &state) {
    const std::optional<TensorSplit> &input = state.getOperandSplit(0);
    int64_t rank = bias.getInput().getType().getRank();
    int64_t biasDim = static_cast<int64_t>(bias.getDim());
    if (biasDim < 0)
      biasDim += rank;
    if (!input || state.getOperandSplit(1) || !getOwnParam(bias.getBias()) ||
        input->dim != rank - 1 || biasDim != rank - 1)
      return state.fail("a bias add that is not along the split features");
    state.setSplit(bias.getResult(), input->dim, input->blocks);
    return success();
  }
};

struct SliceRule : public ShardingRule<SliceRule, train::SliceOp> {
  static LogicalResult propagate(train::SliceOp slice,
                                 ShardPropagationState &state) {
    const TensorSplit &split = *state.getOperandSplit(0);
    auto type = cast<RankedTensorType>(slice.getInput().getType());
    int64_t extent = type.getDimSize(split.dim);
    int64_t width = slice.getType().getDimSize(split.dim);
    if (slice.getStrides() &&
        llvm::any_of(*slice.getStrides(), [](int64_t s) { return s != 1; }))
      return state.fail("a strided slice");
    if (width == extent) {
      state.setSplit(slice.getResult(), split.dim, split.blocks);
      return success();
    }
    if (split.blocks * width != extent ||
        slice.getOffsets()[split.dim] % width != 0)
      return state.fail("a slice that does not take whole blocks");
    state.setSplit(slice.getResult(), split.dim);
    return success();
  }
};

struct ReshapeRule : public ShardingRule<ReshapeRule, train::ReshapeOp> {
  static LogicalResult propagate(train::ReshapeOp reshape,
                                 ShardPropagationState &state) {
    const TensorSplit &split = *state.getOperandSplit(0);
    if (split.blocks != 1)
      return state.fail("a reshape of a tensor split in blocks");
    std::optional<int64_t> dim =
        mapReshapeDim(cast<RankedTensorType>(reshape.getInput().getType()),
                      cast<RankedTensorType>(reshape.getType()), split.dim,
                      state.getParts(split));
    if (!dim)
      return state.fail("a reshape that does not keep the split contiguous");
    state.setSplit(reshape.getResult(), *dim);
    return success();
  }
};

struct TransposeRule : public ShardingRule<TransposeRule, train::TransposeOp> {
  static LogicalResult propagate(train::TransposeOp transpose,
                                 ShardPropagationState &state) {
    const TensorSplit &split = *state.getOperandSplit(0);
    ArrayRef<int64_t> perm = transpose.getPermutation();
    int64_t dim = llvm::find(perm, split.dim) - perm.begin();
    state.setSplit(transpose.getResult(), dim, split.blocks);
    return success();
  }
};

struct SoftmaxRule : public ShardingRule<SoftmaxRule, train::SoftmaxOp> {
  static LogicalResult propagate(train::SoftmaxOp softmax,
                                 ShardPropagationState &state) {
    const TensorSplit &split = *state.getOperandSplit(0);
    int64_t rank = softmax.getType().getRank();
    int64_t axis = static_cast<int64_t>(softmax.getAxis());
    if (axis < 0)
      axis += rank;
    if (split.dim == axis || (softmax.getCausal() && split.dim >= rank - 2))
      return state.fail("a softmax along the split dimension");
    state.setSplit(softmax.getResult(), split.dim);
    return success();
  }
};

struct RotaryRule : public ShardingRule<RotaryRule, train::RotaryOp> {
  static LogicalResult propagate(train::RotaryOp rotary,
                                 ShardPropagationState &state) {
    const TensorSplit &split = *state.getOperandSplit(0);
    if (split.dim >= rotary.getType().getRank() - 2)
      return state.fail("a rotary embedding along the split dimension");
    state.setSplit(rotary.getResult(), split.dim);
    return success();
  }
};

struct AttentionRule : public ShardingRule<AttentionRule, train::AttentionOp> {
  static LogicalResult propagate(train::AttentionOp attention,
                                 ShardPropagationState &state) {
    const std::optional<TensorSplit> &query = state.getOperandSplit(0);
    const std::optional<TensorSplit> &key = state.getOperandSplit(1);
    const std::optional<TensorSplit> &value = state.getOperandSplit(2);
    if (!query || !key || !value || query->dim != 1 || key->dim != 1 ||
        value->dim != 1)
      return state.fail("an attention whose heads are not all split");
    // Fewer KV heads than processes: each process keeps the KV head its
    // query heads attend to (train-shard's planKvReplication).
    bool replicated =
        needsKvReplication(attention, state.getTensorParallelSize());
    if (query->kvOnly || key->kvOnly != replicated ||
        value->kvOnly != replicated)
      return state.fail(replicated
                            ? "an attention with fewer KV heads than tp "
                              "whose keys and values are not projections "
                              "train-shard can replicate"
                            : "an attention whose KV heads are split "
                              "differently");
    state.setKvOnly(false);
    state.setSplit(attention.getResult(), 1);
    state.setSplit(attention.getLse(), 1);
    return success();
  }
};

struct DropoutRule : public ShardingRule<DropoutRule, train::DropoutOp> {
  static LogicalResult propagate(train::DropoutOp dropout,
                                 ShardPropagationState &state) {
    const TensorSplit &split = *state.getOperandSplit(0);
    state.setSplit(dropout.getResult(), split.dim, split.blocks);
    state.setSplit(dropout.getMask(), split.dim, split.blocks);
    return success();
  }
};

/// Vocabulary parallelism: logits split along the classes end the region.
struct CrossEntropyRule
    : public ShardingRule<CrossEntropyRule, train::CrossEntropyOp> {
  static LogicalResult propagate(train::CrossEntropyOp loss,
                                 ShardPropagationState &state) {
    if (!state.isVocabParallel())
      return state.failNoRule();
    const std::optional<TensorSplit> &logits = state.getOperandSplit(0);
    int64_t rank = loss.getLogits().getType().getRank();
    if (!logits || state.getOperandSplit(1) || logits->dim != rank - 1 ||
        logits->blocks != 1 || state.isKvOnly())
      return state.fail("a cross-entropy whose logits are not split along "
                        "the classes");
    state.endVocabParallel();
    return success();
  }
};

/// Elementwise ops: every tensor operand split the same way.
template <typename OpTy>
struct ElementwiseRule : public ShardingRule<ElementwiseRule<OpTy>, OpTy> {
  static LogicalResult propagate(OpTy op, ShardPropagationState &state) {
    ArrayRef<std::optional<TensorSplit>> in = state.getOperandSplits();
    for (const std::optional<TensorSplit> &split : in)
      if (!split || split->dim != in[0]->dim ||
          split->blocks != in[0]->blocks || split->kvOnly != in[0]->kvOnly)
        return state.fail("an elementwise op with a replicated operand");
    state.setSplit(op->getResult(0), in[0]->dim, in[0]->blocks);
    return success();
  }
};

template <typename... OpTys> void attachElementwiseRules(MLIRContext &context) {
  (OpTys::template attachInterface<ElementwiseRule<OpTys>>(context), ...);
}

} // namespace

void mlir::memopt::registerShardingInterfaceModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, train::TrainDialect *) {
    train::MatmulOp::attachInterface<MatmulRule>(*context);
    train::BiasAddOp::attachInterface<BiasAddRule>(*context);
    train::SliceOp::attachInterface<SliceRule>(*context);
    train::ReshapeOp::attachInterface<ReshapeRule>(*context);
    train::TransposeOp::attachInterface<TransposeRule>(*context);
    train::SoftmaxOp::attachInterface<SoftmaxRule>(*context);
    train::RotaryOp::attachInterface<RotaryRule>(*context);
    train::AttentionOp::attachInterface<AttentionRule>(*context);
    train::DropoutOp::attachInterface<DropoutRule>(*context);
    train::CrossEntropyOp::attachInterface<CrossEntropyRule>(*context);
    attachElementwiseRules<train::GeluOp, train::ReluOp, train::SiluOp,
                           train::SigmoidOp, train::TanhOp,
                           train::HardsigmoidOp, train::HardswishOp,
                           train::SwigluOp, train::MulOp, train::ScaleOp,
                           train::CastOp, train::AddOp, train::SubOp>(*context);
  });
}
