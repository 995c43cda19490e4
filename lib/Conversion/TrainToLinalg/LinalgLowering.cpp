//===- LinalgLowering.cpp
//---------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::memopt;

void mlir::memopt::populateLinalgLoweringPatterns(RewritePatternSet &patterns) {
}
