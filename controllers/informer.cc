#include "controllers/informer.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "common/fast_json.h"
#include "common/json_scan.h"
#include "common/json_view.h"
#include "common/thread_name.h"

namespace kmock::controllers {
namespace {

const Clock& DefaultClock() {
  static const RealClock clock;
  return clock;
}

}  // namespace

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
    : registry_(registry),
      resource_(resource),
      options_(std::move(options)),
      own_rng_(options_.rng != nullptr
                   ? nullptr
                   : std::make_unique<Rng>(
                         std::hash<std::string>()(resource->plural))),
      backoff_(options_.backoff,
               options_.clock != nullptr ? options_.clock : &DefaultClock(),
               options_.rng != nullptr ? options_.rng : own_rng_.get()) {}

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
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
    if (watcher_ != nullptr) watcher_->Stop();
  }
  stop_cv_.notify_all();
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

namespace {

void AppendKeyJson(const std::string& key, std::string* out) {
  *out += json(key).dump();
  out->push_back(':');
}

// The object's JSON without metadata.managedFields (and, for a metadata
// informer, without anything but apiVersion, kind and metadata, though the
// watch may have shared a whole object): what a cold entry keeps.
std::string CompactJson(const json& obj, bool metadata_only) {
  if (!obj.is_object()) return obj.dump();
  std::string out = "{";
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (metadata_only && it.key() != "apiVersion" && it.key() != "kind" &&
        it.key() != "metadata")
      continue;
    if (out.size() > 1) out.push_back(',');
    AppendKeyJson(it.key(), &out);
    if (it.key() != "metadata" || !it->is_object()) {
      out += it->dump();
      continue;
    }
    out.push_back('{');
    bool first = true;
    for (auto m = it->begin(); m != it->end(); ++m) {
      if (m.key() == "managedFields") continue;
      if (!first) out.push_back(',');
      first = false;
      AppendKeyJson(m.key(), &out);
      out += m->dump();
    }
    out.push_back('}');
  }
  out.push_back('}');
  return out;
}

// CompactJson of an object from its served bytes, by copying members
// instead of encoding the tree; nullopt if the bytes cannot be scanned.
std::optional<std::string> CompactFromServed(std::string_view served,
                                             bool metadata_only) {
  std::string out = "{";
  bool ok = ForEachTopLevelMember(
      served, [&](std::string_view key, std::string_view value) {
        if (key != "metadata") {
          if (!metadata_only || key == "apiVersion" || key == "kind")
            AppendMemberText(key, value, &out);
          return true;
        }
        auto meta = ObjectWithoutMember(value, "managedFields");
        if (!meta) return false;
        AppendMemberText(key, *meta, &out);
        return true;
      });
  if (!ok) return std::nullopt;
  out.push_back('}');
  return out;
}

}  // namespace

ObjectPtr Informer::TreeLocked(const Entry& e) {
  if (e.hot) return ObjectPtr(e.hot, &e.hot->value());
  return e.seen.lock();
}

ObjectPtr Informer::TouchLocked(Entry& e) const {
  if (e.hot) {
    lru_.splice(lru_.begin(), lru_, e.lru);
    return ObjectPtr(e.hot, &e.hot->value());
  }
  return e.seen.lock();
}

void Informer::TakeLocked(std::string_view key, Entry& e,
                          std::vector<ObjectPtr>* out,
                          std::vector<ColdRead>* cold) const {
  if (ObjectPtr tree = TouchLocked(e)) {
    out->push_back(std::move(tree));
    return;
  }
  if (!e.compact) return;
  cold->push_back(ColdRead{out->size(), std::string(key), e.compact});
  out->push_back(nullptr);
}

json Informer::Decode(const std::string& compact) const {
  std::optional<std::string> text = compressor_->Expand(compact);
  if (!text) return json(json::value_t::discarded);
  return ParseJson(*text);
}

void Informer::FinishCold(std::vector<ObjectPtr>* out,
                          std::vector<ColdRead> cold) const {
  if (cold.empty()) return;
  for (const ColdRead& c : cold) {
    json parsed = Decode(*c.compact);
    if (parsed.is_discarded()) continue;  // we wrote it: cannot happen
    (*out)[c.slot] = std::make_shared<const json>(std::move(parsed));
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const ColdRead& c : cold) {
      ObjectPtr& tree = (*out)[c.slot];
      if (!tree) continue;
      auto it = items_.find(c.key);
      if (it == items_.end() || it->second.compact != c.compact) continue;
      // Another reader may have decoded it meanwhile: share theirs.
      if (ObjectPtr other = it->second.seen.lock()) {
        tree = std::move(other);
      } else {
        it->second.seen = tree;
      }
    }
  }
  out->erase(std::remove(out->begin(), out->end(), nullptr), out->end());
}

ObjectPtr Informer::Resolve(const std::string& key) const {
  std::vector<ObjectPtr> out;
  std::vector<ColdRead> cold;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = items_.find(key);
    if (it == items_.end()) return nullptr;
    // The usual case, a tree at hand, without the vectors of a bulk read.
    if (ObjectPtr tree = TouchLocked(it->second)) return tree;
    TakeLocked(it->first, it->second, &out, &cold);
  }
  FinishCold(&out, std::move(cold));
  return out.empty() ? nullptr : std::move(out.front());
}

ObjectPtr Informer::Get(const std::string& key) const { return Resolve(key); }

std::vector<ObjectPtr> Informer::List() const {
  std::vector<ObjectPtr> out;
  std::vector<ColdRead> cold;
  {
    std::lock_guard<std::mutex> l(mu_);
    out.reserve(items_.size());
    for (auto& [k, e] : items_) TakeLocked(k, e, &out, &cold);
  }
  FinishCold(&out, std::move(cold));
  return out;
}

std::vector<ObjectPtr> Informer::ByIndex(const std::string& index,
                                         const std::string& value) const {
  std::vector<ObjectPtr> out;
  std::vector<ColdRead> cold;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto idx = indexes_.find(index);
    if (idx == indexes_.end()) return {};
    auto found = idx->second.find(value);
    if (found == idx->second.end()) return {};
    out.reserve(found->second.size());
    for (const auto& [k, e] : found->second) TakeLocked(k, *e, &out, &cold);
  }
  FinishCold(&out, std::move(cold));
  return out;
}

size_t Informer::ColdBytes() const {
  std::lock_guard<std::mutex> l(mu_);
  size_t total = 0;
  for (const auto& [key, e] : items_) {
    if (e.compact) total += e.compact->size();
  }
  return total;
}

std::string Informer::LastResourceVersion() const {
  std::lock_guard<std::mutex> l(mu_);
  return last_rv_;
}

void Informer::ReindexLocked(const std::string& key, Entry& e) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& [name, fn] : index_fns_) {
    for (auto& v : fn(e.hot->value())) values.emplace_back(name, std::move(v));
  }
  // Most updates (a status write) leave every indexed value as it was;
  // the entry stays where it is, at the same address.
  if (values == e.index_values) return;
  UnindexLocked(key, e);
  for (const auto& [name, v] : values) {
    indexes_[name][v].emplace(std::string_view(key), &e);
  }
  e.index_values = std::move(values);
}

void Informer::UnindexLocked(const std::string& key, Entry& e) {
  for (const auto& [name, value] : e.index_values) {
    auto& by_value = indexes_[name];
    auto keys = by_value.find(value);
    if (keys == by_value.end()) continue;
    keys->second.erase(std::string_view(key));
    if (keys->second.empty()) by_value.erase(keys);
  }
  e.index_values.clear();
}

void Informer::MakeHotLocked(const std::string& key, Entry& e,
                             registry::ServedPtr served,
                             std::vector<registry::ServedPtr>* released) {
  if (e.hot) {
    lru_.splice(lru_.begin(), lru_, e.lru);
  } else {
    lru_.push_front(key);
    e.lru = lru_.begin();
  }
  e.seen = ObjectPtr(served, &served->value());
  e.hot = std::move(served);
  e.compact.reset();
  CoolOverLimitLocked(released);
}

void Informer::CoolOverLimitLocked(std::vector<registry::ServedPtr>* released) {
  const size_t limit = std::max<size_t>(1, options_.hot_objects);
  while (lru_.size() > limit) {
    auto it = items_.find(lru_.back());
    lru_.pop_back();
    if (it == items_.end() || !it->second.hot) continue;
    Entry& e = it->second;
    std::optional<std::string> compact;
    if (const std::string* bytes = e.hot->GivenBytes())
      compact = CompactFromServed(*bytes, options_.metadata_only);
    if (!compact) compact = CompactJson(e.hot->value(), options_.metadata_only);
    if (!compressor_)
      compressor_ = std::make_unique<SampleCompressor>(*compact);
    e.compact =
        std::make_shared<const std::string>(compressor_->Compress(*compact));
    // e.seen still finds the tree while a reader (or *released) holds it.
    released->push_back(std::move(e.hot));
  }
}

void Informer::Upsert(registry::ServedPtr served) {
  ObjectPtr obj(served, &served->value());
  std::string key = KeyOf(*obj);
  ObjectPtr old;
  std::shared_ptr<const std::string> old_compact;
  bool existed = false;
  std::vector<registry::ServedPtr> released;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto [it, inserted] = items_.try_emplace(key);
    Entry& e = it->second;
    existed = !inserted;
    if (existed) {
      old = TreeLocked(e);
      if (!old) old_compact = e.compact;
    }
    e.resource_version =
        ObjectAt(*obj, "metadata").value("resourceVersion", "");
    MakeHotLocked(it->first, e, served, &released);
    ReindexLocked(it->first, e);
    if (!e.resource_version.empty()) last_rv_ = e.resource_version;
  }
  released.clear();  // the cooled trees are freed here, without mu_
  if (!old && old_compact) {
    json parsed = Decode(*old_compact);
    if (!parsed.is_discarded())
      old = std::make_shared<const json>(std::move(parsed));
  }
  for (const auto& h : handlers_) {
    if (existed && old) {
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
      Entry& e = it->second;
      old = TreeLocked(e);
      UnindexLocked(key, e);
      if (e.hot) lru_.erase(e.lru);
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
  lo.limit = static_cast<int64_t>(std::max<size_t>(1, options_.list_page));
  // Page by page, all at the first page's revision: each page's objects go
  // into the cache (where all but the hot ones are kept compact) before
  // the next is read, so a relist of 150,000 pods never holds them all
  // decoded at once.
  std::set<std::string> listed;
  std::string rv;
  do {
    KMOCK_ASSIGN_OR_RETURN(registry::ServedList page,
                           registry_->ListServed(*resource_, options_.ns, lo));
    if (rv.empty()) rv = std::to_string(page.revision);
    for (const registry::ServedPtr& served : page.items) {
      ObjectPtr obj(served, &served->value());
      std::string key = KeyOf(*obj);
      {
        std::lock_guard<std::mutex> l(mu_);
        auto cur = items_.find(key);
        if (cur != items_.end() &&
            cur->second.resource_version ==
                ObjectAt(*obj, "metadata").value("resourceVersion", "")) {
          listed.insert(std::move(key));
          continue;
        }
      }
      Upsert(served);
      listed.insert(std::move(key));
    }
    lo.continue_token = page.continue_token;
  } while (!lo.continue_token.empty());
  // Objects that vanished while we were not watching.
  std::vector<std::string> gone;
  {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [k, v] : items_) {
      if (!listed.count(k)) gone.push_back(k);
    }
  }
  for (const auto& g : gone) {
    if (ObjectPtr obj = Resolve(g)) Remove(*obj);
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
  // A watch that ended because this informer fell behind resumes from the
  // last revision it saw, as a reflector does when its watch is closed;
  // anything else (a compacted revision, an ERROR) relists.
  for (std::string from = rv; WatchOnce(from) && !stop_;) {
    std::lock_guard<std::mutex> l(mu_);
    from = last_rv_;
  }
}

bool Informer::WatchOnce(const std::string& rv) {
  registry::WatchOptions wo;
  wo.label_selector = options_.label_selector;
  wo.field_selector = options_.field_selector;
  wo.resource_version = rv;
  wo.allow_bookmarks = true;
  wo.metadata_only = options_.metadata_only;
  auto w = registry_->Watch(*resource_, options_.ns, wo);
  if (!w.ok()) {
    // A compacted revision is routine (relist); anything else is news.
    if (w.status().code() != StatusCode::kCompacted && !stop_)
      std::fprintf(stderr, "informer %s: watch failed: %s\n",
                   resource_->plural.c_str(), w.status().ToString().c_str());
    return false;
  }
  std::unique_ptr<registry::ObjectWatcher> watcher = std::move(w).value();
  {
    std::lock_guard<std::mutex> l(mu_);
    watcher_ = watcher.get();
  }
  if (stop_) watcher->Stop();
  std::vector<registry::WatchEvent> events;
  bool resume = false;
  while (!stop_) {
    events.clear();
    Status st = watcher->Next(options_.poll, &events);
    bool relist = !st.ok();
    resume = st.code() == StatusCode::kFellBehind;
    for (auto& ev : events) {
      if (ev.type == "ADDED" || ev.type == "MODIFIED") {
        // Shares the decoded object with every other watcher of the event.
        Upsert(ev.served);
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
  return resume;
}

void Informer::Run() {
  NameThisThread("inf/" + resource_->plural);
  while (!stop_) {
    auto rv = ListAndReplace();
    if (!rv.ok()) {
      std::fprintf(stderr, "informer %s: list failed: %s\n",
                   resource_->plural.c_str(), rv.status().ToString().c_str());
    } else {
      WatchFrom(*rv);
    }
    if (stop_) break;
    // Every way back here is a failure (a list or watch that failed, a
    // watch that ended with an error): wait, longer while they go on.
    const std::chrono::milliseconds wait = backoff_.Next();
    std::unique_lock<std::mutex> l(mu_);
    stop_cv_.wait_for(l, wait, [this] { return stop_.load(); });
  }
}

}  // namespace kmock::controllers
