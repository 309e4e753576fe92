// A container's files, in memory: what the image holds, what the kubelet
// writes (/etc/hosts, /etc/resolv.conf, /etc/hostname), the volumes
// mounted into it, and what its programs write. Paths are absolute after
// Normalize; directories exist implicitly above every file and can be
// made empty with MakeDir.
//
// A directory can be another Filesystem mounted there (Mount): a pod's
// emptyDir volume is one Filesystem mounted into each of its containers.
//
// Thread safety: every method may be called from any thread (one mutex per
// Filesystem; a mounted one is locked on its own).
#ifndef KMOCK_SIM_FILESYSTEM_H_
#define KMOCK_SIM_FILESYSTEM_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kmock::sim {

class Filesystem {
 public:
  // "a/../b" relative to cwd -> "/b"; "" -> cwd.
  static std::string Normalize(const std::string& cwd, const std::string& path);

  bool IsFile(const std::string& path) const;
  bool IsDir(const std::string& path) const;
  bool Exists(const std::string& path) const {
    return IsFile(path) || IsDir(path);
  }
  std::optional<std::string> Read(const std::string& path) const;
  // False when path is a directory or under a read-only mount.
  bool Write(const std::string& path, std::string data, bool append = false);
  bool MakeDir(const std::string& path);
  bool Remove(const std::string& path, bool recursive);
  // The names directly under a directory, sorted.
  std::vector<std::string> List(const std::string& dir) const;
  // Marks everything under path read-only (a read-only volume mount).
  void SetReadOnly(const std::string& path);
  size_t Size(const std::string& path) const;
  // Serves everything under `path` from `fs`: `path` is fs's `root` (a
  // hostPath volume is the node's directory). A read-only mark of this
  // filesystem covers what a mount under it serves.
  void Mount(const std::string& path, std::shared_ptr<Filesystem> fs,
             const std::string& root = "/");

  // Files written on first use of the filesystem, not before: most
  // containers never look at their files (a server started from its
  // image), so what a kubelet would write into them (volume keys read from
  // the API, /etc/hosts) costs nothing until someone does. The loader must
  // not use this Filesystem.
  // (path, content); a path ending in '/' is a directory to make.
  using Files = std::vector<std::pair<std::string, std::string>>;
  void SetLoader(std::function<Files()> loader);
  // Runs the loader again in place of what it wrote before (the kubelet
  // writing a volume's keys anew), if the files were ever loaded; else
  // leaves the load to the first look. False when nothing was loaded.
  bool Reload();

 private:
  // The filesystem that holds path and the path inside it (this one
  // unless a mount covers it).
  std::pair<Filesystem*, std::string> Resolve(const std::string& path) const;
  bool ReadOnly(const std::string& path) const;  // REQUIRES: mu_ held
  bool IsDirLocked(const std::string& path) const;
  std::vector<std::string> ListLocked(const std::string& dir) const;

  void Load() const;
  // Writes the loader's files; replace: in place of all this one held.
  void Fill(bool replace) const;  // REQUIRES: load_mu_ held

  mutable std::mutex load_mu_;  // taken before mu_, never after
  mutable std::atomic<bool> loaded_{false};
  mutable std::mutex mu_;
  std::function<Files()> loader_;
  struct MountPoint {
    std::string path;
    std::shared_ptr<Filesystem> fs;
    std::string root;
  };
  std::vector<MountPoint> mounts_;
  std::map<std::string, std::string> files_;
  std::map<std::string, bool> dirs_;  // explicitly made directories
  std::vector<std::string> read_only_;
};

}  // namespace kmock::sim

#endif  // KMOCK_SIM_FILESYSTEM_H_
