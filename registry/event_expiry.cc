#include "registry/event_expiry.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/json_scan.h"
#include "common/run_concurrently.h"
#include "common/thread_name.h"

namespace kmock::registry {

namespace {

// The latest of the stored event's own times: the best guess of its last
// write when the loop did not see that write.
std::optional<TimePoint> LatestStampOf(std::string_view value) {
  std::optional<TimePoint> latest;
  auto consider = [&latest](std::optional<std::string_view> text) {
    if (!text || text->size() < 2 || text->front() != '"') return;
    TimePoint t{};
    if (!ParseRfc3339(std::string(text->substr(1, text->size() - 2)), &t))
      return;
    if (!latest || t > *latest) latest = t;
  };
  if (auto meta = TopLevelMember(value, "metadata"))
    consider(TopLevelMember(*meta, "creationTimestamp"));
  consider(TopLevelMember(value, "lastTimestamp"));
  consider(TopLevelMember(value, "eventTime"));
  return latest;
}

}  // namespace

EventExpiry::EventExpiry(Registry* registry, const Clock* clock,
                         std::chrono::seconds ttl)
    : registry_(registry),
      clock_(clock),
      ttl_(ttl),
      events_(registry->catalog().Find("", "v1", "events")) {}

EventExpiry::~EventExpiry() { Stop(); }

void EventExpiry::Start() {
  if (thread_.joinable() || events_ == nullptr) return;
  thread_ = std::thread([this] {
    NameThisThread("event-expiry");
    Loop();
  });
}

void EventExpiry::Stop() {
  {
    // Ends a wait in Next at once; the loop thread alone replaces watch_.
    std::lock_guard<std::mutex> l(watch_mu_);
    stop_ = true;
    if (watch_) watch_->Stop();
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EventExpiry::Loop() {
  // Failed rounds in a row: the pause before the next doubles from 1 s to
  // 30 s, as client-go's reflector backs off a failing list and watch.
  int failures = 0;
  while (!stop_) {
    TimePoint now = clock_->Now();
    auto wait = std::chrono::milliseconds(1000);
    if (!due_.empty()) {
      auto until = std::chrono::duration_cast<std::chrono::milliseconds>(
          due_.top().expiry - now);
      wait = std::clamp(until, std::chrono::milliseconds(0), wait);
    }
    auto r = RunOnce(wait);
    // A failed round (the store closing, a list failing) is retried after
    // a pause; the next round relists if the watch is gone.
    failures = r.ok() ? 0 : failures + 1;
    std::chrono::milliseconds pause =
        r.ok() ? kRoundInterval
               : std::min<std::chrono::milliseconds>(
                     std::chrono::seconds(1 << std::min(failures - 1, 5)),
                     std::chrono::seconds(30));
    std::unique_lock<std::mutex> l(watch_mu_);
    stop_cv_.wait_for(l, pause, [&] { return stop_.load(); });
  }
}

void EventExpiry::Track(const std::string& key, int64_t revision,
                        TimePoint expiry) {
  by_key_[key] = Entry{expiry, revision};
  due_.push(Due{expiry, key, revision});
}

Status EventExpiry::Relist() {
  by_key_.clear();
  due_ = {};
  store::Storage* storage = registry_->storage();
  store::ListOptions lo;
  lo.prefix = events_->key_prefix;
  auto list = storage->List(lo);
  if (!list.ok()) return list.status();
  const TimePoint now = clock_->Now();
  for (const store::KeyValue& kv : list->items) {
    TimePoint written = std::min(LatestStampOf(kv.value).value_or(now), now);
    Track(kv.key, kv.mod_revision, written + ttl_);
  }
  auto w = storage->Watch(events_->key_prefix, list->revision);
  if (!w.ok()) return w.status();
  std::lock_guard<std::mutex> l(watch_mu_);
  if (stop_) return Status(StatusCode::kServiceUnavailable, "stopping");
  watch_ = std::move(w).value();
  return Status::Ok();
}

Result<int> EventExpiry::RunOnce(std::chrono::milliseconds wait) {
  if (events_ == nullptr) return 0;
  if (!watch_) {
    KMOCK_RETURN_IF_ERROR(Relist());
    wait = std::chrono::milliseconds(0);
  }
  std::vector<store::EventPtr> events;
  Status st = watch_->Next(wait, &events);
  const TimePoint now = clock_->Now();
  for (const store::EventPtr& ev : events) {
    if (ev->type == store::Event::Type::kDelete) {
      by_key_.erase(ev->kv.key);
    } else {
      Track(ev->kv.key, ev->kv.mod_revision, now + ttl_);
    }
  }
  if (!st.ok()) {
    // The watch ended (fell behind, or the store is closing): start over.
    std::lock_guard<std::mutex> l(watch_mu_);
    watch_.reset();
    if (stop_) return st;
  }
  return DeleteDue();
}

Result<int> EventExpiry::DeleteDue() {
  // Deleted from several threads at once, so the store commits them
  // together: an hour after a burst of pods, their hundreds of thousands of
  // events fall due, and one by one each was a commit and an fsync.
  constexpr size_t kBatch = 512, kThreads = 8;
  struct Deletion {
    std::string ns, name;
    int64_t revision;
  };
  int deleted = 0;
  const TimePoint now = clock_->Now();
  while (!due_.empty() && due_.top().expiry <= now && !stop_) {
    std::vector<Deletion> batch;
    while (batch.size() < kBatch && !due_.empty() && due_.top().expiry <= now) {
      Due d = due_.top();
      due_.pop();
      auto it = by_key_.find(d.key);
      // A later write left a newer entry (and its own expiry).
      if (it == by_key_.end() || it->second.revision != d.revision) continue;
      by_key_.erase(it);
      std::string rest = d.key.substr(events_->key_prefix.size());
      size_t slash = rest.find('/');
      if (slash == std::string::npos) continue;
      batch.push_back(
          {rest.substr(0, slash), rest.substr(slash + 1), d.revision});
    }
    std::vector<Status> results(batch.size());
    RunConcurrently(batch.size(), kThreads, [&](size_t k) {
      DeleteOptions opts;
      opts.precondition_resource_version = std::to_string(batch[k].revision);
      opts.user.name = "system:apiserver";
      opts.user.groups = {"system:masters"};
      results[k] = registry_->Delete(*events_, batch[k].ns, batch[k].name, opts)
                       .status();
    });
    Status first = Status::Ok();
    for (const Status& st : results) {
      if (st.ok()) {
        ++deleted;
      } else if (st.code() != StatusCode::kNotFound &&
                 st.code() != StatusCode::kConflict && first.ok()) {
        first = st;
      }
    }
    if (!first.ok()) return first;
  }
  return deleted;
}

}  // namespace kmock::registry
