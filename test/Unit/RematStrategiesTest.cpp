//===- RematStrategiesTest.cpp - train-remat's algorithms on small steps --===//
//
// Each algorithm of train-remat (RematStrategies.h) and the group builders
// (RematGroups.h) on a step parsed here and differentiated in-process: the
// keep-sets bit by bit, the searches by the FLOPs they recompute and the
// exact peak they reach (figures of test/Transforms/train-remat*.mlir).
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/RematStrategies.h"
#include "memopt/Analysis/RematGroups.h"
#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Transforms/KeepSetModel.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// x -> matmul (l.0) -> gelu (l.0) -> gelu (l.1) -> gelu (l.2) -> sum. With
/// SGD, the activations are h (the matmul), a and b (the first two gelus);
/// keeping everything peaks at 1028 bytes.
constexpr StringLiteral kChainStep = R"mlir(
  func.func @chain(%x: tensor<4x8xf32>) -> tensor<f32> {
    %w = train.param "w" : tensor<8x8xf32>
    %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("l.0.fc")
    %a = train.gelu %h : tensor<4x8xf32> loc("l.0.act")
    %b = train.gelu %a : tensor<4x8xf32> loc("l.1.act")
    %c = train.gelu %b : tensor<4x8xf32> loc("l.2.act")
    %loss = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
    return %loss : tensor<f32>
  }
)mlir";

/// The chain of kChainStep under mixed precision: each layer hands the next
/// a bf16 copy of its output (l.N.out), which the next layer casts back to
/// f32 (l.N.in). The activations are h and the f32 casts (gelu's gradient
/// reads its input); the bf16 boundaries are not, as a cast's gradient
/// reads nothing.
constexpr StringLiteral kCastChainStep = R"mlir(
  func.func @casts(%x: tensor<4x8xf32>) -> tensor<f32> {
    %w = train.param "w" : tensor<8x8xf32>
    %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("l.0.fc")
    %a = train.gelu %h : tensor<4x8xf32> loc("l.0.act")
    %a16 = train.cast %a : tensor<4x8xf32> -> tensor<4x8xbf16> loc("l.0.out")
    %a32 = train.cast %a16 : tensor<4x8xbf16> -> tensor<4x8xf32> loc("l.1.in")
    %b = train.gelu %a32 : tensor<4x8xf32> loc("l.1.act")
    %b16 = train.cast %b : tensor<4x8xf32> -> tensor<4x8xbf16> loc("l.1.out")
    %b32 = train.cast %b16 : tensor<4x8xbf16> -> tensor<4x8xf32> loc("l.2.in")
    %c = train.gelu %b32 : tensor<4x8xf32> loc("l.2.act")
    %loss = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
    return %loss : tensor<f32>
  }
)mlir";

/// Revolve's uniform chain: ten gelus (l.1 .. l.10) of 128 bytes each.
constexpr StringLiteral kUniformChain = R"mlir(
  func.func @uniform() -> tensor<f32> {
    %x0 = train.param "w" : tensor<4x8xf32>
    %x1 = train.gelu %x0 : tensor<4x8xf32> loc("l.1")
    %x2 = train.gelu %x1 : tensor<4x8xf32> loc("l.2")
    %x3 = train.gelu %x2 : tensor<4x8xf32> loc("l.3")
    %x4 = train.gelu %x3 : tensor<4x8xf32> loc("l.4")
    %x5 = train.gelu %x4 : tensor<4x8xf32> loc("l.5")
    %x6 = train.gelu %x5 : tensor<4x8xf32> loc("l.6")
    %x7 = train.gelu %x6 : tensor<4x8xf32> loc("l.7")
    %x8 = train.gelu %x7 : tensor<4x8xf32> loc("l.8")
    %x9 = train.gelu %x8 : tensor<4x8xf32> loc("l.9")
    %x10 = train.gelu %x9 : tensor<4x8xf32> loc("l.10")
    %loss = train.reduce_sum %x10 {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
    return %loss : tensor<f32>
  }
)mlir";

/// A skip connection: l.2 reads l.0's value, so the step is no chain.
constexpr StringLiteral kSkipStep = R"mlir(
  func.func @skip() -> tensor<f32> {
    %w = train.param "w" : tensor<4x8xf32>
    %a = train.gelu %w : tensor<4x8xf32> loc("l.0")
    %b = train.gelu %a : tensor<4x8xf32> loc("l.1")
    %c = train.add %a, %b : tensor<4x8xf32> loc("l.2")
    %loss = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
    return %loss : tensor<f32>
  }
)mlir";

/// Attention scores: q kᵀ, their softmax, then the context.
constexpr StringLiteral kAttentionStep = R"mlir(
  func.func @attention(%x: tensor<4x8xf32>) -> tensor<f32> {
    %wq = train.param "wq" : tensor<8x8xf32>
    %q = train.matmul %x, %wq : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("h.0.q")
    %s = train.matmul %q, %x {transpose_rhs} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x4xf32> loc("h.0.scores")
    %p = train.softmax %s : tensor<4x4xf32> loc("h.0.probs")
    %o = train.matmul %p, %q : tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32> loc("h.0.context")
    %loss = train.reduce_sum %o {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
    return %loss : tensor<f32>
  }
)mlir";

class RematStrategiesTest : public ::testing::Test {
protected:
  RematStrategiesTest() {
    context.loadDialect<train::TrainDialect, func::FuncDialect,
                        arith::ArithDialect>();
  }

  /// Parses a forward function and makes it a training step: train-autodiff
  /// with SGD, then train-lifetimes.
  func::FuncOp parseStep(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return nullptr;
    PassManager pm(&context);
    TrainAutodiffPassOptions options;
    options.optimizer = AutodiffOptimizer::Sgd;
    pm.addNestedPass<func::FuncOp>(createTrainAutodiffPass(options));
    pm.addNestedPass<func::FuncOp>(createTrainLifetimesPass());
    if (failed(pm.run(*module)))
      return nullptr;
    return *module->getOps<func::FuncOp>().begin();
  }

  /// The buffers' location names, for readable checks.
  static std::string describe(ArrayRef<const Buffer *> buffers) {
    std::string text;
    for (const Buffer *buffer : buffers)
      text += buffer->name + " ";
    return text;
  }

  /// The activations' defining ops' location names, for readable checks.
  static std::string describe(const TensorLiveness &liveness,
                              const llvm::SmallBitVector &keep) {
    std::string text;
    for (auto [index, buffer] : llvm::enumerate(getActivations(liveness))) {
      text += keep.test(index) ? "+" : "-";
      text += buffer->name;
      text += " ";
    }
    return text;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(RematStrategiesTest, LayersKeepsTheLayerBoundaries) {
  func::FuncOp step = parseStep(kChainStep);
  ASSERT_TRUE(step);
  TensorLiveness liveness(step);
  // h is internal to l.0; a (read by l.1), b (read by l.2) and c (read by
  // the loss) are kept.
  EXPECT_EQ(describe(getLayerCheckpoints(liveness)),
            "l.0.act l.1.act l.2.act ");
  RematCandidate layers =
      evaluateRewrite(step, "layers", applyLayerCheckpoints);
  EXPECT_EQ(layers.flops, 512); // one matmul, 2*4*8*8
}

TEST_F(RematStrategiesTest, LayersKeepsBoundariesTheBackwardDoesNotRead) {
  func::FuncOp step = parseStep(kCastChainStep);
  ASSERT_TRUE(step);
  TensorLiveness liveness(step);
  // No activation leaves its layer: the boundaries are the bf16 copies.
  EXPECT_EQ(describe(getLayerCheckpoints(liveness)),
            "l.0.out l.1.out l.2.act ");
  // Each layer is recomputed from its bf16 input: the two casts back to f32
  // (32 FLOPs each) and l.0's matmul, not every layer from x at once.
  RematCandidate layers =
      evaluateRewrite(step, "layers", applyLayerCheckpoints);
  EXPECT_EQ(layers.flops, 512 + 2 * 32);
  // Keep-set rewrites recompute from the same bf16 boundaries (else
  // dropping l.1's activation would recompute l.0 from x as well): keeping
  // no activation recomputes what layers does. (l.2's gelu output is no
  // activation: the loss's backward does not read it. Being f32, it stays
  // recomputable, as a CNN's convolution output read only by the next
  // op's ReLU must: keeping it to recompute the ReLU would save nothing.)
  llvm::DenseSet<Value> unread = getNeverRecomputed(step, liveness);
  SmallVector<const Buffer *> boundaries;
  for (const Buffer *buffer : getLayerCheckpoints(liveness))
    if (unread.contains(buffer->value))
      boundaries.push_back(buffer);
  EXPECT_EQ(describe(boundaries), "l.0.out l.1.out ");
  llvm::SmallBitVector keepNone(getActivations(liveness).size(), false);
  RematCandidate everything = evaluateKeepSet(step, "none kept", keepNone);
  EXPECT_EQ(everything.peak, layers.peak);
  EXPECT_EQ(everything.flops, layers.flops);
}

TEST_F(RematStrategiesTest, SqrtKeepsEveryCeilSqrtNth) {
  func::FuncOp step = parseStep(kChainStep);
  ASSERT_TRUE(step);
  TensorLiveness liveness(step);
  // n = 3: every ceil(sqrt(3)) = 2nd activation.
  EXPECT_EQ(describe(liveness, getSqrtKeepSet(liveness)),
            "-l.0.fc +l.0.act -l.1.act ");
  RematCandidate sqrt = evaluateKeepSet(step, "sqrt", getSqrtKeepSet(liveness));
  EXPECT_EQ(sqrt.flops, 768);
  EXPECT_EQ(sqrt.peak, 900);
}

TEST_F(RematStrategiesTest, SelectiveDropsOnlyAttentionScores) {
  func::FuncOp step = parseStep(kAttentionStep);
  ASSERT_TRUE(step);
  TensorLiveness liveness(step);
  llvm::SmallBitVector keep = getSelectiveKeepSet(liveness);
  std::string kept = describe(liveness, keep);
  EXPECT_NE(kept.find("-h.0.probs "), std::string::npos) << kept;
  EXPECT_EQ(keep.count(), keep.size() - 1) << kept;
}

TEST_F(RematStrategiesTest, SelectiveKeepsEverythingWithoutAttention) {
  func::FuncOp step = parseStep(kChainStep);
  ASSERT_TRUE(step);
  TensorLiveness liveness(step);
  EXPECT_TRUE(getSelectiveKeepSet(liveness).all());
}

TEST_F(RematStrategiesTest, GreedyMeetsTheBudgetWithTheCheapestDrop) {
  func::FuncOp step = parseStep(kChainStep);
  ASSERT_TRUE(step);
  TensorLiveness liveness(step);
  ASSERT_EQ(liveness.getLoad(), 1028);
  // 950 bytes: recomputing b alone (one gelu, 256 FLOPs) reaches 900.
  FailureOr<RematCandidate> greedy =
      runGreedyRemat(step, liveness, 950, /*checkModel=*/true);
  ASSERT_TRUE(succeeded(greedy));
  EXPECT_EQ(greedy->algorithm, "greedy");
  EXPECT_EQ(greedy->flops, 256);
  EXPECT_EQ(greedy->peak, 900);
  // The candidate rewrites the step as measured.
  EXPECT_EQ(greedy->apply(step), 256);
  EXPECT_EQ(TensorLiveness(step).getLoad(), 900);
}

TEST_F(RematStrategiesTest, KeepSetModelMatchesEveryRewrite) {
  // Every keep-set of each step: the model's peak, FLOPs and activations
  // live at the peak are those of the rewritten step.
  for (StringLiteral source :
       {kChainStep, kUniformChain, kSkipStep, kAttentionStep}) {
    func::FuncOp step = parseStep(source);
    ASSERT_TRUE(step);
    TensorLiveness liveness(step);
    SmallVector<const Buffer *> activations = getActivations(liveness);
    FailureOr<KeepSetModel> model = KeepSetModel::build(step);
    ASSERT_TRUE(succeeded(model));
    ASSERT_EQ(model->getNumActivations(), activations.size());
    ASSERT_LE(activations.size(), 12u);
    for (unsigned bits = 0; bits < (1u << activations.size()); ++bits) {
      llvm::SmallBitVector keep(activations.size());
      for (unsigned i = 0; i < activations.size(); ++i)
        keep[i] = (bits >> i) & 1;
      KeepSetModel::Outcome outcome = model->evaluate(keep);
      func::FuncOp copy = step.clone();
      int64_t flops = applyKeepSet(copy, keep);
      TensorLiveness rewritten(copy);
      EXPECT_EQ(outcome.peak, rewritten.getLoad())
          << step.getSymName().str() << " " << describe(liveness, keep);
      EXPECT_EQ(outcome.flops, flops)
          << step.getSymName().str() << " " << describe(liveness, keep);
      // The step's activations (kept or not) live at the rewritten step's
      // peak, by name (location names: unique here).
      std::string expected, got;
      for (const Buffer *buffer :
           rewritten.getLiveBuffers(rewritten.getPeakPoint())) {
        Operation *def = buffer->value.getDefiningOp();
        if (def && !def->hasAttr(train::TrainDialect::kRecomputedAttrName) &&
            llvm::any_of(activations, [&](const Buffer *activation) {
              return activation->name == buffer->name;
            }))
          expected += buffer->name + " ";
      }
      for (unsigned index : outcome.liveAtPeak)
        got += activations[index]->name + " ";
      EXPECT_EQ(got, expected)
          << step.getSymName().str() << " " << describe(liveness, keep);
      copy.erase();
    }
  }
}

TEST_F(RematStrategiesTest, ChainFollowsRevolve) {
  func::FuncOp step = parseStep(kUniformChain);
  ASSERT_TRUE(step);
  std::string why;
  FailureOr<ChainGroups> chain = getChainGroups(step, why);
  ASSERT_TRUE(succeeded(chain)) << why;
  EXPECT_EQ(chain->layers.size(), 11u);
  // Two checkpoints (644 bytes): t(10, 2) - 9 = 11 gelus of 256 FLOPs.
  std::optional<RematCandidate> candidate =
      runChainRemat(step, 644, TensorLiveness(step).getLoad(), why);
  ASSERT_TRUE(candidate) << why;
  EXPECT_EQ(candidate->flops, 2816);
  EXPECT_EQ(candidate->peak, 644);
  EXPECT_EQ(StringRef(candidate->detail).take_front(34),
            "optimal over a chain of 11 layers,");
}

TEST_F(RematStrategiesTest, ChainRefusesASkipConnection) {
  func::FuncOp step = parseStep(kSkipStep);
  ASSERT_TRUE(step);
  std::string why;
  EXPECT_FALSE(runChainRemat(step, 600, TensorLiveness(step).getLoad(), why));
  EXPECT_EQ(why, "the step is not a chain of layers: layer 'l.2' (layer 2) "
                 "reads a value of layer 'l.0' (layer 0), not only of the one "
                 "before it");
}

TEST_F(RematStrategiesTest, OptimalFindsTheOptimumOfItsGroups) {
  func::FuncOp step = parseStep(kChainStep);
  ASSERT_TRUE(step);
  FailureOr<StepGroups> groups = getStepGroups(step, 5);
  ASSERT_TRUE(succeeded(groups));
  EXPECT_EQ(groups->members.size(), 10u);
  EXPECT_EQ(groups->numForward, 5u);
  OptimalRematLimits limits;
  limits.timeLimitSeconds = 0;
  limits.nodeLimit = 100000;
  std::string why;
  bool proven = false;
  // 800 bytes: no keep-set fits; recomputing h twice and a once does.
  std::optional<RematCandidate> optimal =
      runOptimalRemat(step, *groups, 800, limits,
                      std::chrono::steady_clock::now(), why, proven);
  ASSERT_TRUE(optimal) << why;
  EXPECT_TRUE(proven);
  EXPECT_EQ(optimal->flops, 1280);
  EXPECT_EQ(optimal->peak, 772);
  EXPECT_EQ(StringRef(optimal->detail).take_front(36),
            "optimal over 10 groups (5 forward), ");
}

TEST_F(RematStrategiesTest, OptimalSaysWhyNothingFits) {
  func::FuncOp step = parseStep(kChainStep);
  ASSERT_TRUE(step);
  FailureOr<StepGroups> groups = getStepGroups(step, 5);
  ASSERT_TRUE(succeeded(groups));
  OptimalRematLimits limits;
  limits.timeLimitSeconds = 0;
  limits.nodeLimit = 100000;
  std::string why;
  bool proven = false;
  EXPECT_FALSE(runOptimalRemat(step, *groups, 500, limits,
                               std::chrono::steady_clock::now(), why, proven));
  EXPECT_EQ(StringRef(why).take_front(62),
            "the solver's model of 10 groups (5 forward) says infeasible at");
  // Proven infeasible: a finer model may still have a plan.
  EXPECT_TRUE(proven);
  // A cutoff no plan is under (1 FLOP): the reason names the cutoff.
  limits.nodeLimit = 1;
  limits.cutoffFlops = 1;
  EXPECT_FALSE(runOptimalRemat(step, *groups, 800, limits,
                               std::chrono::steady_clock::now(), why, proven));
  EXPECT_TRUE(StringRef(why).contains("cheaper than 1 recomputed FLOPs"))
      << why;
}

TEST_F(RematStrategiesTest, StagePlansFollowTheSchedule) {
  func::FuncOp step = parseStep(kUniformChain);
  ASSERT_TRUE(step);
  std::string why;
  FailureOr<ChainGroups> chain = getChainGroups(step, why);
  ASSERT_TRUE(succeeded(chain)) << why;
  // Recompute layer 2 before B_5: its plan entry is {2}; B_5 exists.
  ASSERT_GE(chain->backwardGroup[5], 0);
  SmallVector<RematChainAction> actions = {
      {/*forward=*/true, /*layer=*/1, /*original=*/true},
      {/*forward=*/true, /*layer=*/2, /*original=*/false},
      {/*forward=*/false, /*layer=*/5, /*original=*/false}};
  StagePlan plan = getChainPlan(*chain, actions);
  for (auto [group, recomputed] : llvm::enumerate(plan)) {
    if (static_cast<int>(group) == chain->backwardGroup[5])
      EXPECT_EQ(recomputed, SmallVector<unsigned>({2}));
    else
      EXPECT_TRUE(recomputed.empty()) << "group " << group;
  }
}

} // namespace
