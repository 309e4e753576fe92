// File plumbing for the files kubemock writes (PKI, kubeconfig): atomic
// replacement at a given mode (a reader sees the old or the new contents,
// never a torn file), directory creation, kubectl's "<file>.lock" lock
// file, symlink resolution (so a symlinked ~/.kube/config stays a symlink).
//
// Thread safety: free functions; FileLock is a per-holder RAII object.
#ifndef KMOCK_COMMON_FILE_IO_H_
#define KMOCK_COMMON_FILE_IO_H_

#include <sys/types.h>

#include <string>

#include "common/status.h"

namespace kmock {

// Writes via a temporary file in the same directory, fsync, rename.
Status WriteFileAtomically(const std::string& path, const std::string& data,
                           mode_t mode);
// The file's contents; kNotFound when it does not exist.
Result<std::string> ReadWholeFile(const std::string& path);
// mkdir -p; only directories it creates get `mode`.
Status MakeDirs(const std::string& dir, mode_t mode);
// The file a path finally names, following symlinks (also dangling ones).
std::string ResolveSymlinks(const std::string& path);
std::string ParentDir(const std::string& path);

// Holds "<path>.lock" (created exclusively) for its lifetime.
class FileLock {
 public:
  static Result<FileLock> Acquire(const std::string& path);
  FileLock(FileLock&& other) noexcept
      : lock_path_(std::move(other.lock_path_)) {
    other.lock_path_.clear();
  }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(std::string lock_path) : lock_path_(std::move(lock_path)) {}
  std::string lock_path_;
};

}  // namespace kmock

#endif  // KMOCK_COMMON_FILE_IO_H_
