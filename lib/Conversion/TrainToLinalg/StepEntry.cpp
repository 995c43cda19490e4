//===- StepEntry.cpp - memopt-add-step-entry ------------------------------===//
//
// The calling convention through which mem-run (JIT) and its AOT driver run
// a training step: a no-argument `@__memrun_entry` that reads the step's
// arguments from globals, calls the step and writes its results into
// globals. The runtime fills and reads those globals at the addresses its
// loader resolves (docs/execution.md).
//
//===----------------------------------------------------------------------===//

#include "memopt/Conversion/Passes.h"
#include "memopt/Conversion/StepFunction.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTADDSTEPENTRYPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

std::string mlir::memopt::getStepArgumentGlobalName(unsigned index) {
  return "__memrun_arg" + std::to_string(index);
}

std::string mlir::memopt::getStepResultGlobalName(unsigned index) {
  return "__memrun_result" + std::to_string(index);
}

FailureOr<func::FuncOp>
mlir::memopt::findStepFunction(ModuleOp module, StringRef name,
                               const StepLookupOptions &options) {
  auto emitError = [&](Operation *op) {
    return options.loc ? mlir::emitError(*options.loc) : op->emitError();
  };
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func) {
      InFlightDiagnostic diag = emitError(module);
      diag << "no func.func named '" << name << "'";
      if (!options.source.empty())
        diag << " in " << options.source;
      return diag;
    }
    if (func.isExternal())
      return emitError(func)
             << "'" << name << "' is a declaration; the step needs a body";
    return func;
  }
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      candidates.push_back(func);
  if (candidates.size() == 1)
    return candidates.front();
  InFlightDiagnostic diag = emitError(module);
  if (candidates.empty()) {
    diag << "no step function: ";
    if (options.source.empty())
      return diag << "no func.func has a body";
    return diag << options.source << " has no func.func with a body";
  }
  diag << "several functions have a body (";
  llvm::interleaveComma(candidates, diag, [&](func::FuncOp func) {
    diag << "@" << func.getSymName();
  });
  return diag << "); name the step with " << options.nameOption;
}

/// The memref a global of `type` holds.
static MemRefType getGlobalType(Type type) {
  auto tensorType = cast<RankedTensorType>(type);
  return MemRefType::get(tensorType.getShape(), tensorType.getElementType());
}

/// Fails unless a global can hold `type`.
static LogicalResult checkStorable(func::FuncOp step, Type type,
                                   const Twine &what) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (tensorType && tensorType.hasStaticShape() && !tensorType.getEncoding() &&
      tensorType.getElementType().isIntOrFloat())
    return success();
  return step.emitError() << what << " has type " << type
                          << "; expected a statically shaped tensor of "
                             "integers or floats";
}

namespace {

struct AddStepEntryPass
    : public memopt::impl::MemoptAddStepEntryPassBase<AddStepEntryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> step = findStepFunction(module, funcName);
    if (failed(step) || failed(checkStep(*step)) ||
        failed(addEntry(module, *step)))
      return signalPassFailure();
  }

private:
  /// Every argument and result can live in a global.
  static LogicalResult checkStep(func::FuncOp step) {
    for (auto [index, type] : llvm::enumerate(step.getArgumentTypes()))
      if (failed(checkStorable(step, type, "argument #" + Twine(index))))
        return failure();
    for (auto [index, type] : llvm::enumerate(step.getResultTypes()))
      if (failed(checkStorable(step, type, "result #" + Twine(index))))
        return failure();
    return success();
  }

  /// Declares the globals, then the entry function.
  static LogicalResult addEntry(ModuleOp module, func::FuncOp step) {
    SymbolTable symbols(module);
    // The symbols are mem-run's calling convention; the generated ops say so.
    Location loc =
        NameLoc::get(StringAttr::get(module.getContext(), "mem-run"));
    auto reserve = [&](StringRef symbol) -> LogicalResult {
      Operation *existing = symbols.lookup(symbol);
      if (!existing)
        return success();
      return existing->emitError()
             << "symbol '" << symbol << "' is reserved by mem-run";
    };
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    auto declare = [&](StringRef symbol, Type type) -> LogicalResult {
      if (failed(reserve(symbol)))
        return failure();
      memref::GlobalOp::create(builder, loc, symbol,
                               /*sym_visibility=*/StringAttr(),
                               getGlobalType(type),
                               /*initial_value=*/builder.getUnitAttr(),
                               /*constant=*/false,
                               /*alignment=*/builder.getI64IntegerAttr(64));
      return success();
    };
    if (failed(reserve(kStepEntryName)))
      return failure();
    for (auto [index, type] : llvm::enumerate(step.getArgumentTypes()))
      if (failed(declare(getStepArgumentGlobalName(index), type)))
        return failure();
    for (auto [index, type] : llvm::enumerate(step.getResultTypes()))
      if (failed(declare(getStepResultGlobalName(index), type)))
        return failure();

    auto entry = func::FuncOp::create(builder, loc, kStepEntryName,
                                      builder.getFunctionType({}, {}));
    OpBuilder body = OpBuilder::atBlockEnd(entry.addEntryBlock());
    SmallVector<Value> operands;
    for (auto [index, type] : llvm::enumerate(step.getArgumentTypes())) {
      Value buffer = memref::GetGlobalOp::create(
          body, loc, getGlobalType(type), getStepArgumentGlobalName(index));
      // Not writable: a step that updates an argument in place works on a
      // copy, so every step sees the same inputs.
      operands.push_back(bufferization::ToTensorOp::create(
          body, loc, type, buffer, /*restrict=*/true, /*writable=*/false));
    }
    auto call = func::CallOp::create(body, loc, step, operands);
    for (auto [index, value] : llvm::enumerate(call.getResults())) {
      Value buffer =
          memref::GetGlobalOp::create(body, loc, getGlobalType(value.getType()),
                                      getStepResultGlobalName(index));
      bufferization::MaterializeInDestinationOp::create(
          body, loc, TypeRange{}, value, buffer, /*restrict=*/true,
          /*writable=*/true);
    }
    func::ReturnOp::create(body, loc);
    return success();
  }
};

} // namespace
