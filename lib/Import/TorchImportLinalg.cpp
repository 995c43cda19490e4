//===- TorchImportLinalg.cpp - matrix products ----------------------------===//
//
// The handlers of aten.addmm, aten.mm and aten.bmm: train.matmul, whose
// transpose flags absorb pending aten.t operands (TorchImportFusions.cpp).
//
//===----------------------------------------------------------------------===//

#include "TorchImportInternal.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::import;
using namespace mlir::memopt::import::detail;

//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importAddmm(Node &node,
                                         SmallVectorImpl<Result> &out) {
  FailureOr<double> beta = getDouble(node, 3, "beta", 1.0);
  FailureOr<double> alpha = getDouble(node, 4, "alpha", 1.0);
  if (failed(beta) || failed(alpha))
    return failure();
  if (*beta != 1.0 || *alpha != 1.0)
    return emitError(node.loc) << "addmm with beta or alpha other than 1 is "
                                  "not supported";
  bool transposeLhs = false, transposeRhs = false;
  FailureOr<Value> lhs = getMatmulOperand(node, 1, transposeLhs);
  FailureOr<Value> rhs = getMatmulOperand(node, 2, transposeRhs);
  FailureOr<Value> bias = getTensor(node, 0);
  if (failed(lhs) || failed(rhs) || failed(bias))
    return failure();
  if (shapeOf(*lhs).size() != 2 || shapeOf(*rhs).size() != 2)
    return emitError(node.loc) << "addmm needs matrices";
  Value product =
      builder->matmul(*lhs, *rhs, transposeLhs, transposeRhs, "matmul");
  if (shapeOf(*bias).size() == 1 && shapeOf(*bias)[0] == shapeOf(product)[1]) {
    out.push_back(plain(builder->biasAdd(product, *bias, -1, "bias")));
    return success();
  }
  FailureOr<Value> broadcast = broadcastTo(node, *bias, shapeOf(product));
  if (failed(broadcast))
    return failure();
  out.push_back(plain(builder->add(product, *broadcast, "bias")));
  return success();
}

LogicalResult GraphImporter::importMm(Node &node,
                                      SmallVectorImpl<Result> &out) {
  bool transposeLhs = false, transposeRhs = false;
  FailureOr<Value> lhs = getMatmulOperand(node, 0, transposeLhs);
  FailureOr<Value> rhs = getMatmulOperand(node, 1, transposeRhs);
  if (failed(lhs) || failed(rhs))
    return failure();
  if (shapeOf(*lhs).size() < 2 || shapeOf(*rhs).size() < 2)
    return emitError(node.loc)
           << node.target << " needs operands of rank 2 or more";
  out.push_back(
      plain(builder->matmul(*lhs, *rhs, transposeLhs, transposeRhs, "matmul")));
  return success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void mlir::memopt::import::detail::registerLinalgHandlers(HandlerTable &table) {
  using G = GraphImporter;
  static const OpEntry entries[] = {
      {{"aten.addmm.default", "train.matmul + train.bias_add"},
       &G::importAddmm},
      {{"aten.bmm.default", "train.matmul (batched)"}, &G::importMm},
      {{"aten.mm.default", "train.matmul (aten.t operands become transpose "
                           "flags)"},
       &G::importMm},
  };
  table.append(std::begin(entries), std::end(entries));
}
