//===- CheckTarget.cpp - validate the NVIDIA target options ---------------===//

#include "memopt/Conversion/Passes.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTGPUCHECKTARGETPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

namespace {

/// A chip both LLVM 22's NVPTX backend and CUDA 13's ptxas accept, with the
/// oldest PTX ISA version (times 10) that supports it.
struct KnownChip {
  StringLiteral name;
  unsigned minPTX;
};

// CUDA 13 dropped sm_50 to sm_72; the PTX minimums are those of the PTX ISA
// release notes.
constexpr KnownChip kKnownChips[] = {
    {"sm_75", 63},   {"sm_80", 70},  {"sm_86", 71},   {"sm_87", 74},
    {"sm_89", 78},   {"sm_90", 78},  {"sm_90a", 80},  {"sm_100", 86},
    {"sm_100a", 86}, {"sm_103", 88}, {"sm_103a", 88}, {"sm_120", 87},
    {"sm_120a", 87}, {"sm_121", 88}, {"sm_121a", 88},
};

struct GPUCheckTargetPass
    : public memopt::impl::MemoptGPUCheckTargetPassBase<GPUCheckTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(check()))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  LogicalResult check() {
    ModuleOp module = getOperation();
    const KnownChip *known = llvm::find_if(
        kKnownChips, [&](const KnownChip &c) { return c.name == chip; });
    if (known == std::end(kKnownChips)) {
      std::string names;
      for (auto [i, c] : llvm::enumerate(kKnownChips))
        names += (i ? ", " : "") + c.name.str();
      return module.emitError()
             << "unknown chip '" << chip << "'; expected one of " << names;
    }
    if (!features.empty()) {
      StringRef version = features;
      unsigned ptx = 0;
      if (!version.consume_front("+ptx") || version.getAsInteger(10, ptx))
        return module.emitError()
               << "invalid features '" << features
               << "'; expected '+ptxNN' (a PTX ISA version, e.g. +ptx80)";
      if (ptx < known->minPTX)
        return module.emitError()
               << "chip " << chip << " needs PTX ISA " << known->minPTX / 10
               << "." << known->minPTX % 10 << " or newer; got '" << features
               << "' (use +ptx" << known->minPTX << " or higher)";
    }
    if (format != "bin" && format != "isa" && format != "fatbin")
      return module.emitError() << "unknown format '" << format
                                << "'; expected bin, isa or fatbin";
    return success();
  }
};

} // namespace
