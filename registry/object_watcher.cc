#include "registry/object_watcher.h"

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "registry/api_errors.h"
#include "registry/object_codec.h"
#include "registry/stored_json.h"

namespace kmock::registry {

namespace {

using nlohmann::json;

// The served form of a stored value, whole or (metadata_view) only as much
// as a metadata watcher reads.
Result<ServedPtr> Decode(Registry& registry, const api::ResourceInfo& res,
                         const store::KeyValue& kv, bool metadata_view) {
  if (metadata_view)
    return registry.served_cache().DecodeMetadata(res, kv.key, kv.value,
                                                  kv.mod_revision);
  return registry.served_cache().Decode(res, kv.key, kv.value, kv.mod_revision);
}

class StoreObjectWatcher : public ObjectWatcher {
 public:
  StoreObjectWatcher(Registry* registry, const api::ResourceInfo& res,
                     Filter filter, std::unique_ptr<store::Watcher> watcher,
                     int64_t start_revision, bool bookmarks, bool metadata_view)
      : registry_(registry),
        res_(res),
        filter_(std::move(filter)),
        members_read_(filter_.MembersRead(res)),
        watcher_(std::move(watcher)),
        last_revision_(start_revision),
        bookmarks_(bookmarks),
        metadata_view_(metadata_view),
        next_bookmark_(registry->clock().Now() +
                       registry->watch_bookmark_interval()) {}

  void Queue(WatchEvent ev) { pending_.push_back(std::move(ev)); }

  Status Next(std::chrono::milliseconds timeout,
              std::vector<WatchEvent>* out) override {
    if (!pending_.empty()) {
      for (auto& ev : pending_) out->push_back(std::move(ev));
      pending_.clear();
      return Status::Ok();
    }
    std::vector<store::EventPtr> events;
    Status st = watcher_->Next(timeout, &events);
    if (!st.ok()) {
      if (st.code() == StatusCode::kCompacted)
        return Expired(
            "too old resource version: " + std::to_string(last_revision_) +
            " (" + std::to_string(registry_->storage()->CompactedRevision()) +
            ")");
      return st;
    }
    for (const auto& ev : events) {
      last_revision_ = ev->revision;
      Translate(*ev, out);
    }
    if (bookmarks_ && events.empty()) {
      TimePoint now = registry_->clock().Now();
      if (now >= next_bookmark_) {
        next_bookmark_ = now + registry_->watch_bookmark_interval();
        // Like the watch cache's bookmarks, carry the newest revision this
        // watch is known to be complete through, not just its last event.
        last_revision_ =
            std::max(last_revision_, watcher_->IdleProgressRevision());
        out->push_back(Bookmark(last_revision_, false));
      }
    }
    return Status::Ok();
  }

  void Stop() override { watcher_->Stop(); }
  void SetReadyCallback(std::function<void()> callback) override {
    watcher_->SetReadyCallback(std::move(callback));
  }

  WatchEvent Bookmark(int64_t revision, bool initial_events_end) const {
    json meta = {{"resourceVersion", std::to_string(revision)}};
    if (initial_events_end)
      meta["annotations"] = {{"k8s.io/initial-events-end", "true"}};
    return {"BOOKMARK", MakeServed({{"kind", res_.kind},
                                    {"apiVersion", res_.ApiVersion()},
                                    {"metadata", meta}})};
  }

 private:
  // Whether the stored value matches the filter: from the labels in its
  // bytes where labels alone decide, so that a watcher that only sends the
  // bytes never has the object parsed; else from the tree.
  bool MatchesStored(std::string_view stored, const ServedObject& obj) const {
    if (filter_.Empty()) return true;
    if (filter_.fields.Empty() && !res_.from_storage) {
      if (std::optional<json> labels = StoredLabels(stored))
        return filter_.labels.Matches(*labels);
    }
    return filter_.Matches(res_, obj.value());
  }

  void Translate(const store::Event& ev, std::vector<WatchEvent>* out) {
    auto obj = Decode(*registry_, res_, ev.kv, metadata_view_);
    if (!obj.ok()) return;
    if (ev.type == store::Event::Type::kDelete) {
      if (MatchesStored(ev.kv.value, **obj))
        out->push_back({"DELETED", std::move(obj).value()});
      return;
    }
    bool now_matches = MatchesStored(ev.kv.value, **obj);
    bool was_matching = false;
    if (ev.has_prev) {
      std::optional<json> prev_labels;
      if (filter_.Empty()) {
        was_matching = true;
      } else if (filter_.fields.Empty() && !res_.from_storage &&
                 (prev_labels = StoredLabels(ev.prev_value))) {
        was_matching = filter_.labels.Matches(*prev_labels);
      } else {
        // Only the members of the old value the selector reads (metadata
        // for labels and names, status for status.phase), not all of it.
        auto prev = members_read_
                        ? DecodeObjectMembers(res_, ev.prev_value, ev.revision,
                                              *members_read_)
                        : DecodeObject(res_, ev.prev_value, ev.revision);
        was_matching = prev.ok() && filter_.Matches(res_, *prev);
      }
    }
    if (now_matches && was_matching)
      out->push_back({"MODIFIED", std::move(obj).value()});
    else if (now_matches)
      out->push_back({"ADDED", std::move(obj).value()});
    else if (was_matching)
      out->push_back({"DELETED", std::move(obj).value()});
  }

  Registry* registry_;
  const api::ResourceInfo& res_;
  Filter filter_;
  // What filter_ reads of an object (Filter::MembersRead).
  std::optional<std::vector<std::string>> members_read_;
  std::unique_ptr<store::Watcher> watcher_;
  int64_t last_revision_;
  bool bookmarks_;
  bool metadata_view_;
  TimePoint next_bookmark_;
  std::deque<WatchEvent> pending_;
};

}  // namespace

Result<std::unique_ptr<ObjectWatcher>> StartObjectWatch(
    Registry* registry, const api::ResourceInfo& res, std::string_view ns,
    const WatchOptions& opts) {
  KMOCK_ASSIGN_OR_RETURN(
      Filter filter, MakeFilter(res, opts.label_selector, opts.field_selector));
  store::Storage* storage = registry->storage();
  const std::string prefix = ObjectPrefix(res, ns);
  const bool initial = opts.resource_version.empty() ||
                       opts.resource_version == "0" || opts.send_initial_events;
  if (opts.send_initial_events && !opts.allow_bookmarks)
    return Status(StatusCode::kInvalid,
                  "sendInitialEvents: Forbidden: sendInitialEvents requires "
                  "setting allowWatchBookmarks to true");

  const bool metadata_view = opts.metadata_only && opts.field_selector.empty();
  int64_t start = 0;
  std::vector<WatchEvent> initial_events;
  if (initial) {
    store::ListOptions lo;
    lo.prefix = prefix;
    auto list = storage->List(lo);
    if (!list.ok()) return Internal(list.status().message());
    start = list->revision;
    for (const auto& kv : list->items) {
      auto obj = Decode(*registry, res, kv, metadata_view);
      if (obj.ok() && filter.Matches(res, (*obj)->value()))
        initial_events.push_back({"ADDED", std::move(obj).value()});
    }
  } else {
    KMOCK_ASSIGN_OR_RETURN(start, ParseResourceVersion(opts.resource_version));
  }
  auto w = storage->Watch(prefix, start);
  if (!w.ok()) {
    if (w.status().code() == StatusCode::kCompacted)
      return Expired("too old resource version: " + std::to_string(start) +
                     " (" + std::to_string(storage->CompactedRevision()) + ")");
    if (w.status().code() == StatusCode::kFutureRevision)
      return Status(
          StatusCode::kTimeout,
          "Too large resource version: " + std::to_string(start) +
              ", current: " + std::to_string(storage->CurrentRevision()));
    return Internal(w.status().message());
  }
  auto watcher = std::make_unique<StoreObjectWatcher>(
      registry, res, std::move(filter), std::move(w).value(), start,
      opts.allow_bookmarks, metadata_view);
  for (auto& ev : initial_events) watcher->Queue(std::move(ev));
  if (opts.send_initial_events) watcher->Queue(watcher->Bookmark(start, true));
  return std::unique_ptr<ObjectWatcher>(std::move(watcher));
}

}  // namespace kmock::registry
