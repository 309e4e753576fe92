#include "controllers/endpoints/slice_tracker.h"

#include <cstdlib>

#include "common/json_view.h"

namespace kmock::controllers::endpoints {

namespace {

const json& MetadataOf(const json& obj) { return ObjectAt(obj, "metadata"); }

int64_t ResourceVersionOf(const json& obj) {
  const std::string rv = MetadataOf(obj).value("resourceVersion", "");
  return std::strtoll(rv.c_str(), nullptr, 10);
}

}  // namespace

void SliceTracker::Wrote(const std::string& service_key, const json& slice) {
  std::lock_guard<std::mutex> lock(mu_);
  written_[service_key][MetadataOf(slice).value("name", "")] =
      Write{ResourceVersionOf(slice), 0};
}

void SliceTracker::Deleted(const std::string& service_key,
                           const std::string& slice_name) {
  std::lock_guard<std::mutex> lock(mu_);
  written_[service_key][slice_name] = Write{kDeleted, 0};
}

bool SliceTracker::Stale(const std::string& service_key,
                         const std::vector<ObjectPtr>& live) {
  std::lock_guard<std::mutex> lock(mu_);
  auto service = written_.find(service_key);
  if (service == written_.end()) return false;
  std::map<std::string, int64_t> cached;
  for (const ObjectPtr& slice : live) {
    cached[MetadataOf(*slice).value("name", "")] = ResourceVersionOf(*slice);
  }
  bool stale = false;
  auto& writes = service->second;
  for (auto it = writes.begin(); it != writes.end();) {
    auto seen = cached.find(it->first);
    const int64_t rv = it->second.resource_version;
    const bool caught_up = rv == kDeleted
                               ? seen == cached.end()
                               : seen != cached.end() && seen->second >= rv;
    if (caught_up || ++it->second.stale_verdicts > kPatience) {
      it = writes.erase(it);
    } else {
      stale = true;
      ++it;
    }
  }
  if (writes.empty()) written_.erase(service);
  return stale;
}

void SliceTracker::Forget(const std::string& service_key) {
  std::lock_guard<std::mutex> lock(mu_);
  written_.erase(service_key);
}

}  // namespace kmock::controllers::endpoints
