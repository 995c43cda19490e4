//===- FuzzMemPlanCsv.cpp - mem-plan's CSV reader and the planner ---------===//
//
// libFuzzer target: reads the input as mem-plan's buffer CSV
// (tools/mem-plan/CsvReader.h) with an alignment picked from a hash of the
// input. What the reader accepts must be a valid planner input
// (validatePlanInput); the planner, with small deterministic budgets, must
// then return a plan that the independent checker verifyMemoryPlan accepts
// and whose arena is at least LOAD. Rejected inputs (with a message) are
// correct answers; a crash, a sanitizer report or a broken promise above is
// a finding.
//
//===----------------------------------------------------------------------===//

#include "CsvReader.h"

#include "memopt/Analysis/MemoryPlan.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

using namespace mlir::memopt;

/// Larger inputs are skipped; larger plans are not planned (the planner's
/// cost grows with the buffers, its code paths do not).
static constexpr size_t kMaxInputBytes = 64 * 1024;
static constexpr size_t kMaxPlannedBuffers = 256;

static const int64_t kAlignments[] = {1, 1, 8, 256, int64_t(1) << 40};

[[noreturn]] static void finding(const llvm::Twine &message) {
  llvm::errs() << "memopt-fuzz-mem-plan-csv: " << message << "\n";
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return -1;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text)
    hash = (hash ^ c) * 1099511628211ull;
  int64_t alignment = kAlignments[hash % std::size(kAlignments)];

  std::vector<plan::Row> rows;
  llvm::raw_null_ostream errors;
  if (!plan::readBufferCsv("fuzz.csv", text, alignment, rows, errors))
    return 0;

  std::vector<PlanBuffer> buffers;
  for (const plan::Row &row : rows)
    buffers.push_back(row.buffer);
  if (llvm::Error error = validatePlanInput(buffers, alignment))
    finding("the reader accepted an invalid planner input: " +
            llvm::toString(std::move(error)));
  if (buffers.size() > kMaxPlannedBuffers)
    return 0;

  MemoryPlanOptions options;
  options.alignment = alignment;
  options.searchBudget = 20000;
  options.exactBudget = 20000;
  llvm::Expected<MemoryPlan> result = planMemory(buffers, options);
  if (!result)
    finding("planMemory failed on a valid input: " +
            llvm::toString(result.takeError()));
  if (llvm::Error error = verifyMemoryPlan(buffers, result->offsets,
                                           result->arenaBytes, alignment))
    finding("invalid plan: " + llvm::toString(std::move(error)));
  if (result->arenaBytes < result->loadBytes ||
      result->loadBytes != computeLoad(buffers, alignment))
    finding("arena " + llvm::Twine(result->arenaBytes) + " below LOAD " +
            llvm::Twine(result->loadBytes));
  MemoryPlan greedy = planGreedyBySize(buffers, alignment);
  if (llvm::Error error = verifyMemoryPlan(buffers, greedy.offsets,
                                           greedy.arenaBytes, alignment))
    finding("invalid greedy plan: " + llvm::toString(std::move(error)));
  return 0;
}
