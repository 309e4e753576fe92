#include "sim/image_names.h"

#include <cstdio>
#include <regex>

#include "common/fnv.h"

namespace kmock::sim {

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

ImageReference SplitReference(const std::string& normalized) {
  ImageReference r;
  SplitTag(normalized, &r.repository, &r.tag, &r.digest);
  return r;
}

std::string InvalidReferenceReason(const std::string& image) {
  std::string prefix = "couldn't parse image name \"" + image + "\": ";
  static const std::regex kComponent("[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*");
  static const std::regex kDomain(
      "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
      "(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)"
      "?");
  static const std::regex kTag("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
  static const std::regex kDigest(
      "[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-fA-F0-9]{32,}");
  if (image.empty()) return prefix + "invalid reference format";
  std::string name, tag, digest;
  SplitTag(image, &name, &tag, &digest);
  if ((image.find('@') != std::string::npos &&
       !std::regex_match(digest, kDigest)) ||
      (image.find('@') == std::string::npos &&
       image.find(
           ':', image.rfind('/') == std::string::npos ? 0 : image.rfind('/')) !=
           std::string::npos &&
       !std::regex_match(tag, kTag)))
    return prefix + "invalid reference format";
  // The registry is the first part when it looks like a host.
  size_t slash = name.find('/');
  std::string first = slash == std::string::npos ? "" : name.substr(0, slash);
  bool has_domain = !first.empty() && (first.find('.') != std::string::npos ||
                                       first.find(':') != std::string::npos ||
                                       first == "localhost");
  std::string domain = has_domain ? first : "docker.io";
  std::string path =
      has_domain ? name.substr(slash + 1)
                 : (slash == std::string::npos ? "library/" + name : name);
  if (!std::regex_match(domain, kDomain))
    return prefix + "invalid reference format";
  bool lower_ok = true, valid = true;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string comp = path.substr(i, j - i);
    if (!std::regex_match(comp, kComponent)) {
      std::string lowered = comp;
      for (char& ch : lowered)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (std::regex_match(lowered, kComponent)) {
        lower_ok = false;
      } else {
        valid = false;
      }
    }
    i = j + 1;
  }
  if (!valid) return prefix + "invalid reference format";
  if (!lower_ok)
    return prefix + "invalid reference format: repository name (" + path +
           ") must be lowercase";
  return "";
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

}  // namespace kmock::sim
