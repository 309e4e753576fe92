// The simulated registry and what its images do: the image profiles of
// sim/images.yaml (compiled in), the rule that decides whether a pull
// succeeds, and the programs each image brings (default command, what
// they print at start, the ports they listen on, their files).
//
// Thread safety: immutable after construction; Builtin() is shared.
#ifndef KMOCK_SIM_IMAGE_CATALOG_H_
#define KMOCK_SIM_IMAGE_CATALOG_H_

#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"

namespace kmock::sim {

struct ProgramProfile {
  std::string stdout_text;  // printed at start ({time:FMT} etc. expanded)
  std::string stderr_text;
  std::vector<int> ports;
  std::optional<int> exit_code;  // absent: runs until stopped
  bool exec = false;             // then runs its arguments
  std::vector<std::string> require_env;
  std::string missing_env;  // printed (stderr) when none of require_env
  bool pi = false;
  std::string interpreter;  // "python", "node"
  bool agnhost = false;
  std::string protocol;  // what its ports speak (sim/servers.h)
};

struct ImageProfile {
  std::string repository;
  std::vector<std::string> tags;         // plain, or "~REGEX"
  std::vector<std::regex> tag_patterns;  // the "~REGEX" ones, compiled
  std::string version;
  std::vector<std::string> entrypoint, cmd;
  std::string shell;  // busybox, dash, bash, or empty (no shell)
  int memory_mib = 0;
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> files;
  std::map<std::string, ProgramProfile> programs;

  bool HasTag(const std::string& tag) const;
};

enum class PullResult {
  kOk,
  kInvalidName,   // InvalidImageName
  kNotFound,      // the tag is not there
  kAccessDenied,  // the repository is not there
};

struct PullCheck {
  PullResult result = PullResult::kOk;
  // The runtime's error (for kNotFound/kAccessDenied: the CRI error
  // message; for kInvalidName: the kubelet's parse error).
  std::string message;
};

class ImageCatalog {
 public:
  static const ImageCatalog& Builtin();
  static Result<ImageCatalog> Parse(std::string_view yaml);

  // The profile of a repository ("docker.io/library/nginx"), or null.
  const ImageProfile* Find(const std::string& repository) const;
  // Whether pulling `image` (as written in the pod) succeeds. Answers are
  // remembered: a cluster pulls the same few images again and again.
  PullCheck CheckPull(const std::string& image) const;

  ImageCatalog() = default;
  ImageCatalog(ImageCatalog&& other) noexcept
      : images_(std::move(other.images_)),
        official_(std::move(other.official_)) {}

 private:
  PullCheck Decide(const std::string& image) const;

  mutable std::mutex cache_mu_;
  mutable std::unordered_map<std::string, PullCheck> cache_;
  std::vector<ImageProfile> images_;
  std::set<std::string> official_;
};

}  // namespace kmock::sim

#endif  // KMOCK_SIM_IMAGE_CATALOG_H_
