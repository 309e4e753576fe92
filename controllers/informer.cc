#include "controllers/informer.h"

#include <cstdio>

#include "common/json_view.h"

namespace kmock::controllers {

std::string KeyOf(const json& obj) {
  const json& md = ObjectAt(obj, "metadata");
  std::string ns = md.value("namespace", "");
  std::string name = md.value("name", "");
  return ns.empty() ? name : ns + "/" + name;
}

void SplitKey(const std::string& key, std::string* ns, std::string* name) {
  auto slash = key.find('/');
  if (slash == std::string::npos) {
    ns->clear();
    *name = key;
  } else {
    *ns = key.substr(0, slash);
    *name = key.substr(slash + 1);
  }
}

Informer::Informer(registry::Registry* registry,
                   const api::ResourceInfo* resource, InformerOptions options)
    : registry_(registry), resource_(resource), options_(std::move(options)) {}

Informer::~Informer() { Stop(); }

void Informer::AddHandlers(EventHandlers handlers) {
  handlers_.push_back(std::move(handlers));
}

void Informer::AddIndex(const std::string& name, IndexFunc fn) {
  index_fns_[name] = std::move(fn);
}

void Informer::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void Informer::Stop() {
  stop_ = true;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (watcher_ != nullptr) watcher_->Stop();
  }
  if (thread_.joinable()) thread_.join();
}

bool Informer::HasSynced() const {
  std::lock_guard<std::mutex> l(mu_);
  return synced_;
}

bool Informer::WaitForSync(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> l(mu_);
  return synced_cv_.wait_for(l, timeout, [this] { return synced_; });
}

ObjectPtr Informer::Get(const std::string& key) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Informer::List() const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<ObjectPtr> out;
  out.reserve(items_.size());
  for (const auto& [k, v] : items_) out.push_back(v);
  return out;
}

std::vector<ObjectPtr> Informer::ByIndex(const std::string& index,
                                         const std::string& value) const {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<ObjectPtr> out;
  auto idx = indexes_.find(index);
  if (idx == indexes_.end()) return out;
  auto keys = idx->second.find(value);
  if (keys == idx->second.end()) return out;
  out.reserve(keys->second.size());
  for (const auto& [k, obj] : keys->second) out.push_back(obj);
  return out;
}

std::string Informer::LastResourceVersion() const {
  std::lock_guard<std::mutex> l(mu_);
  return last_rv_;
}

void Informer::IndexLocked(const std::string& key, const ObjectPtr& obj,
                           bool add) {
  for (const auto& [name, fn] : index_fns_) {
    for (const auto& v : fn(*obj)) {
      auto& keys = indexes_[name][v];
      if (add) {
        keys[key] = obj;
      } else {
        keys.erase(key);
        if (keys.empty()) indexes_[name].erase(v);
      }
    }
  }
}

void Informer::Upsert(ObjectPtr obj) {
  std::string key = KeyOf(*obj);
  ObjectPtr old;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = items_.find(key);
    if (it != items_.end()) {
      old = it->second;
      IndexLocked(key, old, false);
    }
    items_[key] = obj;
    IndexLocked(key, obj, true);
    last_rv_ = ObjectAt(*obj, "metadata").value("resourceVersion", last_rv_);
  }
  for (const auto& h : handlers_) {
    if (old) {
      if (h.on_update) h.on_update(*old, *obj);
    } else if (h.on_add) {
      h.on_add(*obj);
    }
  }
}

void Informer::Remove(const json& obj) {
  std::string key = KeyOf(obj);
  ObjectPtr old;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = items_.find(key);
    if (it != items_.end()) {
      old = it->second;
      IndexLocked(key, old, false);
      items_.erase(it);
    }
  }
  for (const auto& h : handlers_) {
    if (h.on_delete) h.on_delete(old ? *old : obj);
  }
}

Result<std::string> Informer::ListAndReplace() {
  registry::ListOptions lo;
  lo.label_selector = options_.label_selector;
  lo.field_selector = options_.field_selector;
  lo.metadata_only = options_.metadata_only;
  KMOCK_ASSIGN_OR_RETURN(json list,
                         registry_->List(*resource_, options_.ns, lo));
  std::string rv = ObjectAt(list, "metadata").value("resourceVersion", "");
  std::map<std::string, ObjectPtr> fresh;
  if (list.contains("items") && list["items"].is_array()) {
    for (auto& item : list["items"]) {
      if (!item.contains("kind")) item["kind"] = resource_->kind;
      if (!item.contains("apiVersion")) {
        item["apiVersion"] = resource_->ApiVersion();
      }
      std::string key = KeyOf(item);
      fresh[key] = std::make_shared<const json>(std::move(item));
    }
  }
  // Objects that vanished while we were not watching.
  std::vector<ObjectPtr> gone;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [k, v] : items_) {
      if (!fresh.count(k)) gone.push_back(v);
    }
  }
  for (const auto& g : gone) Remove(*g);
  for (auto& [k, v] : fresh) {
    ObjectPtr cur = Get(k);
    if (cur && ObjectAt(*cur, "metadata").value("resourceVersion", "") ==
                   ObjectAt(*v, "metadata").value("resourceVersion", "")) {
      continue;
    }
    Upsert(v);
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    last_rv_ = rv;
    synced_ = true;
  }
  synced_cv_.notify_all();
  ++list_count_;
  return rv;
}

void Informer::WatchFrom(const std::string& rv) {
  registry::WatchOptions wo;
  wo.label_selector = options_.label_selector;
  wo.field_selector = options_.field_selector;
  wo.resource_version = rv;
  wo.allow_bookmarks = true;
  wo.metadata_only = options_.metadata_only;
  auto w = registry_->Watch(*resource_, options_.ns, wo);
  if (!w.ok()) return;
  std::unique_ptr<registry::ObjectWatcher> watcher = std::move(w).value();
  {
    std::lock_guard<std::mutex> l(mu_);
    watcher_ = watcher.get();
  }
  if (stop_) watcher->Stop();
  std::vector<registry::WatchEvent> events;
  while (!stop_) {
    events.clear();
    Status st = watcher->Next(options_.poll, &events);
    bool relist = !st.ok();
    for (auto& ev : events) {
      if (ev.type == "ADDED" || ev.type == "MODIFIED") {
        // Shares the decoded object with every other watcher of the event.
        Upsert(ObjectPtr(ev.served, &ev.served->value()));
      } else if (ev.type == "DELETED") {
        Remove(ev.object());
        std::lock_guard<std::mutex> l(mu_);
        last_rv_ = ObjectAt(ev.object(), "metadata")
                       .value("resourceVersion", last_rv_);
      } else if (ev.type == "BOOKMARK") {
        std::lock_guard<std::mutex> l(mu_);
        last_rv_ = ObjectAt(ev.object(), "metadata")
                       .value("resourceVersion", last_rv_);
      } else if (ev.type == "ERROR") {
        relist = true;
      }
    }
    if (relist) break;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    watcher_ = nullptr;
  }
  watcher->Stop();
}

void Informer::Run() {
  while (!stop_) {
    auto rv = ListAndReplace();
    if (!rv.ok()) {
      std::fprintf(stderr, "informer %s: list failed: %s\n",
                   resource_->plural.c_str(), rv.status().ToString().c_str());
    } else {
      WatchFrom(*rv);
    }
    if (!stop_) std::this_thread::sleep_for(options_.relist_backoff);
  }
}

}  // namespace kmock::controllers
