//===- CsvReader.cpp - mem-plan's reader of buffer CSVs -------------------===//
//
// Reads minimalloc's benchmark CSV, reporting the first error at
// `name:line:column`.
//
//===----------------------------------------------------------------------===//

#include "CsvReader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/WithColor.h"

#include <limits>

using namespace mlir::memopt::plan;
using llvm::StringRef;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// CSV input
//===----------------------------------------------------------------------===//

namespace {
/// Reads the CSV, reporting the first error at `name:line:column`.
class CsvReader {
public:
  CsvReader(StringRef name, int64_t alignment, llvm::raw_ostream &errors)
      : name(name), alignment(alignment), errors(errors) {}

  bool read(StringRef text, std::vector<Row> &rows);

private:
  /// Prints `mem-plan: error: message`; returns false.
  bool fail(const Twine &message) {
    llvm::WithColor::error(errors, "mem-plan") << message << "\n";
    return false;
  }
  bool error(size_t line, size_t column, const Twine &message) {
    return fail(name + ":" + Twine(line) + ":" + Twine(column) + ": " +
                message);
  }
  bool readHeader(StringRef line);
  bool readRow(StringRef line, std::vector<Row> &rows);
  bool parseInteger(StringRef field, size_t column, StringRef what,
                    int64_t &value);

  std::string name;
  int64_t alignment;
  llvm::raw_ostream &errors;
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
  // A UTF-8 byte order mark (spreadsheets write one) is not part of the
  // header.
  text.consume_front("\xEF\xBB\xBF");
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

bool mlir::memopt::plan::readBufferCsv(StringRef name, StringRef text,
                                       int64_t alignment,
                                       std::vector<Row> &rows,
                                       llvm::raw_ostream &errors) {
  return CsvReader(name, alignment, errors).read(text, rows);
}
