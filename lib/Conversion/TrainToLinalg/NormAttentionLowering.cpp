//===- NormAttentionLowering.cpp
//---------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::memopt;

void mlir::memopt::populateNormAttentionLoweringPatterns(
    RewritePatternSet &patterns) {}
