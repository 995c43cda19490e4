//===- AtomicFileTest.cpp - output files that are complete or absent ------===//

#include "memopt/Support/AtomicFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace mlir::memopt;

namespace {

class AtomicFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("atomic-file", dir));
    llvm::sys::path::append(path, dir, "out.txt");
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::string read() {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().str() : "<missing>";
  }
  void write(llvm::StringRef text) {
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    ASSERT_FALSE(error);
    os << text;
  }
  /// Files in the directory: the destination and any temporary left over.
  int countFiles() {
    int count = 0;
    std::error_code error;
    for (llvm::sys::fs::directory_iterator it(dir, error), end;
         !error && it != end; it.increment(error))
      ++count;
    return count;
  }

  llvm::SmallString<128> dir, path;
};

TEST_F(AtomicFileTest, CommitReplacesTheFile) {
  write("old");
  AtomicOutputFile file;
  ASSERT_FALSE(llvm::errorToBool(file.open(path)));
  file.os() << "new";
  // Nothing changes before the commit.
  EXPECT_EQ(read(), "old");
  EXPECT_NE(file.getWritePath(), llvm::StringRef(path));
  ASSERT_FALSE(llvm::errorToBool(file.commit()));
  EXPECT_EQ(read(), "new");
  EXPECT_EQ(countFiles(), 1);
}

TEST_F(AtomicFileTest, DiscardKeepsTheOldFile) {
  write("old");
  {
    AtomicOutputFile file;
    ASSERT_FALSE(llvm::errorToBool(file.open(path)));
    file.os() << "half of a new fi";
    // Destroyed without a commit: a failing run.
  }
  EXPECT_EQ(read(), "old");
  EXPECT_EQ(countFiles(), 1);
}

TEST_F(AtomicFileTest, MissingDirectoryNamesThePath) {
  llvm::SmallString<128> missing(dir);
  llvm::sys::path::append(missing, "no", "such", "out.txt");
  AtomicOutputFile file;
  llvm::Error error = file.open(missing);
  ASSERT_TRUE(static_cast<bool>(error));
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find(missing.str().str()), std::string::npos) << message;
}

TEST_F(AtomicFileTest, DirectoryIsRefused) {
  AtomicOutputFile file;
  llvm::Error error = file.open(dir);
  ASSERT_TRUE(static_cast<bool>(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("Is a directory"),
            std::string::npos);
}

TEST_F(AtomicFileTest, DevNullIsWrittenInPlace) {
  AtomicOutputFile file;
  ASSERT_FALSE(llvm::errorToBool(file.open("/dev/null")));
  EXPECT_EQ(file.getWritePath(), "/dev/null");
  file.os() << "discarded";
  ASSERT_FALSE(llvm::errorToBool(file.commit()));
  llvm::sys::fs::file_status status;
  ASSERT_FALSE(llvm::sys::fs::status("/dev/null", status));
  EXPECT_EQ(status.type(), llvm::sys::fs::file_type::character_file);
}

TEST_F(AtomicFileTest, WriteFileAtomically) {
  write("old");
  ASSERT_FALSE(llvm::errorToBool(
      writeFileAtomically(path, [](llvm::raw_ostream &os) { os << "whole"; })));
  EXPECT_EQ(read(), "whole");
}

} // namespace
