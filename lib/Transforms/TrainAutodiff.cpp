//===- TrainAutodiff.cpp - the train-autodiff pass ------------------------===//

#include "memopt/Transforms/Autodiff.h"
#include "memopt/Transforms/PassOptions.h"
#include "memopt/Transforms/Passes.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINAUTODIFFPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

namespace {

struct TrainAutodiffPass
    : public memopt::impl::TrainAutodiffPassBase<TrainAutodiffPass> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(checkEnumPassOption("train-autodiff", "optimizer", options,
                                   optimizer, errorHandler)))
      return failure();
    return parseOptionsNamingPass(
        "train-autodiff", options, errorHandler,
        [&](StringRef text,
            function_ref<LogicalResult(const Twine &)> handler) {
          return Base::initializeOptions(text, handler);
        });
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    AutodiffOptions options;
    options.optimizer = optimizer;
    options.lr = lr;
    options.beta1 = beta1;
    options.beta2 = beta2;
    options.epsilon = epsilon;
    options.weightDecay = weightDecay;
    options.momentum = momentum;
    if (failed(appendBackward(func, options)))
      signalPassFailure();
  }
};

} // namespace
