//===- Lora.h - fine-tuning options shared by the tools ---------*- C++ -*-===//
//
// The `--lora` option of mem-gen and mem-autoplan, parsed into
// train-lora's options.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_LORA_H
#define MEMOPT_TRANSFORMS_LORA_H

#include "memopt/Transforms/Passes.h"
#include "llvm/Support/Error.h"

namespace mlir::memopt {

/// Parses `rank=R,alpha=A[,dropout=P][,targets=NAME[,NAME...]]` (keys in any
/// order, `targets` last: it takes the rest of the list) into `options`.
/// Keys left out keep their defaults; `targets` left out stays empty (the
/// caller picks the model's defaults). Fails with a message naming the bad
/// key or value.
llvm::Error parseLoraSpec(llvm::StringRef spec, TrainLoraPassOptions &options);

/// PEFT's default target modules for a model family ("gpt2" -> c_attn,
/// "llama" -> q_proj, v_proj); empty for others.
SmallVector<std::string> getDefaultLoraTargets(llvm::StringRef family);

} // namespace mlir::memopt

#endif // MEMOPT_TRANSFORMS_LORA_H
