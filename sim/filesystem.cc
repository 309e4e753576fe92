#include "sim/filesystem.h"

#include <algorithm>

namespace kmock::sim {
namespace {

bool Under(const std::string& path, const std::string& dir) {
  if (dir == "/") return path.size() > 1;
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

}  // namespace

std::string Filesystem::Normalize(const std::string& cwd,
                                  const std::string& path) {
  std::string full = path.empty() || path[0] != '/' ? cwd + "/" + path : path;
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= full.size()) {
    size_t j = full.find('/', i);
    if (j == std::string::npos) j = full.size();
    std::string part = full.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

void Filesystem::SetLoader(std::function<Files()> loader) {
  std::lock_guard<std::mutex> l(mu_);
  loader_ = std::move(loader);
}

void Filesystem::Load() const {
  if (loaded_.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> g(load_mu_);
  if (loaded_.load(std::memory_order_relaxed)) return;
  Fill(/*replace=*/false);
  loaded_.store(true, std::memory_order_release);
}

bool Filesystem::Reload() {
  std::lock_guard<std::mutex> g(load_mu_);
  if (!loaded_.load(std::memory_order_relaxed)) return false;
  Fill(/*replace=*/true);
  return true;
}

void Filesystem::Fill(bool replace) const {
  std::function<Files()> loader;
  {
    std::lock_guard<std::mutex> l(mu_);
    loader = loader_;
  }
  if (!loader) return;
  Files files = loader();
  // Written past the read-only marks: the kubelet writes volume files.
  // What is this filesystem's own is put in place in one step, so a reader
  // sees the old files or the new, never a directory being rewritten.
  std::map<std::string, std::string> own;
  std::map<std::string, bool> own_dirs;
  for (auto& [path, content] : files) {
    if (!path.empty() && path.back() == '/') {
      own_dirs[path.substr(0, path.size() - 1)] = true;
      continue;
    }
    auto [fs, inner] = Resolve(path);
    if (fs != this) {
      fs->Write(inner, std::move(content));
      continue;
    }
    own[path] = std::move(content);
  }
  auto* self = const_cast<Filesystem*>(this);
  std::lock_guard<std::mutex> l(mu_);
  if (replace) {
    self->files_ = std::move(own);
    self->dirs_ = std::move(own_dirs);
    for (const auto& m : mounts_) self->dirs_[m.path] = true;
    return;
  }
  for (auto& [path, content] : own) self->files_[path] = std::move(content);
  for (const auto& [path, made] : own_dirs) self->dirs_[path] = made;
}

void Filesystem::Mount(const std::string& path, std::shared_ptr<Filesystem> fs,
                       const std::string& root) {
  std::lock_guard<std::mutex> l(mu_);
  dirs_[path] = true;
  mounts_.push_back(MountPoint{path, std::move(fs), root});
}

void Filesystem::SetReadOnly(const std::string& path) {
  std::lock_guard<std::mutex> l(mu_);
  read_only_.push_back(path);
}

std::pair<Filesystem*, std::string> Filesystem::Resolve(
    const std::string& path) const {
  std::lock_guard<std::mutex> l(mu_);  // no Load(): the loader calls it
  const MountPoint* best = nullptr;
  for (const auto& m : mounts_) {
    if ((path == m.path || Under(path, m.path)) &&
        (best == nullptr || m.path.size() > best->path.size()))
      best = &m;
  }
  if (best == nullptr) return {const_cast<Filesystem*>(this), path};
  std::string inner = path.substr(best->path.size());
  if (best->root != "/") inner = best->root + inner;
  return {best->fs.get(), inner.empty() ? "/" : inner};
}

#define KMOCK_FS_DELEGATE(call)      \
  Load();                            \
  auto [fs_, p_] = Resolve(path);    \
  if (fs_ != this) return fs_->call; \
  std::lock_guard<std::mutex> lock_(mu_)

// A change: refused under a read-only mark of this filesystem, even where
// a mount serves the path.
#define KMOCK_FS_CHANGE(call)             \
  Load();                                 \
  {                                       \
    std::lock_guard<std::mutex> ro_(mu_); \
    if (ReadOnly(path)) return false;     \
  }                                       \
  KMOCK_FS_DELEGATE(call)

bool Filesystem::IsFile(const std::string& path) const {
  KMOCK_FS_DELEGATE(IsFile(p_));
  return files_.count(path) > 0;
}

bool Filesystem::IsDir(const std::string& path) const {
  KMOCK_FS_DELEGATE(IsDir(p_));
  return IsDirLocked(path);
}

bool Filesystem::IsDirLocked(const std::string& path) const {
  if (path == "/" || dirs_.count(path)) return true;
  auto it = files_.lower_bound(path + "/");
  if (it != files_.end() && Under(it->first, path)) return true;
  auto d = dirs_.lower_bound(path + "/");
  return d != dirs_.end() && Under(d->first, path);
}

std::optional<std::string> Filesystem::Read(const std::string& path) const {
  KMOCK_FS_DELEGATE(Read(p_));
  auto it = files_.find(path);
  if (it == files_.end()) return std::nullopt;
  return it->second;
}

bool Filesystem::ReadOnly(const std::string& path) const {
  for (const auto& ro : read_only_) {
    if (path == ro || Under(path, ro)) return true;
  }
  return false;
}

bool Filesystem::Write(const std::string& path, std::string data, bool append) {
  KMOCK_FS_CHANGE(Write(p_, std::move(data), append));
  if (path == "/" || IsDirLocked(path) || ReadOnly(path)) return false;
  if (append) {
    files_[path] += data;
  } else {
    files_[path] = std::move(data);
  }
  return true;
}

bool Filesystem::MakeDir(const std::string& path) {
  KMOCK_FS_CHANGE(MakeDir(p_));
  if (path == "/") return true;
  if (files_.count(path) || ReadOnly(path)) return false;
  dirs_[path] = true;
  return true;
}

bool Filesystem::Remove(const std::string& path, bool recursive) {
  KMOCK_FS_CHANGE(Remove(p_, recursive));
  if (ReadOnly(path)) return false;
  if (files_.erase(path)) return true;
  if (!IsDirLocked(path) || path == "/") return false;
  if (!ListLocked(path).empty() && !recursive) return false;
  for (auto it = files_.begin(); it != files_.end();) {
    it = Under(it->first, path) ? files_.erase(it) : std::next(it);
  }
  for (auto it = dirs_.begin(); it != dirs_.end();) {
    it = it->first == path || Under(it->first, path) ? dirs_.erase(it)
                                                     : std::next(it);
  }
  return true;
}

std::vector<std::string> Filesystem::List(const std::string& path) const {
  KMOCK_FS_DELEGATE(List(p_));
  return ListLocked(path);
}

std::vector<std::string> Filesystem::ListLocked(const std::string& dir) const {
  std::string prefix = dir == "/" ? "/" : dir + "/";
  std::vector<std::string> out;
  auto add = [&](const std::string& path) {
    if (path.compare(0, prefix.size(), prefix) != 0 || path == prefix) return;
    std::string rest = path.substr(prefix.size());
    std::string name = rest.substr(0, rest.find('/'));
    if (!name.empty() && (out.empty() || out.back() != name)) {
      out.push_back(name);
    }
  };
  for (auto it = files_.lower_bound(prefix);
       it != files_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it)
    add(it->first);
  for (auto it = dirs_.lower_bound(prefix);
       it != dirs_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it)
    add(it->first);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

size_t Filesystem::Size(const std::string& path) const {
  KMOCK_FS_DELEGATE(Size(p_));
  auto it = files_.find(path);
  return it == files_.end() ? 0 : it->second.size();
}

#undef KMOCK_FS_CHANGE
#undef KMOCK_FS_DELEGATE

}  // namespace kmock::sim
