//===- StepScheduleTest.cpp - train-schedule's model and schedulers ------===//
//
// The schedule model (StepSchedule.h) against the liveness analysis: every
// order a scheduler proposes keeps the dependences, and its predicted LOAD is
// what TensorLiveness measures once the ops are moved. The exact search is
// checked against a brute force over all orders of tiny steps, and is never
// beaten by a heuristic on random steps.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/StepSchedule.h"
#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Models/ModelBuilder.h"
#include "memopt/Models/Models.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// Two linear layers with SGD: written with both updates at the end, the
/// gradient of the first layer's weight waits for the second's update.
constexpr StringLiteral kMlp = R"mlir(
  func.func @mlp(%x: tensor<4x8xf32>) -> tensor<f32> {
    %w1 = train.param "w1" : tensor<8x64xf32>
    %w2 = train.param "w2" : tensor<64x8xf32>
    %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x64xf32> -> tensor<4x64xf32> loc("fc1")
    %a = train.relu %h : tensor<4x64xf32> loc("act")
    %o = train.matmul %a, %w2 : tensor<4x64xf32>, tensor<64x8xf32> -> tensor<4x8xf32> loc("fc2")
    %loss = train.reduce_sum %o {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
    return %loss : tensor<f32>
  }
)mlir";

class StepScheduleTest : public ::testing::Test {
protected:
  StepScheduleTest() {
    context.loadDialect<train::TrainDialect, func::FuncDialect,
                        arith::ArithDialect>();
  }

  /// Differentiates the forward function of `module` (SGD or Adam), with
  /// explicit frees when `lifetimes`.
  func::FuncOp differentiate(bool adam, bool lifetimes) {
    PassManager pm(&context);
    TrainAutodiffPassOptions options;
    options.optimizer = adam ? AutodiffOptimizer::Adam : AutodiffOptimizer::Sgd;
    pm.addNestedPass<func::FuncOp>(createTrainAutodiffPass(options));
    if (lifetimes)
      pm.addNestedPass<func::FuncOp>(createTrainLifetimesPass());
    if (failed(pm.run(*module)))
      return nullptr;
    return *module->getOps<func::FuncOp>().begin();
  }

  func::FuncOp parseStep(StringRef source, bool adam, bool lifetimes) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return nullptr;
    return differentiate(adam, lifetimes);
  }

  func::FuncOp randomStep(uint64_t seed, int64_t ops, bool adam,
                          bool lifetimes) {
    module = ModuleOp::create(UnknownLoc::get(&context));
    gen::RandomConfig config;
    config.seed = seed;
    config.ops = ops;
    gen::buildModel(*module, "step", Float32Type::get(&context), config);
    if (failed(verify(*module)))
      return nullptr;
    return differentiate(adam, lifetimes);
  }

  /// Checks that `candidate` keeps the dependences and that, once applied,
  /// the liveness analysis measures its predicted LOAD; restores the program
  /// order.
  static void expectExact(func::FuncOp step, const ScheduleGraph &graph,
                          const ScheduleCandidate &candidate) {
    ASSERT_TRUE(graph.isValidOrder(candidate.order)) << candidate.heuristic;
    graph.apply(candidate.order);
    EXPECT_TRUE(succeeded(verify(step)));
    EXPECT_EQ(TensorLiveness(step).getLoad(), candidate.load)
        << candidate.heuristic;
    graph.apply(scheduleProgramOrder(graph).order);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

/// The lowest LOAD over every order that keeps the dependences.
int64_t bruteForceLoad(const ScheduleGraph &graph) {
  unsigned n = graph.size();
  SmallVector<unsigned> order;
  SmallVector<bool> placed(n, false);
  int64_t best = std::numeric_limits<int64_t>::max();
  std::function<void()> extend = [&] {
    if (order.size() == n) {
      best = std::min(best, graph.simulateLoad(order));
      return;
    }
    for (unsigned op = 0; op < n; ++op) {
      if (placed[op] || llvm::any_of(graph.getPredecessors(op),
                                     [&](unsigned p) { return !placed[p]; }))
        continue;
      placed[op] = true;
      order.push_back(op);
      extend();
      order.pop_back();
      placed[op] = false;
    }
  };
  extend();
  return best;
}

TEST_F(StepScheduleTest, EagerMovesEachUpdateBehindItsGradient) {
  func::FuncOp step = parseStep(kMlp, /*adam=*/false, /*lifetimes=*/true);
  ASSERT_TRUE(step);
  TensorLiveness liveness(step);
  ScheduleGraph graph(step, liveness);
  ScheduleCandidate program = scheduleProgramOrder(graph);
  EXPECT_EQ(program.load, liveness.getLoad());
  ScheduleCandidate eager = scheduleEager(graph);
  expectExact(step, graph, eager);
  EXPECT_LT(eager.load, program.load);
  // In the eager order, w2's update comes before w1's gradient is computed:
  // the first layer's weight gradient no longer overlaps the second's.
  graph.apply(eager.order);
  int64_t w2Update = -1, w1Grad = -1;
  for (auto [i, op] : llvm::enumerate(step.getBody().front())) {
    if (auto sgd = dyn_cast<train::SgdOp>(op))
      if (cast<train::ParamOp>(sgd.getParam().getDefiningOp()).getName() ==
          "w2")
        w2Update = i;
    if (auto matmul = dyn_cast<train::MatmulOp>(op))
      if (matmul.getTransposeLhs() && w1Grad < 0 &&
          matmul.getType().getShape() == ArrayRef<int64_t>{8, 64})
        w1Grad = i;
  }
  ASSERT_GE(w2Update, 0);
  ASSERT_GE(w1Grad, 0);
  EXPECT_LT(w2Update, w1Grad);
}

TEST_F(StepScheduleTest, ExactEqualsBruteForceOnTinySteps) {
  int checked = 0;
  for (uint64_t seed = 0; seed < 60 && checked < 12; ++seed) {
    func::FuncOp step = randomStep(seed, 1 + seed % 3, /*adam=*/false,
                                   /*lifetimes=*/false);
    ASSERT_TRUE(step) << "seed " << seed;
    TensorLiveness liveness(step);
    ScheduleGraph graph(step, liveness);
    if (graph.size() > 10)
      continue;
    ++checked;
    std::optional<ScheduleCandidate> exact = scheduleExact(graph, 22);
    ASSERT_TRUE(exact);
    expectExact(step, graph, *exact);
    EXPECT_EQ(exact->load, bruteForceLoad(graph)) << "seed " << seed;
  }
  EXPECT_EQ(checked, 12);
}

TEST_F(StepScheduleTest, HeuristicsAreExactlyMeasuredAndNeverBeatExact) {
  int withExact = 0;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    bool adam = seed % 2, lifetimes = seed % 3 == 0;
    func::FuncOp step = randomStep(seed, 1 + seed % 4, adam, lifetimes);
    ASSERT_TRUE(step) << "seed " << seed;
    TensorLiveness liveness(step);
    ScheduleGraph graph(step, liveness);
    ScheduleCandidate program = scheduleProgramOrder(graph);
    EXPECT_EQ(program.load, liveness.getLoad()) << "seed " << seed;
    SmallVector<ScheduleCandidate> candidates = {program, scheduleEager(graph),
                                                 scheduleGreedy(graph)};
    for (unsigned i = 0; i < 3; ++i) {
      ScheduleCandidate sunk = improveBySinking(graph, candidates[i]);
      EXPECT_LE(sunk.load, candidates[i].load) << "seed " << seed;
      candidates.push_back(std::move(sunk));
    }
    for (const ScheduleCandidate &candidate : candidates)
      expectExact(step, graph, candidate);
    std::optional<ScheduleCandidate> exact = scheduleExact(graph, 18);
    if (!exact)
      continue;
    ++withExact;
    expectExact(step, graph, *exact);
    for (const ScheduleCandidate &candidate : candidates)
      EXPECT_LE(exact->load, candidate.load)
          << "seed " << seed << " " << candidate.heuristic;
  }
  EXPECT_GE(withExact, 15);
}

TEST_F(StepScheduleTest, ExactDeclinesLargeSteps) {
  func::FuncOp step = randomStep(1, 12, /*adam=*/true, /*lifetimes=*/true);
  ASSERT_TRUE(step);
  TensorLiveness liveness(step);
  ScheduleGraph graph(step, liveness);
  ASSERT_GT(graph.size(), 22u);
  EXPECT_FALSE(scheduleExact(graph, 22));
}

} // namespace
