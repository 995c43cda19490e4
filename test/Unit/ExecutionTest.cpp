//===- ExecutionTest.cpp - the in-process execution library ---------------===//
//
// Runs a tiny training step through the MemoptExecution API (plan, entry,
// lowering, JIT, steps) and checks what the integer arguments are filled
// with, which IndexOperandsOpInterface decides.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Execution/CompiledStep.h"
#include "memopt/Execution/StepPlan.h"
#include "memopt/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::execution;

namespace {

/// Embedding, a matmul, cross-entropy and its gradient, and an Adam update:
/// integer ids (bound by the table's rows), labels (by the classes, through
/// a reshape) and a step count.
constexpr const char *kStep = R"mlir(
func.func @step(%ids: tensor<2x3xi64>, %labels: tensor<2x3xi32>,
                %t: tensor<i64>) -> tensor<f32> {
  %wte = train.param "wte" : tensor<5x3xf32>
  %w = train.param "w" : tensor<3x4xf32>
  %flat = train.reshape %ids : tensor<2x3xi64> -> tensor<6xi64>
  %e = train.embedding %wte, %flat : tensor<5x3xf32>, tensor<6xi64> -> tensor<6x3xf32>
  %logits = train.matmul %e, %w : tensor<6x3xf32>, tensor<3x4xf32> -> tensor<6x4xf32>
  %l = train.reshape %labels : tensor<2x3xi32> -> tensor<6xi32>
  %loss = train.cross_entropy %logits, %l : tensor<6x4xf32>, tensor<6xi32> -> tensor<f32>
  %one = arith.constant dense<1.000000e+00> : tensor<f32>
  %dlogits = train.cross_entropy_grad %one, %logits, %l : tensor<f32>, tensor<6x4xf32>, tensor<6xi32> -> tensor<6x4xf32>
  %dw = train.matmul %e, %dlogits {transpose_lhs} : tensor<6x3xf32>, tensor<6x4xf32> -> tensor<3x4xf32>
  %m = train.opt_state "w.exp_avg" : tensor<3x4xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<3x4xf32>
  train.adam %w, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.000000e-01 : f64} : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
  return %loss : tensor<f32>
}
)mlir";

class ExecutionTest : public ::testing::Test {
protected:
  ExecutionTest() : context(makeRegistry()) { context.disableMultithreading(); }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerExecutionDialects(registry, Target::CPU);
    return registry;
  }

  OwningOpRef<ModuleOp> parse(StringRef source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  MLIRContext context;
};

TEST_F(ExecutionTest, OpsSayWhatTheirIndexOperandsNeed) {
  OwningOpRef<ModuleOp> module = parse(kStep);
  ASSERT_TRUE(module);
  SmallVector<train::IndexOperandsOpInterface> ops;
  module->walk([&](train::IndexOperandsOpInterface op) { ops.push_back(op); });
  // reshape, embedding, reshape, cross_entropy, cross_entropy_grad, adam.
  ASSERT_EQ(ops.size(), 6u);
  auto embedding = cast<train::EmbeddingOp>(ops[1].getOperation());
  EXPECT_EQ(ops[1].getIndexBound(1), std::optional<int64_t>(5));
  EXPECT_EQ(ops[1].getIndexBound(0), std::nullopt) << "the table";
  EXPECT_FALSE(ops[1].forwardsValues(1));
  EXPECT_EQ(embedding.getIds(), ops[0]->getResult(0));
  EXPECT_TRUE(ops[0].forwardsValues(0));
  EXPECT_EQ(ops[0].getIndexBound(0), std::nullopt);
  EXPECT_EQ(ops[3].getIndexBound(1), std::optional<int64_t>(4));
  EXPECT_EQ(ops[4].getIndexBound(2), std::optional<int64_t>(4));
  EXPECT_EQ(ops[4].getIndexBound(1), std::nullopt) << "the logits";
  EXPECT_TRUE(ops[5].isStepCount(4));
  EXPECT_FALSE(ops[5].isStepCount(0));
  // Ops that constrain nothing do not implement the interface.
  module->walk([&](train::MatmulOp op) {
    EXPECT_FALSE(isa<train::IndexOperandsOpInterface>(op.getOperation()));
  });
}

TEST_F(ExecutionTest, PlansIntegerArgumentsFromTheirUses) {
  OwningOpRef<ModuleOp> module = parse(kStep);
  ASSERT_TRUE(module);
  FailureOr<func::FuncOp> step = findStep(*module, "", "test");
  ASSERT_TRUE(succeeded(step));
  FailureOr<StepPlan> plan = planStep(*module, *step);
  ASSERT_TRUE(succeeded(plan));
  ASSERT_EQ(plan->arguments.size(), 3u);
  EXPECT_EQ(plan->arguments[0].kind, ArgKind::Integer);
  EXPECT_EQ(plan->arguments[0].bound, 5u);
  EXPECT_EQ(plan->arguments[1].kind, ArgKind::Integer);
  EXPECT_EQ(plan->arguments[1].bound, 4u);
  EXPECT_EQ(plan->arguments[2].kind, ArgKind::StepNumber);
  ASSERT_EQ(plan->params.size(), 2u);
  EXPECT_EQ(plan->params[0].name, "wte");
  EXPECT_EQ(plan->states.size(), 2u);
}

TEST_F(ExecutionTest, RunsTwoStepsWithThePredictedPeak) {
  OwningOpRef<ModuleOp> module = parse(kStep);
  ASSERT_TRUE(module);
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    errors += diag.str() + "\n";
    return success();
  });
  FailureOr<func::FuncOp> step = findStep(*module, "", "test");
  ASSERT_TRUE(succeeded(step)) << errors;
  FailureOr<StepPlan> plan = planStep(*module, *step);
  ASSERT_TRUE(succeeded(plan)) << errors;
  ASSERT_TRUE(succeeded(addStepEntry(*module, *plan))) << errors;
  ASSERT_TRUE(succeeded(lowerStep(*module, *plan, Target::CPU))) << errors;
  EXPECT_FALSE(plan->step) << "the step function is lowered away";
  EXPECT_EQ(plan->measuredPersistent, plan->predictedPersistent);
  FailureOr<std::unique_ptr<CompiledStep>> compiled =
      CompiledStep::create(*module, *plan);
  ASSERT_TRUE(succeeded(compiled)) << errors;
  (*compiled)->initialize(/*seed=*/0);

  FailureOr<StepStats> first = (*compiled)->runStep(1);
  ASSERT_TRUE(succeeded(first)) << errors;
  std::optional<double> firstLoss = (*compiled)->getLoss();
  ASSERT_TRUE(firstLoss);
  EXPECT_TRUE(std::isfinite(*firstLoss));
  double checksum = (*compiled)->getParamsChecksum();

  FailureOr<StepStats> second = (*compiled)->runStep(2, /*measurePeak=*/true);
  ASSERT_TRUE(succeeded(second)) << errors;
  std::optional<double> secondLoss = (*compiled)->getLoss();
  ASSERT_TRUE(secondLoss);
  EXPECT_TRUE(std::isfinite(*secondLoss));
  EXPECT_LT(*secondLoss, *firstLoss) << "Adam lowers the loss";
  EXPECT_NE((*compiled)->getParamsChecksum(), checksum)
      << "the update changes the parameters";
  EXPECT_GT(second->peakBytes, 0u);
  EXPECT_EQ(second->peakBytes, static_cast<uint64_t>(plan->predictedPeak));
  EXPECT_EQ(second->leakedBytes, 0);
  EXPECT_TRUE(errors.empty()) << errors;
}

/// A lowered step with its plan, as each process of a run holds it.
struct LoweredStep {
  OwningOpRef<ModuleOp> module;
  StepPlan plan;
};

TEST_F(ExecutionTest, SharesOneCompilationBetweenProcesses) {
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    errors += diag.str() + "\n";
    return success();
  });
  auto lower = [&](StringRef source) -> std::unique_ptr<LoweredStep> {
    auto lowered = std::make_unique<LoweredStep>();
    lowered->module = parse(source);
    FailureOr<func::FuncOp> step = findStep(*lowered->module, "", "test");
    if (failed(step))
      return nullptr;
    FailureOr<StepPlan> plan = planStep(*lowered->module, *step);
    if (failed(plan))
      return nullptr;
    lowered->plan = std::move(*plan);
    if (failed(addStepEntry(*lowered->module, lowered->plan)) ||
        failed(lowerStep(*lowered->module, lowered->plan, Target::CPU)))
      return nullptr;
    return lowered;
  };
  // Each process compiles (or loads) its own copy of the program.
  auto compile = [&](LoweredStep &lowered, bool isSender,
                     std::string &channel) {
    SharedCompilation sharing;
    sharing.isSender = isSender;
    sharing.broadcast = [&](std::string &message) {
      if (isSender)
        channel = message;
      else
        message = channel;
    };
    CompileOptions options;
    options.optLevel = 1;
    options.sharing = &sharing;
    return CompiledStep::create(*lowered.module, lowered.plan, options);
  };
  std::unique_ptr<LoweredStep> first = lower(kStep), second = lower(kStep);
  ASSERT_TRUE(first && second) << errors;
  std::string channel;
  FailureOr<std::unique_ptr<CompiledStep>> sender =
      compile(*first, /*isSender=*/true, channel);
  ASSERT_TRUE(succeeded(sender)) << errors;
  EXPECT_FALSE((*sender)->isLoaded());
  EXPECT_GT(channel.size(), 20u) << "a fingerprint and the object code";
  FailureOr<std::unique_ptr<CompiledStep>> receiver =
      compile(*second, /*isSender=*/false, channel);
  ASSERT_TRUE(succeeded(receiver)) << errors;
  EXPECT_TRUE((*receiver)->isLoaded());
  for (CompiledStep *step : {sender->get(), receiver->get()}) {
    step->initialize(/*seed=*/0);
    for (unsigned number : {1u, 2u}) {
      FailureOr<StepStats> stats = step->runStep(number, /*measurePeak=*/true);
      ASSERT_TRUE(succeeded(stats)) << errors;
      EXPECT_EQ(stats->peakBytes,
                static_cast<uint64_t>(step->getPlan().predictedPeak));
    }
  }
  EXPECT_EQ((*receiver)->getLoss(), (*sender)->getLoss());
  EXPECT_EQ((*receiver)->getParamsChecksum(), (*sender)->getParamsChecksum());
  EXPECT_TRUE(errors.empty()) << errors;

  // Another program (another learning rate) compiles its own, and says so.
  std::string other = kStep;
  other.replace(other.find("lr = 1.0"), 8, "lr = 2.0");
  std::unique_ptr<LoweredStep> third = lower(other);
  ASSERT_TRUE(third) << errors;
  FailureOr<std::unique_ptr<CompiledStep>> mismatched =
      compile(*third, /*isSender=*/false, channel);
  ASSERT_TRUE(succeeded(mismatched)) << errors;
  EXPECT_FALSE((*mismatched)->isLoaded());
  EXPECT_NE(errors.find("lowered another program"), std::string::npos)
      << errors;

  // Nothing sent (the sender failed): every process compiles its own.
  errors.clear();
  channel.clear();
  std::unique_ptr<LoweredStep> fourth = lower(kStep);
  ASSERT_TRUE(fourth) << errors;
  FailureOr<std::unique_ptr<CompiledStep>> alone =
      compile(*fourth, /*isSender=*/false, channel);
  ASSERT_TRUE(succeeded(alone)) << errors;
  EXPECT_FALSE((*alone)->isLoaded());
  EXPECT_TRUE(errors.empty()) << errors;
}

TEST_F(ExecutionTest, ReportsWhatItCannotFeed) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @step(%x: tensor<4xi32>) -> tensor<4xi32> {
      return %x : tensor<4xi32>
    }
  )mlir");
  ASSERT_TRUE(module);
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    errors += diag.str();
    return success();
  });
  FailureOr<func::FuncOp> step = findStep(*module, "", "test");
  ASSERT_TRUE(succeeded(step));
  EXPECT_TRUE(failed(planStep(*module, *step)));
  EXPECT_NE(errors.find("cannot infer the range of integer argument #0"),
            std::string::npos)
      << errors;
  errors.clear();
  EXPECT_TRUE(failed(findStep(*module, "missing", "test.mlir")));
  EXPECT_EQ(errors, "no func.func named 'missing' in test.mlir");
}

} // namespace
