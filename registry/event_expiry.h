// Events expire, as kube-apiserver's do (--event-ttl, one hour by default):
// an Event is deleted once the TTL has passed since it was last written.
// kube-apiserver attaches an etcd lease to every event write; here one loop
// follows the store's events prefix (core/v1 and events.k8s.io/v1 Events
// share it) without decoding anything, keeps each key's expiry and the
// revision it belongs to, and deletes due events through the registry with
// that revision as a precondition, so an event written again meanwhile is
// kept (its new write set a new expiry). Due events are deleted from several
// threads at once, so the store commits the deletions together. Deletions reach
// watchers as DELETED events, as lease expiries do.
//
// Without this, every event a cluster ever made stays: a long-running
// server (a classroom's, a CI pipeline's) grows without bound and `kubectl
// get events` lists days of history.
//
// Events already stored when the loop starts (a restart) expire the TTL
// after the latest of their creationTimestamp, lastTimestamp and eventTime
// (the write time is not stored); later writes, the TTL after the loop saw
// them. Times come from the injected Clock; the loop wakes at the next
// expiry or within a second, and takes in the writes at most every
// kRoundInterval (a burst of events wakes it ten times a second, not once
// per event: an hour's TTL does not need the writes the moment they land).
//
// Thread safety: Start and Stop from one thread (Stop may run while the loop
// waits); RunOnce (for tests) must not run while the loop runs.
#ifndef KMOCK_REGISTRY_EVENT_EXPIRY_H_
#define KMOCK_REGISTRY_EVENT_EXPIRY_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "api/resource.h"
#include "common/clock.h"
#include "common/status.h"
#include "registry/registry.h"
#include "store/storage.h"

namespace kmock::registry {

class EventExpiry {
 public:
  EventExpiry(Registry* registry, const Clock* clock, std::chrono::seconds ttl);
  ~EventExpiry();
  EventExpiry(const EventExpiry&) = delete;
  EventExpiry& operator=(const EventExpiry&) = delete;

  void Start();
  void Stop();  // idempotent

  // One round: takes in the writes since the last round (listing first if
  // there is no watch yet) and deletes what is due. Returns how many events
  // it deleted.
  Result<int> RunOnce(std::chrono::milliseconds wait);

  size_t tracked() const { return by_key_.size(); }

 private:
  struct Entry {
    TimePoint expiry;
    int64_t revision = 0;
  };
  struct Due {
    TimePoint expiry;
    std::string key;
    int64_t revision = 0;
    bool operator>(const Due& o) const { return expiry > o.expiry; }
  };

  static constexpr std::chrono::milliseconds kRoundInterval{100};

  Status Relist();
  void Track(const std::string& key, int64_t revision, TimePoint expiry);
  Result<int> DeleteDue();
  void Loop();

  Registry* registry_;
  const Clock* clock_;
  const std::chrono::seconds ttl_;
  const api::ResourceInfo* events_;
  // Replaced only by the loop's thread (which reads it without the lock);
  // Stop reaches it under the lock.
  std::mutex watch_mu_;
  std::condition_variable stop_cv_;  // with watch_mu_: Stop was called
  std::unique_ptr<store::Watcher> watch_;
  std::unordered_map<std::string, Entry> by_key_;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> due_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_EVENT_EXPIRY_H_
