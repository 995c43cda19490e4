//===- AtomicFile.h - Output files that are complete or absent --*- C++ -*-===//
//
// Every memopt tool writes its output files through this class: the bytes go
// to a temporary file in the destination's directory, which is renamed over
// the destination only once everything was written. A failing run, SIGTERM
// or SIGINT leaves an existing destination as it was (the temporary file is
// removed); SIGKILL can at worst leave the temporary file behind, never a
// truncated destination. Standard output ("-") and files that are not
// regular files (/dev/null, a pipe, a terminal) are written directly, since
// renaming over them would replace the device. A symbolic link is followed:
// the temporary file is written beside the link's target and renamed over
// the target, so the link stays and names the new contents.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_SUPPORT_ATOMICFILE_H
#define MEMOPT_SUPPORT_ATOMICFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::memopt {

class AtomicOutputFile {
public:
  AtomicOutputFile() = default;
  AtomicOutputFile(const AtomicOutputFile &) = delete;
  AtomicOutputFile &operator=(const AtomicOutputFile &) = delete;
  /// Removes the temporary file unless `commit` succeeded.
  ~AtomicOutputFile();

  /// Prepares to write `path`. The error message names the path.
  llvm::Error open(llvm::StringRef path);

  /// The stream to write to (valid after a successful `open`).
  llvm::raw_ostream &os();

  /// The file being written: the temporary file's name when the output is
  /// written atomically, else the destination itself ("-" for stdout).
  /// Tools that open their output by name (MlirOptMain) write here.
  llvm::StringRef getWritePath() const;

  /// Flushes and moves the temporary file over the destination. On an error
  /// the destination is untouched and the temporary file removed.
  llvm::Error commit();

  /// Abandons the output: the temporary file is removed, the destination
  /// untouched.
  void discard();

private:
  llvm::Error failure(const llvm::Twine &reason) const;

  std::string path;
  /// `path` with its symbolic links followed: the file that is replaced.
  std::string target;
  std::optional<llvm::sys::fs::TempFile> temp;
  std::unique_ptr<llvm::raw_fd_ostream> stream;
};

/// Writes `path` atomically with `write`; "-" writes to stdout.
llvm::Error
writeFileAtomically(llvm::StringRef path,
                    llvm::function_ref<void(llvm::raw_ostream &)> write);

} // namespace mlir::memopt

#endif // MEMOPT_SUPPORT_ATOMICFILE_H
