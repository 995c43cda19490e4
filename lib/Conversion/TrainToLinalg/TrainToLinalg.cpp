//===- TrainToLinalg.cpp - convert-train-to-linalg ------------------------===//

#include "Lowering.h"

#include "memopt/Conversion/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_CONVERTTRAINTOLINALGPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

namespace {

struct ConvertTrainToLinalgPass
    : public memopt::impl::ConvertTrainToLinalgPassBase<
          ConvertTrainToLinalgPass> {
  using Base::Base;

  void runOnOperation() override;
};

} // namespace

/// Declares one uninitialized global per persistent state name (and the
/// seed), so the lowered ops can reference them.
static LogicalResult declareGlobals(ModuleOp module) {
  OpBuilder builder(module.getBodyRegion());
  llvm::StringMap<Type> declared;
  SymbolTable symbols(module);
  auto declare = [&](Location loc, StringRef symbol,
                     RankedTensorType type) -> LogicalResult {
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    auto [it, inserted] = declared.try_emplace(symbol, memrefType);
    if (!inserted) {
      if (it->second == memrefType)
        return success();
      return emitError(loc)
             << "state '" << symbol
             << "' is read with two different types: " << it->second << " and "
             << memrefType;
    }
    // A module may declare the global itself (e.g. a test that sets the
    // seed); it must then be the memref the lowering expects.
    if (Operation *existing = symbols.lookup(symbol)) {
      auto global = dyn_cast<memref::GlobalOp>(existing);
      if (global && global.getType() == memrefType && !global.getConstant())
        return success();
      return emitError(loc) << "symbol '" << symbol
                            << "' already exists in the module and is not a "
                               "mutable global of type "
                            << memrefType;
    }
    memref::GlobalOp::create(builder, loc, symbol,
                             /*sym_visibility=*/StringAttr(), memrefType,
                             /*initial_value=*/builder.getUnitAttr(),
                             /*constant=*/false,
                             /*alignment=*/builder.getI64IntegerAttr(64));
    return success();
  };
  WalkResult result = module.walk([&](Operation *op) {
    LogicalResult declaredOne = success();
    if (auto param = dyn_cast<train::ParamOp>(op))
      declaredOne = declare(op->getLoc(), getParamGlobalName(param.getName()),
                            cast<RankedTensorType>(param.getType()));
    else if (auto state = dyn_cast<train::OptStateOp>(op))
      declaredOne = declare(op->getLoc(), getStateGlobalName(state.getName()),
                            cast<RankedTensorType>(state.getType()));
    else if (isa<train::DropoutOp>(op))
      declaredOne = declare(op->getLoc(), kSeedGlobalName,
                            RankedTensorType::get({}, builder.getI64Type()));
    return failed(declaredOne) ? WalkResult::interrupt()
                               : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void ConvertTrainToLinalgPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (failed(declareGlobals(module)) ||
      failed(insertMemorySpaceMarkers(module)))
    return signalPassFailure();

  ConversionTarget target(getContext());
  target.addIllegalDialect<train::TrainDialect>();
  // Lowered with the collectives, by memopt-shard-to-mpi or -nccl.
  target.addLegalOp<train::P2POp>();
  target.addLegalDialect<
      arith::ArithDialect, bufferization::BufferizationDialect,
      func::FuncDialect, linalg::LinalgDialect, math::MathDialect,
      memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect>();

  // Planned steps are lowered onto their arena.
  SmallVector<ArenaPlacement> placements;
  for (auto func : module.getOps<func::FuncOp>()) {
    FailureOr<ArenaPlacement> placement = ArenaPlacement::prepare(func);
    if (failed(placement))
      return signalPassFailure();
    placements.push_back(std::move(*placement));
  }

  RewritePatternSet patterns(&getContext());
  populateStateLoweringPatterns(patterns);
  populateAdam8bitLoweringPatterns(patterns);
  populateElementwiseLoweringPatterns(patterns);
  populateLinalgLoweringPatterns(patterns);
  populateLossLoweringPatterns(patterns);
  populateNormLoweringPatterns(patterns);
  populateAttentionLoweringPatterns(patterns);
  populateConvLoweringPatterns(patterns);
  populateUpsampleLoweringPatterns(patterns);
  populateBatchNormLoweringPatterns(patterns);
  populateFP8LoweringPatterns(patterns);
  populateDequantizeLoweringPatterns(patterns);
  populateMemorySpaceLoweringPatterns(patterns);
  if (failed(applyPartialConversion(module, target, std::move(patterns))))
    return signalPassFailure();
  for (ArenaPlacement &placement : placements)
    if (failed(placement.apply()))
      return signalPassFailure();
}
