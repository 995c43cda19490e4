//===- SourcePositions.cpp - named locations that also say where ----------===//

#include "memopt/Support/SourcePositions.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::memopt;

FailureOr<OpPositions>
mlir::memopt::collectOpPositions(const llvm::MemoryBuffer &buffer,
                                 DialectRegistry &registry,
                                 bool allowUnregisteredDialects) {
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(allowUnregisteredDialects);
  // The tool's own parse reports any error; this one stays quiet.
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer.getBuffer(),
                                       buffer.getBufferIdentifier(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  Block block;
  AsmParserState state;
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &state)))
    return failure();
  OpPositions positions;
  for (Operation &top : block)
    top.walk<WalkOrder::PreOrder>([&](Operation *op) {
      const AsmParserState::OperationDefinition *def = state.getOpDef(op);
      if (!def || !def->loc.Start.isValid()) {
        positions.push_back({0, 0});
        return;
      }
      positions.push_back(sourceMgr.getLineAndColumn(def->loc.Start));
    });
  return positions;
}

/// `loc` with its position filled in: a name (or a chain of names) whose
/// innermost child is unknown gets `position` there. Anything else (a file
/// position, a fused or call-site location) already says where it is from.
static Location withPosition(Location loc, Location position) {
  if (isa<UnknownLoc>(loc))
    return position;
  if (auto name = dyn_cast<NameLoc>(loc)) {
    Location child = withPosition(name.getChildLoc(), position);
    return child == name.getChildLoc()
               ? loc
               : Location(NameLoc::get(name.getName(), child));
  }
  return loc;
}

void mlir::memopt::attachOpPositions(Operation *root, StringRef fileName,
                                     const OpPositions &positions) {
  size_t count = 0;
  root->walk([&](Operation *) { ++count; });
  // A file of bare functions parses into an implicit module that the text
  // does not spell: the positions then start below `root`. Any other
  // mismatch means the tool parsed another text (split input): leave the
  // locations alone rather than attach wrong lines.
  bool skipRoot = positions.size() + 1 == count;
  if (positions.size() != count && !skipRoot)
    return;
  MLIRContext *context = root->getContext();
  StringAttr file = StringAttr::get(context, fileName);
  size_t index = 0;
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (skipRoot && op == root)
      return;
    auto [line, column] = positions[index++];
    if (line == 0 || !isa<NameLoc>(op->getLoc()))
      return;
    op->setLoc(
        withPosition(op->getLoc(), FileLineColLoc::get(file, line, column)));
  });
}
