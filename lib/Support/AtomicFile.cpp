//===- AtomicFile.cpp - Output files that are complete or absent ----------===//

#include "memopt/Support/AtomicFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

#include <climits>
#include <unistd.h>

using namespace mlir::memopt;

/// The file `path` names once its symbolic links are followed: the
/// temporary is written beside that file and renamed over it, so that a link
/// keeps pointing at the new bytes (renaming over the link itself would
/// replace the link and leave its target with the old ones). A dangling link
/// resolves to the file it would create. Fails on a loop of links.
static llvm::Expected<std::string> resolveSymlinks(llvm::StringRef path) {
  std::string current = path.str();
  for (int hop = 0; hop < 40; ++hop) {
    bool isLink = false;
    if (llvm::sys::fs::is_symlink_file(current, isLink) || !isLink)
      return current;
    char target[PATH_MAX];
    ssize_t size = ::readlink(current.c_str(), target, sizeof(target));
    if (size < 0)
      return current;
    llvm::StringRef link(target, size);
    if (llvm::sys::path::is_absolute(link)) {
      current = link.str();
      continue;
    }
    llvm::SmallString<256> joined(llvm::sys::path::parent_path(current));
    llvm::sys::path::append(joined, link);
    current = joined.str().str();
  }
  return llvm::createStringError(
      std::make_error_code(std::errc::too_many_symbolic_link_levels),
      "too many levels of symbolic links");
}

AtomicOutputFile::~AtomicOutputFile() { discard(); }

llvm::Error AtomicOutputFile::failure(const llvm::Twine &reason) const {
  return llvm::createStringError(
      std::make_error_code(std::errc::io_error),
      ("cannot write '" + path + "': " + reason).str());
}

llvm::Error AtomicOutputFile::open(llvm::StringRef destination) {
  discard();
  path = destination.str();
  std::error_code error;
  if (path == "-") {
    stream = std::make_unique<llvm::raw_fd_ostream>(path, error);
    return error ? failure(error.message()) : llvm::Error::success();
  }
  // A device, pipe or link target that is not a regular file is written in
  // place: rename would replace it (as root, /dev/null itself).
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) && llvm::sys::fs::exists(status) &&
      !llvm::sys::fs::is_regular_file(status)) {
    stream = std::make_unique<llvm::raw_fd_ostream>(path, error);
    return error ? failure(error.message()) : llvm::Error::success();
  }
  if (llvm::sys::fs::is_directory(path))
    return failure(std::make_error_code(std::errc::is_a_directory).message());
  llvm::Expected<std::string> resolved = resolveSymlinks(path);
  if (!resolved)
    return failure(llvm::toString(resolved.takeError()));
  target = std::move(*resolved);
  llvm::SmallString<256> model(llvm::sys::path::parent_path(target));
  llvm::sys::path::append(model, "." + llvm::sys::path::filename(target) +
                                     ".tmp-%%%%%%%%");
  // TempFile registers the temporary for removal on SIGINT/SIGTERM.
  llvm::Expected<llvm::sys::fs::TempFile> file =
      llvm::sys::fs::TempFile::create(model);
  if (!file) {
    std::string reason = llvm::toString(file.takeError());
    return failure(reason);
  }
  temp.emplace(std::move(*file));
  stream = std::make_unique<llvm::raw_fd_ostream>(temp->FD,
                                                  /*shouldClose=*/false);
  return llvm::Error::success();
}

llvm::raw_ostream &AtomicOutputFile::os() {
  assert(stream && "open the file first");
  return *stream;
}

llvm::StringRef AtomicOutputFile::getWritePath() const {
  return temp ? llvm::StringRef(temp->TmpName) : llvm::StringRef(path);
}

llvm::Error AtomicOutputFile::commit() {
  if (!stream)
    return failure("the file was not opened");
  stream->flush();
  if (stream->has_error()) {
    std::error_code error = stream->error();
    // A stream destroyed with a pending error aborts the process.
    stream->clear_error();
    discard();
    return failure(error.message());
  }
  stream.reset();
  if (!temp)
    return llvm::Error::success();
  if (llvm::Error error = temp->keep(target)) {
    std::string reason = llvm::toString(std::move(error));
    discard();
    return failure(reason);
  }
  temp.reset();
  return llvm::Error::success();
}

void AtomicOutputFile::discard() {
  if (stream) {
    stream->clear_error();
    stream.reset();
  }
  if (temp) {
    // The temporary may already be gone (a tool that removed its output on
    // failure); nothing is left to clean up then.
    llvm::consumeError(temp->discard());
    temp.reset();
  }
}

llvm::Error mlir::memopt::writeFileAtomically(
    llvm::StringRef path, llvm::function_ref<void(llvm::raw_ostream &)> write) {
  AtomicOutputFile file;
  if (llvm::Error error = file.open(path))
    return error;
  write(file.os());
  return file.commit();
}
