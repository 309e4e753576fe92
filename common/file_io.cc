#include "common/file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace kmock {

namespace {

Status ErrnoError(const std::string& what, const std::string& path) {
  return InternalError(what + " " + path + ": " + strerror(errno));
}

}  // namespace

std::string ParentDir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Status WriteFileAtomically(const std::string& path, const std::string& data,
                           mode_t mode) {
  std::string tmp = path + ".tmp.XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) return ErrnoError("creating a temporary file for", path);
  auto fail = [&](const char* what) {
    Status s = ErrnoError(what, tmp);
    close(fd);
    unlink(tmp.c_str());
    return s;
  };
  if (fchmod(fd, mode) != 0) return fail("chmod");
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("writing");
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) return fail("fsync");
  if (close(fd) != 0) {
    Status s = ErrnoError("closing", tmp);
    unlink(tmp.c_str());
    return s;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = ErrnoError("renaming over", path);
    unlink(tmp.c_str());
    return s;
  }
  int dfd = open(ParentDir(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    fsync(dfd);  // best effort
    close(dfd);
  }
  return Status::Ok();
}

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (access(path.c_str(), F_OK) != 0 && errno == ENOENT) {
      return NotFoundError(path + " does not exist");
    }
    return ErrnoError("opening", path);
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return ErrnoError("reading", path);
  return ss.str();
}

Status MakeDirs(const std::string& dir, mode_t mode) {
  if (dir.empty()) return Status::Ok();
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status::Ok();
    return InternalError(dir + " exists and is not a directory");
  }
  std::string parent = ParentDir(dir);
  if (parent != dir) KMOCK_RETURN_IF_ERROR(MakeDirs(parent, mode));
  if (mkdir(dir.c_str(), mode) != 0 && errno != EEXIST) {
    return ErrnoError("creating directory", dir);
  }
  return Status::Ok();
}

std::string ResolveSymlinks(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    char buf[PATH_MAX];
    ssize_t n = readlink(current.c_str(), buf, sizeof(buf) - 1);
    if (n < 0) return current;  // not a symlink (or gone): write here
    std::string target(buf, static_cast<size_t>(n));
    current =
        target.front() == '/' ? target : ParentDir(current) + "/" + target;
  }
  return current;
}

Result<FileLock> FileLock::Acquire(const std::string& path) {
  std::string lock_path = path + ".lock";
  int fd = open(lock_path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    if (errno == EEXIST) {
      return Status(
          StatusCode::kConflict,
          path + " is locked by " + lock_path +
              "; remove it if no other kubectl or kubemock is writing");
    }
    return ErrnoError("creating lock file", lock_path);
  }
  close(fd);
  return FileLock(lock_path);
}

FileLock::~FileLock() {
  if (!lock_path_.empty()) unlink(lock_path_.c_str());
}

}  // namespace kmock
