//===- MemoryCopies.cpp - copies between device and host memory -----------===//
//
// memopt-gpu-memory-copies, and HostCode: the host code of a lowered step,
// which the GPU lowering's passes leave on the CPU.
//
//===----------------------------------------------------------------------===//

#include "memopt/Conversion/MemorySpace.h"
#include "memopt/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTGPUMEMORYCOPIESPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

/// The space a call of memopt_memory_space switches to, if `op` is one.
static std::optional<int64_t> getSpaceSwitch(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  if (!call || call.getCallee() != kMemorySpaceFunction ||
      call.getNumOperands() != 1)
    return std::nullopt;
  return getConstantIntValue(call.getOperand(0));
}

HostCode::HostCode(Operation *root) {
  root->walk([&](FunctionOpInterface func) {
    Region &body = func.getFunctionBody();
    if (body.empty())
      return;
    bool host = false;
    for (Operation &op : body.front()) {
      if (std::optional<int64_t> space = getSpaceSwitch(&op)) {
        host = *space == 1;
        continue;
      }
      if (host)
        ops.insert(&op);
    }
  });
}

bool HostCode::contains(Operation *op) const {
  if (ops.empty())
    return false;
  for (; op; op = op->getParentOp()) {
    Operation *parent = op->getParentOp();
    if (!parent || isa<FunctionOpInterface>(parent))
      return ops.contains(op);
  }
  return false;
}

namespace {

struct GPUMemoryCopiesPass
    : public memopt::impl::MemoptGPUMemoryCopiesPassBase<GPUMemoryCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::CopyOp> copies;
    WalkResult walk = getOperation().walk([&](linalg::CopyOp copy) {
      if (!copy->hasAttr(kMemoryCopyAttrName))
        return WalkResult::advance();
      if (!getDirection(copy)) {
        copy.emitOpError() << "has " << kMemoryCopyAttrName << " = "
                           << copy->getAttr(kMemoryCopyAttrName)
                           << "; expected \"to_host\" or \"to_device\"";
        return WalkResult::interrupt();
      }
      if (isContiguous(copy))
        copies.push_back(copy);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (copies.empty())
      return markAllAnalysesPreserved();
    func::FuncOp callee = getCopyFunction();
    for (linalg::CopyOp copy : copies)
      rewrite(copy, callee);
  }

  /// Whether `copy` copies to the device (true) or to the host (false), or
  /// none when it is no copy between the memories.
  static std::optional<bool> getDirection(linalg::CopyOp copy) {
    auto mark = copy->getAttrOfType<StringAttr>(kMemoryCopyAttrName);
    if (!mark)
      return std::nullopt;
    if (mark.getValue() == "to_device")
      return true;
    if (mark.getValue() == "to_host")
      return false;
    return std::nullopt;
  }

  /// Whether both buffers of `copy` are contiguous (any offset).
  static bool isContiguous(linalg::CopyOp copy) {
    if (!copy.hasPureBufferSemantics())
      return false;
    return llvm::all_of(copy->getOperands(), [](Value v) {
      auto type = dyn_cast<MemRefType>(v.getType());
      return type && type.getElementType().isIntOrFloat() &&
             memref::isStaticShapeAndContiguousRowMajor(type);
    });
  }

  /// The runtime function's declaration, created on first use.
  func::FuncOp getCopyFunction() {
    ModuleOp module = getOperation();
    if (auto func = module.lookupSymbol<func::FuncOp>(kMemoryCopyFunction))
      return func;
    auto b = OpBuilder::atBlockBegin(module.getBody());
    Type i64 = b.getI64Type();
    auto func = func::FuncOp::create(
        b, module.getLoc(), kMemoryCopyFunction,
        b.getFunctionType({i64, i64, i64, b.getI32Type()}, {}));
    func.setPrivate();
    return func;
  }

  static void rewrite(linalg::CopyOp copy, func::FuncOp callee) {
    OpBuilder b(copy);
    Location loc = copy.getLoc();
    auto sourceType = cast<MemRefType>(copy.getInputs()[0].getType());
    int64_t elementBytes =
        llvm::divideCeil(sourceType.getElementTypeBitWidth(), 8);
    // Aligned pointer plus the view's offset, in bytes, as i64.
    auto address = [&](Value buffer) -> Value {
      Value pointer =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
      auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
      Value offset = arith::MulIOp::create(
          b, loc, metadata.getOffset(),
          arith::ConstantIndexOp::create(b, loc, elementBytes));
      Value sum = arith::AddIOp::create(b, loc, pointer, offset);
      return arith::IndexCastOp::create(b, loc, b.getI64Type(), sum);
    };
    bool toDevice = *getDirection(copy);
    Value dst = address(copy.getOutputs()[0]);
    Value src = address(copy.getInputs()[0]);
    Value bytes = arith::ConstantIntOp::create(
        b, loc, b.getI64Type(), sourceType.getNumElements() * elementBytes);
    Value direction =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), toDevice ? 1 : 0);
    func::CallOp::create(b, loc, callee,
                         ValueRange{dst, src, bytes, direction});
    copy->erase();
  }
};

} // namespace
