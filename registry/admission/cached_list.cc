#include "registry/admission/cached_list.h"

#include "registry/registry.h"

namespace kmock::registry {

using nlohmann::json;

CachedList::CachedList(std::string group, std::string version,
                       std::string plural)
    : group_(std::move(group)),
      version_(std::move(version)),
      plural_(std::move(plural)),
      dirty_(std::make_shared<std::atomic<bool>>(true)) {}

CachedList::~CachedList() {
  if (watcher_) watcher_->Stop();
}

Result<std::shared_ptr<const CachedList::Items>> CachedList::Get(
    Registry& registry) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (items_ && !dirty_->load()) return items_;
  const api::ResourceInfo* res =
      registry.catalog().Find(group_, version_, plural_);
  if (res == nullptr) {
    items_ = std::make_shared<const Items>();
    dirty_->store(false);
    return items_;
  }
  // Clear first: a change after the list below marks it again.
  dirty_->store(false);
  if (watcher_) watcher_->Stop();
  watcher_.reset();
  auto list = registry.List(*res, "", {});
  if (!list.ok()) {
    dirty_->store(true);
    return list.status();
  }
  WatchOptions wo;
  wo.resource_version = (*list)["metadata"].value("resourceVersion", "");
  wo.metadata_only = true;
  auto watcher = registry.Watch(*res, "", wo);
  if (!watcher.ok()) {
    dirty_->store(true);
    return watcher.status();
  }
  watcher_ = std::move(watcher).value();
  std::shared_ptr<std::atomic<bool>> dirty = dirty_;
  watcher_->SetReadyCallback([dirty] { dirty->store(true); });
  // Whatever arrived before the callback was set counts as well.
  std::vector<WatchEvent> pending;
  if (!watcher_->Next(std::chrono::milliseconds(0), &pending).ok() ||
      !pending.empty()) {
    dirty_->store(true);
  }
  auto items = std::make_shared<Items>();
  for (json& item : (*list)["items"]) items->push_back(std::move(item));
  items_ = std::move(items);
  return items_;
}

}  // namespace kmock::registry
