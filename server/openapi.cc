#include "server/openapi.h"

#include "api/openapi.h"

namespace kmock::server {

OpenApiDocs::OpenApiDocs(const api::Catalog* catalog, const api::Schema* schema,
                         std::string kubernetes_version)
    : catalog_(catalog),
      schema_(schema),
      version_(std::move(kubernetes_version)) {}

std::string OpenApiDocs::V3Index() {
  std::lock_guard<std::mutex> l(mu_);
  if (!index_)
    index_ = api::OpenApiV3Index(*catalog_, *schema_, version_).dump();
  return *index_;
}

std::optional<std::string> OpenApiDocs::V3Document(std::string_view path) {
  std::string key(path);
  while (!key.empty() && key.back() == '/') key.pop_back();
  std::lock_guard<std::mutex> l(mu_);
  auto it = docs_.find(key);
  if (it != docs_.end()) return it->second;
  std::string group, version;
  if (key.rfind("api/", 0) == 0 && key.find('/', 4) == std::string::npos) {
    version = key.substr(4);
  } else if (key.rfind("apis/", 0) == 0) {
    size_t slash = key.find('/', 5);
    if (slash != std::string::npos &&
        key.find('/', slash + 1) == std::string::npos) {
      group = key.substr(5, slash - 5);
      version = key.substr(slash + 1);
    }
  }
  std::optional<std::string> doc;
  if (!version.empty()) {
    nlohmann::json d =
        api::OpenApiV3Document(*catalog_, *schema_, group, version, version_);
    if (!d.is_null()) doc = d.dump();
  }
  if (doc) docs_[key] = doc;  // unknown paths are not kept
  return doc;
}

std::string OpenApiDocs::V2Protobuf() {
  std::lock_guard<std::mutex> l(mu_);
  if (!v2_) v2_ = api::OpenApiV2Protobuf(*catalog_, *schema_, version_);
  return *v2_;
}

}  // namespace kmock::server
