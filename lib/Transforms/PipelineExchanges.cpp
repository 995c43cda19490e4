//===- PipelineExchanges.cpp - a stage's transfers and weight passes ------===//
//
// The parts of building a pipeline stage's program that work on its
// point-to-point exchanges and on the order of its passes: ZB-H1's split of
// a backward pass into its input-gradient and weight-gradient parts, the
// interleaved schedule's grouped exchanges, and the merging of adjacent
// exchanges.
//
//===----------------------------------------------------------------------===//

#include "PipelineInternal.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <map>
#include <tuple>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::pipeline;

train::P2POp
pipeline::createExchange(OpBuilder &b, Location loc, ValueRange sends,
                         ArrayRef<int64_t> sendTo, ArrayRef<int64_t> sendTags,
                         TypeRange recvTypes, ArrayRef<int64_t> recvFrom,
                         ArrayRef<int64_t> recvTags) {
  return train::P2POp::create(
      b, loc, recvTypes, sends, b.getDenseI64ArrayAttr(sendTo),
      b.getDenseI64ArrayAttr(sendTags), b.getDenseI64ArrayAttr(recvFrom),
      b.getDenseI64ArrayAttr(recvTags));
}

/// One exchange at `b`'s insertion point with every message of `parts`, in
/// order; the parts' received values are replaced by its and the parts
/// erased.
static train::P2POp combineExchanges(OpBuilder &b, Location loc,
                                     ArrayRef<train::P2POp> parts) {
  SmallVector<Value> sends;
  SmallVector<int64_t> sendTo, sendTags, recvFrom, recvTags;
  SmallVector<Type> types;
  for (train::P2POp part : parts) {
    llvm::append_range(sends, part.getSends());
    llvm::append_range(sendTo, part.getSendTo());
    llvm::append_range(sendTags, part.getSendTags());
    llvm::append_range(types, part.getReceived().getTypes());
    llvm::append_range(recvFrom, part.getRecvFrom());
    llvm::append_range(recvTags, part.getRecvTags());
  }
  train::P2POp combined = createExchange(b, loc, sends, sendTo, sendTags, types,
                                         recvFrom, recvTags);
  unsigned next = 0;
  for (train::P2POp part : parts) {
    for (Value received : part.getReceived())
      received.replaceAllUsesWith(combined.getReceived()[next++]);
    part.erase();
  }
  return combined;
}

/// Splits a backward pass's ops into its input-gradient part (what the
/// gradients it sends to the previous stage need, and the exchanges) and
/// its weight-gradient part (the rest: the parameters' gradients and their
/// sums), each in program order. Nothing in the first part reads the second.
std::pair<SmallVector<Operation *>, SmallVector<Operation *>>
pipeline::splitWeightPass(ArrayRef<Operation *> ops) {
  llvm::DenseSet<Operation *> inPass(ops.begin(), ops.end()), input;
  SmallVector<Operation *> worklist;
  for (Operation *op : ops)
    if (isa<train::P2POp>(op))
      worklist.push_back(op);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!input.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && inPass.contains(def))
        worklist.push_back(def);
  }
  std::pair<SmallVector<Operation *>, SmallVector<Operation *>> parts;
  for (Operation *op : ops)
    (input.contains(op) ? parts.first : parts.second).push_back(op);
  return parts;
}

/// Megatron-LM's exchanges for the interleaved schedule: one after each
/// step of the schedule (a forward pass of the warm-up, a forward and a
/// backward pass of the steady state, a backward pass of the cool-down)
/// that sends what the step's passes send and receives what the next
/// step's passes receive; the first step's receives before it. Posting a
/// pass's receive with the previous step, and a forward's send only after
/// the backward pass that follows it, is what keeps the stages' exchanges
/// from waiting on each other once the last chunk's stage sends back to the
/// first (exchanges per pass, as 1F1B's, do not complete).
void pipeline::groupExchanges(OpBuilder &b, Location loc,
                              ArrayRef<PipelineAction> schedule,
                              ArrayRef<ArrayRef<Operation *>> passes) {
  // The steps: (first pass, pass count). The steady state, where forward
  // and backward passes pair up, starts with the forward pass before the
  // first backward pass, unless every forward pass comes first (as many
  // micro-batches as stages).
  auto isForward = [](const PipelineAction &action) {
    return action.pass == PipelinePass::Forward;
  };
  size_t firstBackward =
      llvm::find_if_not(schedule, isForward) - schedule.begin();
  bool steady = firstBackward > 0 &&
                llvm::any_of(schedule.drop_front(firstBackward), isForward);
  size_t steadyStart = steady ? firstBackward - 1 : schedule.size();
  SmallVector<std::pair<size_t, size_t>> steps;
  for (size_t i = 0; i < schedule.size();) {
    bool pair = i >= steadyStart && i + 1 < schedule.size() &&
                isForward(schedule[i]) && !isForward(schedule[i + 1]);
    steps.push_back({i, pair ? 2 : 1});
    i += pair ? 2 : 1;
  }
  // Each step's exchanges that send and that receive, and the op each
  // grouped exchange goes before, found before any is replaced.
  SmallVector<SmallVector<train::P2POp>> sendsOf(steps.size()),
      receivesOf(steps.size());
  SmallVector<Operation *> anchors;
  for (auto [g, step] : llvm::enumerate(steps)) {
    Operation *first = nullptr, *last = nullptr;
    for (size_t i = step.first; i < step.first + step.second; ++i)
      for (Operation *op : passes[i]) {
        first = first ? first : op;
        last = op;
        if (auto p2p = dyn_cast<train::P2POp>(op))
          (p2p.getSends().empty() ? receivesOf : sendsOf)[g].push_back(p2p);
      }
    if (g == 0)
      anchors.push_back(first);
    anchors.push_back(last->getNextNode());
  }
  for (size_t g = 0; g <= steps.size(); ++g) {
    // Before step 0: its receives; after step g - 1: its sends and step
    // g's receives.
    SmallVector<train::P2POp> parts;
    if (g > 0)
      parts = sendsOf[g - 1];
    if (g < steps.size())
      llvm::append_range(parts, receivesOf[g]);
    if (parts.empty())
      continue;
    b.setInsertionPoint(anchors[g]);
    combineExchanges(b, loc, parts);
  }
}

void pipeline::mergeExchanges(OpBuilder &b, Location loc, Block &block) {
  for (Operation *op = &block.front(); op; op = op->getNextNode()) {
    auto first = dyn_cast<train::P2POp>(op);
    if (!first)
      continue;
    while (auto second = dyn_cast_or_null<train::P2POp>(first->getNextNode())) {
      // A send of what the first exchange receives must wait for it.
      if (llvm::any_of(second.getSends(), [&](Value v) {
            return v.getDefiningOp() == first.getOperation();
          }))
        break;
      b.setInsertionPoint(first);
      train::P2POp merged = combineExchanges(b, loc, {first, second});
      first = merged;
    }
    op = first;
  }
}

void pipeline::numberMessagesInSendOrder(ArrayRef<func::FuncOp> stages) {
  // (sender, receiver, old tag) -> new tag.
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> renamed;
  for (int64_t stage = 0, e = stages.size(); stage < e; ++stage) {
    func::FuncOp func = stages[stage];
    std::map<int64_t, int64_t> sent; // Per receiver.
    func.walk([&](train::P2POp op) {
      for (auto [peer, tag] : llvm::zip_equal(op.getSendTo(), op.getSendTags()))
        renamed[{stage, peer, tag}] = 2 * sent[peer]++ + (tag & 1);
    });
  }
  // A receive without its send leaves every tag as it is, for
  // checkExchanges to name.
  for (int64_t stage = 0, e = stages.size(); stage < e; ++stage) {
    func::FuncOp func = stages[stage];
    WalkResult walk = func.walk([&](train::P2POp op) {
      for (auto [peer, tag] :
           llvm::zip_equal(op.getRecvFrom(), op.getRecvTags()))
        if (!renamed.count({peer, stage, tag}))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return;
  }
  for (int64_t stage = 0, e = stages.size(); stage < e; ++stage) {
    func::FuncOp func = stages[stage];
    func.walk([&](train::P2POp op) {
      SmallVector<int64_t> sendTags, recvTags;
      for (auto [peer, tag] : llvm::zip_equal(op.getSendTo(), op.getSendTags()))
        sendTags.push_back(renamed.at({stage, peer, tag}));
      for (auto [peer, tag] :
           llvm::zip_equal(op.getRecvFrom(), op.getRecvTags()))
        recvTags.push_back(renamed.at({peer, stage, tag}));
      op.setSendTags(sendTags);
      op.setRecvTags(recvTags);
    });
  }
}
