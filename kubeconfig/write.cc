// MergeKubeconfig and WriteStandaloneKubeconfig: the file side.
#include "common/file_io.h"
#include "kubeconfig/kubeconfig.h"

namespace kmock::kubeconfig {

namespace {

constexpr mode_t kFileMode = 0600;
constexpr mode_t kDirMode = 0700;

Status WriteLocked(const std::string& target, const std::string& text) {
  KMOCK_ASSIGN_OR_RETURN(FileLock lock, FileLock::Acquire(target));
  return WriteFileAtomically(target, text, kFileMode);
}

}  // namespace

Status MergeKubeconfig(const std::string& path, const Entry& entry) {
  if (path.empty()) return BadRequestError("no kubeconfig path");
  std::string target = ResolveSymlinks(path);
  KMOCK_RETURN_IF_ERROR(MakeDirs(ParentDir(target), kDirMode));
  KMOCK_ASSIGN_OR_RETURN(FileLock lock, FileLock::Acquire(target));
  std::string existing;
  Result<std::string> read = ReadWholeFile(target);
  if (read.ok()) {
    existing = std::move(read).value();
  } else if (read.status().code() != StatusCode::kNotFound) {
    return read.status();
  }
  Result<std::string> merged = MergeKubeconfigText(existing, entry);
  if (!merged.ok()) {
    Status s = merged.status();
    return s.set_message("kubeconfig " + target +
                         " left unchanged: " + s.message());
  }
  return WriteFileAtomically(target, *merged, kFileMode);
}

Status WriteStandaloneKubeconfig(const std::string& path, const Entry& entry) {
  if (path.empty()) return BadRequestError("no kubeconfig path");
  KMOCK_ASSIGN_OR_RETURN(std::string text, StandaloneKubeconfigText(entry));
  std::string target = ResolveSymlinks(path);
  KMOCK_RETURN_IF_ERROR(MakeDirs(ParentDir(target), kDirMode));
  return WriteLocked(target, text);
}

}  // namespace kmock::kubeconfig
