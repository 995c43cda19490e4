//===- mem-plan.cpp - the static memory planner on a buffer list ----------===//
//
// Reads buffers with known lifetimes from a CSV in minimalloc's benchmark
// format (`id,lower,upper,size`, lifetimes half-open), plans their offsets
// with planMemory, prints LOAD, the arena and their ratio, and optionally
// writes the offsets (`-o`) and the greedy-by-size baseline (`--baseline`).
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/MemoryPlan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>

using namespace mlir::memopt;
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
              cl::desc("Safety cap on the planning time in seconds (default "
                       "10); normal runs finish by budget"),
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
// CSV input
//===----------------------------------------------------------------------===//

namespace {
/// One row of the input.
struct Row {
  std::string id;
  mlir::memopt::PlanBuffer buffer;
};

/// Reads the CSV, reporting the first error at `name:line:column`.
class CsvReader {
public:
  explicit CsvReader(StringRef name) : name(name) {}

  bool read(StringRef text, std::vector<Row> &rows);

private:
  bool error(size_t line, size_t column, const Twine &message) {
    return fail(name + ":" + Twine(line) + ":" + Twine(column) + ": " +
                message);
  }
  bool readHeader(StringRef line);
  bool readRow(StringRef line, std::vector<Row> &rows);
  bool parseInteger(StringRef field, size_t column, StringRef what,
                    int64_t &value);

  std::string name;
  size_t lineNumber = 0;
  /// For each column of the file: which field it is (0 id, 1 lower, 2 upper,
  /// 3 size).
  llvm::SmallVector<unsigned, 4> columnField;
  llvm::StringMap<size_t> idLines;
};
} // namespace

/// Splits `line` at commas; each field with the 1-based column it starts at,
/// surrounding blanks trimmed.
static llvm::SmallVector<std::pair<StringRef, size_t>>
splitFields(StringRef line) {
  llvm::SmallVector<std::pair<StringRef, size_t>> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    StringRef raw = line.slice(start, comma);
    size_t leading = raw.size() - raw.ltrim(" \t").size();
    fields.emplace_back(raw.trim(" \t"), start + leading + 1);
    if (comma == StringRef::npos)
      break;
    start = comma + 1;
  }
  return fields;
}

static constexpr const char *kFieldNames[] = {"id", "lower", "upper", "size"};

bool CsvReader::readHeader(StringRef line) {
  int columnOf[4] = {-1, -1, -1, -1};
  for (auto [column, field] : llvm::enumerate(splitFields(line))) {
    auto [text, position] = field;
    const auto *known = llvm::find(kFieldNames, text);
    if (known == std::end(kFieldNames)) {
      if (text == "alignment" || text == "gaps")
        return error(lineNumber, position,
                     "unsupported column '" + text +
                         "' (mem-plan reads the columns id, lower, upper, "
                         "size; use --alignment for a global alignment)");
      return error(lineNumber, position,
                   "unknown column '" + text +
                       "' (expected a header of the columns id, lower, "
                       "upper, size in any order)");
    }
    unsigned index = known - std::begin(kFieldNames);
    if (columnOf[index] >= 0)
      return error(lineNumber, position,
                   "duplicate column '" + text + "' in the header");
    columnOf[index] = column;
    columnField.push_back(index);
  }
  for (unsigned index = 0; index < 4; ++index)
    if (columnOf[index] < 0)
      return error(lineNumber, 1,
                   Twine("missing column '") + kFieldNames[index] +
                       "' in the header (expected the columns id, lower, "
                       "upper, size in any order)");
  return true;
}

bool CsvReader::parseInteger(StringRef field, size_t column, StringRef what,
                             int64_t &value) {
  StringRef digits = field;
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+'))
    digits = digits.drop_front();
  bool allDigits = !digits.empty() && llvm::all_of(digits, llvm::isDigit);
  if (!allDigits)
    return error(lineNumber, column,
                 what + " '" + field + "' is not an integer");
  if (field.front() == '+')
    field = field.drop_front();
  if (field.getAsInteger(10, value))
    return error(lineNumber, column,
                 what + " '" + field + "' overflows a 64-bit integer");
  return true;
}

bool CsvReader::readRow(StringRef line, std::vector<Row> &rows) {
  auto fields = splitFields(line);
  if (fields.size() != columnField.size())
    return error(lineNumber, 1,
                 "expected " + Twine(columnField.size()) + " fields, found " +
                     Twine(fields.size()));
  Row row;
  size_t idColumn = 1;
  for (auto [field, index] : llvm::zip_equal(fields, columnField)) {
    auto [text, column] = field;
    switch (index) {
    case 0:
      if (text.empty())
        return error(lineNumber, column, "empty id");
      row.id = text.str();
      idColumn = column;
      break;
    case 1:
      if (!parseInteger(text, column, "lower", row.buffer.lower))
        return false;
      break;
    case 2:
      if (!parseInteger(text, column, "upper", row.buffer.upper))
        return false;
      break;
    case 3:
      if (!parseInteger(text, column, "size", row.buffer.size))
        return false;
      if (row.buffer.size < 0)
        return error(lineNumber, column,
                     "negative size " + Twine(row.buffer.size));
      break;
    }
  }
  if (row.buffer.lower >= row.buffer.upper)
    return error(lineNumber, 1,
                 "buffer '" + row.id + "' has an empty lifetime [" +
                     Twine(row.buffer.lower) + ", " + Twine(row.buffer.upper) +
                     ") (lifetimes are half-open: expected lower < upper)");
  auto [it, inserted] = idLines.try_emplace(row.id, lineNumber);
  if (!inserted)
    return error(lineNumber, idColumn,
                 "duplicate id '" + row.id + "' (first on line " +
                     Twine(it->second) + ")");
  rows.push_back(std::move(row));
  return true;
}

bool CsvReader::read(StringRef text, std::vector<Row> &rows) {
  bool sawHeader = false;
  int64_t total = 0;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    ++lineNumber;
    line = line.rtrim("\r");
    if (line.trim(" \t").empty())
      continue;
    if (!sawHeader) {
      if (!readHeader(line))
        return false;
      sawHeader = true;
      continue;
    }
    if (!readRow(line, rows))
      return false;
    // The planner needs the sum of the aligned sizes in 64 bits.
    int64_t size = rows.back().buffer.size;
    if (size > std::numeric_limits<int64_t>::max() - (alignment - 1) ||
        llvm::AddOverflow(
            total, static_cast<int64_t>(llvm::alignTo(size, alignment)), total))
      return error(lineNumber, 1,
                   "the sum of the buffer sizes overflows a 64-bit integer");
  }
  if (!sawHeader)
    return fail(name + ": empty input (expected a header line "
                       "'id,lower,upper,size' and one buffer per line)");
  return true;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

/// Writes `contents` to `path` atomically: into a temporary file next to it,
/// renamed over it once complete. Non-regular files (/dev/null) are written
/// directly; "-" is stdout.
static bool writeOutput(StringRef path, StringRef contents) {
  if (path == "-") {
    llvm::outs() << contents;
    return true;
  }
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) && llvm::sys::fs::exists(status) &&
      !llvm::sys::fs::is_regular_file(status)) {
    std::error_code ec;
    llvm::ToolOutputFile direct(path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return fail("cannot write '" + path + "': " + ec.message());
    direct.os() << contents;
    direct.keep();
    return true;
  }
  llvm::Expected<llvm::sys::fs::TempFile> temp =
      llvm::sys::fs::TempFile::create(path + "-%%%%%%.tmp");
  if (!temp)
    return fail("cannot write '" + path +
                "': " + llvm::toString(temp.takeError()));
  std::error_code writeError;
  {
    llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
    os << contents;
    os.flush();
    writeError = os.error();
    os.clear_error();
  }
  if (writeError) {
    llvm::consumeError(temp->discard());
    return fail("cannot write '" + path + "': " + writeError.message());
  }
  if (llvm::Error error = temp->keep(path)) {
    std::string message = llvm::toString(std::move(error));
    llvm::consumeError(temp->discard());
    return fail("cannot write '" + path + "': " + message);
  }
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
  if (!(timeLimit > 0))
    return fail("--time-limit must be positive");

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileOrSTDIN(inputFile, /*IsText=*/true);
  if (!file)
    return fail("cannot read '" + inputFile +
                "': " + file.getError().message());
  std::vector<Row> rows;
  CsvReader reader(inputFile == "-" ? "<stdin>" : inputFile.getValue());
  if (!reader.read((*file)->getBuffer(), rows))
    return false;

  std::vector<PlanBuffer> buffers;
  buffers.reserve(rows.size());
  for (const Row &row : rows)
    buffers.push_back(row.buffer);

  MemoryPlanOptions options;
  options.alignment = alignment;
  options.searchBudget = budget;
  options.exactBudget = exactBudget;
  options.timeLimitSeconds = timeLimit;
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
    greedy = planGreedyBySize(buffers, alignment);
    greedyMs = millisecondsSince(start);
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
      "  cat buffers.csv | mem-plan - --alignment=256\n");
  return runMemPlan() ? 0 : 1;
}
