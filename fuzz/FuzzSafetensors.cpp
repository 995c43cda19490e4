//===- FuzzSafetensors.cpp - mem-run's safetensors reader -----------------===//
//
// libFuzzer target: the input is a safetensors file as `mem-run --init-from`
// reads it (WeightsFile::parse): an 8-byte header length, the JSON header,
// the tensors' bytes. After the 8 bytes, the input's run-length escapes are
// expanded (FuzzExpand.h), so that a small input can hold a header nested
// 100,000 levels deep. A refused file (an error) is a correct answer; a
// crash, a sanitizer report, or an accepted file whose entry holds other
// than its dtype and shape's bytes is a finding. Every accepted element is
// read as mem-run would read it, so that AddressSanitizer sees a view past
// the input.
//
//===----------------------------------------------------------------------===//

#include "FuzzExpand.h"

#include "memopt/Execution/Init.h"
#include "memopt/Execution/Weights.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

using namespace mlir;
using namespace mlir::memopt::execution;

// The compact input; expansion may grow it to 1 MiB.
static constexpr size_t kMaxInputBytes = 16 * 1024;

[[noreturn]] static void finding(const llvm::Twine &message) {
  llvm::errs() << "memopt-fuzz-safetensors: " << message << "\n";
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1;
  llvm::StringRef input(reinterpret_cast<const char *>(data), size);
  std::optional<std::string> rest = mlir::memopt::fuzz::expandRuns(
      input.drop_front(std::min<size_t>(8, size)));
  if (!rest)
    return -1;
  std::string file = input.take_front(8).str() + *rest;
  static MLIRContext context(MLIRContext::Threading::DISABLED);
  llvm::Expected<WeightsFile> weights = WeightsFile::parse(
      llvm::MemoryBuffer::getMemBufferCopy(file, "input.safetensors"),
      "input.safetensors", &context);
  if (!weights) {
    llvm::consumeError(weights.takeError());
    return 0;
  }
  for (const auto &item : weights->getEntries()) {
    const WeightsFile::Entry &entry = item.getValue();
    unsigned elementBytes = getStorageBytes(entry.elementType);
    // Exact: a zero dimension makes 0 whatever the others' product.
    std::optional<int64_t> bytes =
        llvm::is_contained(entry.shape, 0) ? 0 : elementBytes;
    for (int64_t dim : entry.shape)
      bytes = dim < 0 || !bytes ? std::nullopt : llvm::checkedMul(*bytes, dim);
    if (!elementBytes || !bytes ||
        *bytes != static_cast<int64_t>(entry.bytes.size()))
      finding("entry '" + item.getKey() + "' holds " +
              llvm::Twine(entry.bytes.size()) +
              " bytes, not its dtype and shape's");
    // Read every element as loadWeights does.
    double sum = 0;
    for (size_t offset = 0; offset < entry.bytes.size(); offset += elementBytes)
      sum += isa<FloatType>(entry.elementType)
                 ? loadFloat(entry.elementType, entry.bytes.data() + offset)
                 : static_cast<double>(loadInteger(
                       entry.elementType, entry.bytes.data() + offset));
    (void)sum;
  }
  return 0;
}
