// The objects of one resource as admission plugins read them on hot paths
// (every pod create reads the PriorityClasses): listed through the registry
// when first asked for, kept, and listed again only after a watch on the
// resource has said that something changed.
//
// Thread safety: Get may be called from many threads; it serializes on a
// mutex held only while the snapshot is refreshed or handed out.
#ifndef KMOCK_REGISTRY_ADMISSION_CACHED_LIST_H_
#define KMOCK_REGISTRY_ADMISSION_CACHED_LIST_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"

namespace kmock::registry {

class Registry;
class ObjectWatcher;

class CachedList {
 public:
  // The resource group/version/plural, found in the registry's catalog.
  CachedList(std::string group, std::string version, std::string plural);
  ~CachedList();
  CachedList(const CachedList&) = delete;
  CachedList& operator=(const CachedList&) = delete;

  using Items = std::vector<nlohmann::json>;
  // The current objects (an empty list when the catalog does not serve the
  // resource).
  Result<std::shared_ptr<const Items>> Get(Registry& registry) const;

 private:
  const std::string group_, version_, plural_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const Items> items_;
  mutable std::unique_ptr<ObjectWatcher> watcher_;
  // Shared with the watcher's callback, which may outlive a refresh.
  std::shared_ptr<std::atomic<bool>> dirty_;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_ADMISSION_CACHED_LIST_H_
