//===- mem-plan.cpp - the static memory planner on a buffer list ----------===//
//
// Reads buffers with known lifetimes from a CSV in minimalloc's benchmark
// format (`id,lower,upper,size`, lifetimes half-open), plans their offsets
// with planMemory, prints LOAD, the arena and their ratio, and optionally
// writes the offsets (`-o`) and the greedy-by-size baseline (`--baseline`).
// With `--allocator=pytorch-cuda[:CONF]` it also replays the buffers'
// allocations and frees through PyTorch's CUDA caching allocator
// (memopt/Allocator/CachingAllocator.h) and prints what
// torch.cuda.max_memory_allocated() and max_memory_reserved() would report.
//
//===----------------------------------------------------------------------===//

#include "CsvReader.h"
#include "memopt/Allocator/CachingAllocator.h"
#include "memopt/Analysis/MemoryPlan.h"
#include "memopt/Support/AtomicFile.h"
#include "memopt/Support/ByteSize.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>

using namespace mlir::memopt;
using namespace mlir::memopt::plan;
namespace cl = llvm::cl;
using llvm::StringRef;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static cl::OptionCategory planCategory("mem-plan options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<buffers.csv | ->"),
                                      cl::init(""), cl::cat(planCategory));

static cl::opt<std::string>
    outputFile("o",
               cl::desc("Write the plan as CSV (id,lower,upper,size,offset, "
                        "in input order) to this file; written atomically, "
                        "never partially. '-' is stdout (the summary then "
                        "goes to stderr)"),
               cl::value_desc("file"), cl::init(""), cl::cat(planCategory));

static cl::opt<int64_t> alignment(
    "alignment",
    cl::desc("Offsets are multiples of this and sizes are rounded up to it "
             "(a power of two). Default 1: the sizes of minimalloc's CSVs are "
             "already allocation sizes"),
    cl::init(1), cl::cat(planCategory));

static cl::opt<int64_t>
    budget("budget",
           cl::desc("Work units of the planner's improvement phase (default "
                    "2000000; 0 = the greedy portfolio only). Deterministic: "
                    "the same budget gives the same plan on any machine"),
           cl::init(2'000'000), cl::cat(planCategory));

static cl::opt<int64_t> exactBudget(
    "exact-budget",
    cl::desc("Work units of the exact search on the components of at most "
             "5000 buffers (default 20000000; 0 = none). Deterministic"),
    cl::init(20'000'000), cl::cat(planCategory));

static cl::opt<double>
    timeLimit("time-limit",
              cl::desc("Safety cap in seconds on the planner's exact search "
                       "and improvement phase (default 10; 0 = none, so only "
                       "the deterministic budgets bound them); normal runs "
                       "finish by budget. With --baseline it also caps the "
                       "greedy-by-size baseline, which fails when the cap "
                       "is reached. It does not bound reading, the greedy "
                       "placements or --verify"),
              cl::init(10.0), cl::cat(planCategory));

static cl::opt<bool>
    baseline("baseline",
             cl::desc("Also plan with the greedy-by-size baseline (best fit, "
                      "largest first) and print its arena and ratio"),
             cl::init(false), cl::cat(planCategory));

static cl::opt<bool>
    verify("verify",
           cl::desc("Check the plan (and the baseline's) with the "
                    "independent checker verifyMemoryPlan"),
           cl::init(false), cl::cat(planCategory));

static cl::opt<std::string> allocatorName(
    "allocator",
    cl::desc("Also replay the buffers through a device allocator: each "
             "buffer is allocated at its lower and freed at its upper point "
             "(frees first at equal points, ties by id), and the allocator's "
             "peaks are printed. pytorch-cuda[:CONF] is PyTorch's CUDA "
             "caching allocator, CONF as in PYTORCH_CUDA_ALLOC_CONF, e.g. "
             "pytorch-cuda:expandable_segments:True,max_split_size_mb:128 "
             "(docs/allocator.md)"),
    cl::value_desc("pytorch-cuda[:CONF]"), cl::init(""), cl::cat(planCategory));

static cl::opt<std::string> deviceMemory(
    "device-memory",
    cl::desc("With --allocator: the bytes the allocator may reserve on the "
             "device, with an optional unit (e.g. 80GiB); beyond them an "
             "allocation is reported as out of memory. Default: unlimited"),
    cl::value_desc("size"), cl::init(""), cl::cat(planCategory));

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// Prints `mem-plan: error: message`; returns false so callers can
/// `return fail(...)`.
static bool fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mem-plan") << message << "\n";
  return false;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

/// Writes `contents` to `path` whole or not at all (memopt/Support/
/// AtomicFile.h); "-" is stdout.
static bool writeOutput(StringRef path, StringRef contents) {
  if (llvm::Error error = mlir::memopt::writeFileAtomically(
          path, [&](llvm::raw_ostream &os) { os << contents; }))
    return fail(llvm::toString(std::move(error)));
  return true;
}

//===----------------------------------------------------------------------===//
// The allocator replay (--allocator)
//===----------------------------------------------------------------------===//

namespace {
/// What --allocator and --device-memory ask for.
struct AllocatorRequest {
  /// The CONF part as given; empty for the default configuration.
  std::string conf;
  allocator::CachingAllocatorConfig config;
  std::optional<int64_t> deviceBytes;
};
} // namespace

/// Reads --allocator and --device-memory; false after printing an error.
static bool parseAllocatorOptions(std::optional<AllocatorRequest> &request) {
  bool given = allocatorName.getNumOccurrences() > 0;
  if (!given) {
    if (deviceMemory.getNumOccurrences() > 0)
      return fail("--device-memory needs --allocator (the device memory is "
                  "that of the allocator replay)");
    return true;
  }
  StringRef name = allocatorName;
  AllocatorRequest parsed;
  if (name != "pytorch-cuda") {
    if (!name.starts_with("pytorch-cuda:"))
      return fail("--allocator=" + name +
                  ": unknown allocator; expected pytorch-cuda or "
                  "pytorch-cuda:CONF (CONF as in PYTORCH_CUDA_ALLOC_CONF, "
                  "e.g. pytorch-cuda:expandable_segments:True)");
    parsed.conf = name.drop_front(strlen("pytorch-cuda:")).str();
  }
  llvm::Expected<allocator::CachingAllocatorConfig> config =
      allocator::CachingAllocatorConfig::parse(parsed.conf);
  if (!config)
    return fail("--allocator=" + name + ": " +
                llvm::toString(config.takeError()));
  parsed.config = *config;
  if (deviceMemory.getNumOccurrences() > 0) {
    mlir::FailureOr<int64_t> bytes = parseByteSize(deviceMemory);
    if (mlir::failed(bytes) || *bytes == 0)
      return fail("--device-memory=" + deviceMemory +
                  ": expected a positive number of bytes with an optional "
                  "unit, e.g. 80GiB, 40000MB or 1073741824");
    parsed.deviceBytes = *bytes;
  }
  if (parsed.config.perProcessMemoryFraction && !parsed.deviceBytes)
    return fail("--allocator=" + name +
                ": per_process_memory_fraction needs --device-memory (the "
                "fraction is of the device's memory)");
  request = std::move(parsed);
  return true;
}

/// Ids in order: integers by value first, then the other ids as text.
static bool idLess(StringRef a, StringRef b) {
  int64_t x = 0, y = 0;
  bool aNumber = !a.getAsInteger(10, x);
  bool bNumber = !b.getAsInteger(10, y);
  if (aNumber != bNumber)
    return aNumber;
  if (aNumber && x != y)
    return x < y;
  return a < b;
}

/// The buffers as allocator events: buffer i is allocated at its lower point
/// and freed at its upper one; at one point frees come first, each kind in
/// id order. `eventRows` gets the row of each event.
static std::vector<allocator::AllocatorEvent>
buildAllocatorEvents(const std::vector<Row> &rows,
                     std::vector<size_t> &eventRows) {
  struct Pending {
    int64_t time;
    bool isMalloc;
    size_t row;
  };
  std::vector<Pending> pending;
  for (auto [index, row] : llvm::enumerate(rows)) {
    pending.push_back({row.buffer.lower, true, index});
    pending.push_back({row.buffer.upper, false, index});
  }
  llvm::stable_sort(pending, [&](const Pending &a, const Pending &b) {
    if (a.time != b.time)
      return a.time < b.time;
    if (a.isMalloc != b.isMalloc)
      return !a.isMalloc;
    return idLess(rows[a.row].id, rows[b.row].id);
  });
  std::vector<allocator::AllocatorEvent> events;
  for (const Pending &event : pending) {
    auto id = static_cast<int64_t>(event.row);
    events.push_back(event.isMalloc ? allocator::AllocatorEvent::malloc(
                                          id, rows[event.row].buffer.size)
                                    : allocator::AllocatorEvent::free(id));
    eventRows.push_back(event.row);
  }
  return events;
}

/// Replays the buffers and prints the allocator's lines.
static bool replayAllocator(const AllocatorRequest &request,
                            const std::vector<Row> &rows,
                            llvm::raw_ostream &os) {
  std::vector<size_t> eventRows;
  std::vector<allocator::AllocatorEvent> events =
      buildAllocatorEvents(rows, eventRows);
  llvm::Expected<allocator::AllocatorReplayResult> result =
      allocator::replayAllocatorEvents(events, request.config,
                                       request.deviceBytes);
  if (!result)
    return fail("internal error: the allocator replay failed: " +
                llvm::toString(result.takeError()));
  const allocator::CachingAllocatorStats &stats = result->stats;
  os << "allocator: pytorch-cuda\n";
  os << "allocator_config: "
     << (request.conf.empty() ? "default" : request.conf) << "\n";
  os << "device_memory_bytes: ";
  if (request.deviceBytes)
    os << *request.deviceBytes << "\n";
  else
    os << "unlimited\n";
  os << "allocated_peak_bytes: " << stats.allocatedBytes.peak << "\n";
  os << "requested_peak_bytes: " << stats.requestedBytes.peak << "\n";
  os << "reserved_peak_bytes: " << stats.reservedBytes.peak << "\n";
  os << "reserved_end_bytes: " << stats.reservedBytes.current << "\n";
  os << "segments_peak: " << stats.segments.peak << "\n";
  os << "device_mallocs: " << stats.deviceAllocs << "\n";
  os << "device_frees: " << stats.deviceFrees << "\n";
  os << "alloc_retries: " << stats.allocRetries << "\n";
  if (!result->failure) {
    os << "oom: none\n";
    return true;
  }
  const Row &row = rows[eventRows[result->failedEvent]];
  os << "oom: buffer '" << row.id << "' at " << row.buffer.lower << ": "
     << result->failure->message << "\n";
  return true;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// arena / load with 4 decimals; 1.0000 when there is nothing to place.
static std::string formatRatio(int64_t arena, int64_t load) {
  double ratio = load == 0 ? 1.0 : static_cast<double>(arena) / load;
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.4f", ratio);
  return text;
}

static double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

static bool runMemPlan() {
  if (inputFile.empty())
    return fail("no input given; expected a CSV file of buffers, or - for "
                "stdin (see --help)");
  if (alignment <= 0 || !llvm::isPowerOf2_64(alignment))
    return fail("--alignment=" + Twine(alignment) +
                " is not a positive power of two");
  if (budget < 0)
    return fail("--budget=" + Twine(budget) + " is negative");
  if (exactBudget < 0)
    return fail("--exact-budget=" + Twine(exactBudget) + " is negative");
  if (!(timeLimit >= 0))
    return fail("--time-limit must be a non-negative number of seconds (0 = "
                "no wall-clock cap), got " +
                llvm::formatv("{0}", static_cast<double>(timeLimit)).str());
  std::optional<AllocatorRequest> allocatorRequest;
  if (!parseAllocatorOptions(allocatorRequest))
    return false;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (!file)
    return fail("cannot read '" + inputFile +
                "': " + file.getError().message());
  std::vector<Row> rows;
  if (!readBufferCsv(inputFile == "-" ? "<stdin>" : inputFile.getValue(),
                     (*file)->getBuffer(), alignment, rows, llvm::errs()))
    return false;

  std::vector<PlanBuffer> buffers;
  buffers.reserve(rows.size());
  for (const Row &row : rows)
    buffers.push_back(row.buffer);

  MemoryPlanOptions options;
  options.alignment = alignment;
  options.searchBudget = budget;
  options.exactBudget = exactBudget;
  options.timeLimitSeconds = timeLimit; // 0: none
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<MemoryPlan> plan = planMemory(buffers, options);
  double planMs = millisecondsSince(start);
  if (!plan)
    return fail(llvm::toString(plan.takeError()));
  if (verify)
    if (llvm::Error error = verifyMemoryPlan(buffers, plan->offsets,
                                             plan->arenaBytes, alignment))
      return fail("internal error: the plan is invalid: " +
                  llvm::toString(std::move(error)));

  std::optional<MemoryPlan> greedy;
  double greedyMs = 0;
  if (baseline) {
    start = std::chrono::steady_clock::now();
    auto deadline = std::chrono::steady_clock::time_point::max();
    if (timeLimit > 0 && timeLimit < 1e9) // beyond 30 years: none
      deadline =
          start +
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
              std::chrono::duration<double>(timeLimit));
    size_t placed = 0;
    greedy = planGreedyBySize(buffers, alignment, deadline, placed);
    greedyMs = millisecondsSince(start);
    if (!greedy)
      return fail(
          llvm::formatv("the greedy-by-size baseline did not finish within "
                        "--time-limit={0} s (it placed {1} of {2} buffers); "
                        "its time grows quadratically on large fragmented "
                        "inputs: give --time-limit=0 to let it finish, or "
                        "leave out --baseline",
                        static_cast<double>(timeLimit), placed, buffers.size())
              .str());
    if (verify)
      if (llvm::Error error = verifyMemoryPlan(buffers, greedy->offsets,
                                               greedy->arenaBytes, alignment))
        return fail("internal error: the baseline plan is invalid: " +
                    llvm::toString(std::move(error)));
  }

  if (!outputFile.empty()) {
    std::string csv = "id,lower,upper,size,offset\n";
    llvm::raw_string_ostream os(csv);
    for (auto [row, offset] : llvm::zip_equal(rows, plan->offsets))
      os << row.id << "," << row.buffer.lower << "," << row.buffer.upper << ","
         << row.buffer.size << "," << offset << "\n";
    if (!writeOutput(outputFile, csv))
      return false;
  }

  llvm::raw_ostream &os = outputFile == "-" ? llvm::errs() : llvm::outs();
  os << "buffers: " << buffers.size() << "\n";
  os << "load_bytes: " << plan->loadBytes << "\n";
  os << "arena_bytes: " << plan->arenaBytes << "\n";
  os << "ratio: " << formatRatio(plan->arenaBytes, plan->loadBytes) << "\n";
  os << "strategy: " << plan->strategy << "\n";
  os << "proved_optimal: " << (plan->provedOptimal ? "yes" : "no") << "\n";
  os << "time_ms: " << llvm::format("%.1f", planMs) << "\n";
  if (greedy) {
    os << "baseline_arena_bytes: " << greedy->arenaBytes << "\n";
    os << "baseline_ratio: "
       << formatRatio(greedy->arenaBytes, greedy->loadBytes) << "\n";
    os << "baseline_time_ms: " << llvm::format("%.1f", greedyMs) << "\n";
  }
  if (verify)
    os << "verified: yes\n";
  if (allocatorRequest && !replayAllocator(*allocatorRequest, rows, os))
    return false;
  os.flush();
  return true;
}

/// Debian's libLLVM.so registers options of every LLVM component; --help
/// shows mem-plan's own.
int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions({&planCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "mem-plan: assigns every buffer of a CSV an offset in one arena so that "
      "buffers live at the same time never overlap, aiming at LOAD (the most "
      "bytes live at once, the lower bound)\n\n"
      "Input: minimalloc's benchmark CSV: a header of the columns id, lower, "
      "upper, size (any order), then one buffer per line, live over the "
      "half-open interval [lower, upper) of program points.\n\n"
      "Examples:\n"
      "  mem-plan buffers.csv\n"
      "  mem-plan buffers.csv --baseline --verify -o offsets.csv\n"
      "  cat buffers.csv | mem-plan - --alignment=256\n"
      "  mem-plan buffers.csv "
      "--allocator=pytorch-cuda:expandable_segments:True "
      "--device-memory=80GiB\n");
  return runMemPlan() ? 0 : 1;
}
