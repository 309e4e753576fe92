#include "controllers/images.h"

#include <cstdio>

#include "common/fnv.h"

namespace kmock::controllers {

namespace {

// The basis the fake image digests and sizes have always been derived
// from (not FNV's standard one): changing it would change every image ID.
constexpr uint64_t kImageHashBasis = 1469598103934665603ULL;

uint64_t Fnv1a(const std::string& s, uint64_t seed) {
  return Fnv1a64(s, kImageHashBasis ^ seed);
}

// Splits "name[:tag][@digest]" at the tag colon (a colon after the last '/').
void SplitTag(const std::string& ref, std::string* name, std::string* tag,
              std::string* digest) {
  std::string rest = ref;
  auto at = rest.find('@');
  if (at != std::string::npos) {
    *digest = rest.substr(at + 1);
    rest = rest.substr(0, at);
  } else {
    digest->clear();
  }
  auto slash = rest.rfind('/');
  auto colon = rest.rfind(':');
  if (colon != std::string::npos &&
      (slash == std::string::npos || colon > slash)) {
    *name = rest.substr(0, colon);
    *tag = rest.substr(colon + 1);
  } else {
    *name = rest;
    tag->clear();
  }
}

}  // namespace

std::string NormalizeImage(const std::string& image) {
  std::string name, tag, digest;
  SplitTag(image, &name, &tag, &digest);
  auto slash = name.find('/');
  std::string first = slash == std::string::npos ? "" : name.substr(0, slash);
  bool has_registry = !first.empty() && (first.find('.') != std::string::npos ||
                                         first.find(':') != std::string::npos ||
                                         first == "localhost");
  if (!has_registry) {
    name = (slash == std::string::npos ? "docker.io/library/" : "docker.io/") +
           name;
  }
  if (!digest.empty())
    return name + (tag.empty() ? "" : ":" + tag) + "@" + digest;
  return name + ":" + (tag.empty() ? "latest" : tag);
}

std::string ImageRepository(const std::string& normalized) {
  std::string name, tag, digest;
  SplitTag(normalized, &name, &tag, &digest);
  return name;
}

std::string ImageId(const std::string& normalized) {
  std::string name, tag, digest;
  SplitTag(normalized, &name, &tag, &digest);
  if (!digest.empty()) return name + "@" + digest;
  std::string hex;
  for (uint64_t i = 0; i < 4; ++i) {
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx",
                  static_cast<unsigned long long>(Fnv1a(normalized, i * 7919)));
    hex += buf;
  }
  return name + "@sha256:" + hex;
}

int64_t ImageSizeBytes(const std::string& normalized) {
  std::string repo = ImageRepository(normalized);
  static const struct {
    const char* repo;
    int64_t size;
  } kKnown[] = {
      {"docker.io/library/nginx", 72099410},
      {"docker.io/library/busybox", 2166802},
      {"docker.io/library/redis", 45093150},
      {"docker.io/library/alpine", 3653068},
      {"docker.io/library/httpd", 58159370},
      {"registry.k8s.io/pause", 320368},
  };
  for (const auto& k : kKnown) {
    if (repo == k.repo) return k.size;
  }
  // 5 MB .. 120 MB, stable per name.
  return 5000000 + static_cast<int64_t>(Fnv1a(normalized, 17) % 115000000);
}

std::string DefaultPullPolicy(const std::string& image) {
  std::string name, tag, digest;
  SplitTag(image, &name, &tag, &digest);
  if (!digest.empty()) return "IfNotPresent";
  return (tag.empty() || tag == "latest") ? "Always" : "IfNotPresent";
}

}  // namespace kmock::controllers
