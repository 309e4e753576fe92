// Fan-out of committed events to watchers.
//
// The writer publishes each group of events once (shared, never copied per
// watcher); each watcher has a bounded queue of its own. A watcher whose
// queue would exceed its limit is ended with kFellBehind and dropped: a
// slow watcher never blocks the writer. It may watch again from the last
// revision it saw, which the log replays unless compacted.
//
// A watch from an old revision is built in three steps (no event lost or
// repeated): Register (live events start queueing), replay the log from a
// snapshot, then InstallReplay, which drops live events the replay already
// covered and ignores any later ones at or below the replayed revision.
//
// Thread safety: every method may be called from any thread. Lock order:
// WatchHub::mu_ before WatchQueue::mu_. Publish must be called by one
// thread at a time, in revision order (the store's writer).
#ifndef KMOCK_STORE_WATCH_HUB_H_
#define KMOCK_STORE_WATCH_HUB_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/storage.h"

namespace kmock::store {

// One watcher's queue.
class WatchQueue {
 public:
  WatchQueue(std::string prefix, size_t limit);
  WatchQueue(const WatchQueue&) = delete;
  WatchQueue& operator=(const WatchQueue&) = delete;

  const std::string& prefix() const { return prefix_; }

  // Appends the events (already filtered by prefix), skipping those at or
  // below the replayed revision. Returns false if the watcher has ended,
  // including by overflowing now.
  bool Push(const std::vector<EventPtr>& events);
  // Puts the replayed events (revision order, all <= through) in front of
  // the queue and drops queued or future events at or below `through`.
  void InstallReplay(std::vector<EventPtr> replay, int64_t through);
  // Ends the watch with `why` (first reason wins) and drops queued events.
  void End(Status why);
  bool ended();
  bool empty();
  // Watcher::SetReadyCallback.
  void SetReadyCallback(std::function<void()> callback);

  // Watcher::Next.
  Status Next(std::chrono::milliseconds timeout, std::vector<EventPtr>* out);

 private:
  const std::string prefix_;
  const size_t limit_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<EventPtr> queue_;  // guarded by mu_
  int64_t floor_ = 0;           // guarded by mu_; drop events <= floor_
  bool ended_ = false;          // guarded by mu_
  Status end_status_;           // guarded by mu_
  // Called after mu_ is released (a shared copy, so replacing it meanwhile
  // is safe).
  std::shared_ptr<const std::function<void()>> ready_;  // guarded by mu_
};

class WatchHub {
 public:
  WatchHub() = default;
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  // Sets the revision published so far (at open, before any Publish).
  void SetPublishedRevision(int64_t revision);
  int64_t published_revision();

  // Adds a queue; it receives every event published after this call.
  // Returns the last revision published before it, or kServiceUnavailable
  // once CloseAll has run.
  Result<int64_t> Register(std::shared_ptr<WatchQueue> queue);
  void Unregister(const WatchQueue* queue);

  // Delivers events (revision order) to matching watchers and records the
  // last one's revision as published.
  void Publish(const std::vector<EventPtr>& events);

  // Ends every watcher with `why` and refuses new ones.
  void CloseAll(const Status& why);

  size_t watcher_count();

 private:
  std::mutex mu_;
  std::vector<std::shared_ptr<WatchQueue>> queues_;  // guarded by mu_
  int64_t published_ = 0;                            // guarded by mu_
  bool closed_ = false;                              // guarded by mu_
};

// The Watcher handed to callers: a queue plus its registration.
class HubWatcher final : public Watcher {
 public:
  HubWatcher(std::shared_ptr<WatchHub> hub, std::shared_ptr<WatchQueue> queue);
  ~HubWatcher() override;

  Status Next(std::chrono::milliseconds timeout,
              std::vector<EventPtr>* out) override;
  void Stop() override;
  int64_t IdleProgressRevision() override;
  void SetReadyCallback(std::function<void()> callback) override;

 private:
  std::shared_ptr<WatchHub> hub_;
  std::shared_ptr<WatchQueue> queue_;
};

}  // namespace kmock::store

#endif  // KMOCK_STORE_WATCH_HUB_H_
