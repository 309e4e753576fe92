// A work queue of object keys ("ns/name"), in the manner of client-go's
// rate-limited delaying queue.
//
// - A key is queued at most once: adding a key already waiting is a no-op.
// - A key being processed (between Get and Done) that is added again is not
//   handed to a second worker; it is queued again when Done is called, so
//   the change that caused the add is never lost.
// - AddAfter queues a key once the injected Clock has passed a deadline. On
//   a FakeClock the delay elapses when the clock is advanced (workers poll
//   the clock every few milliseconds of real time).
// - AddRateLimited delays by an exponential per-key back-off; Forget resets.
// - ShutDown wakes every waiting Get, which then returns nullopt.
//
// Thread safety: every method may be called from any thread.
#ifndef KMOCK_CONTROLLERS_WORK_QUEUE_H_
#define KMOCK_CONTROLLERS_WORK_QUEUE_H_

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "common/clock.h"

namespace kmock::controllers {

struct BackoffOptions {
  std::chrono::milliseconds base{5};
  std::chrono::milliseconds max{std::chrono::seconds(1000)};
};

class WorkQueue {
 public:
  explicit WorkQueue(const Clock* clock, BackoffOptions backoff = {});
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void Add(const std::string& key);
  // Adds key once the clock reaches Now() + delay (at once if delay <= 0).
  // An earlier pending deadline for the same key wins.
  void AddAfter(const std::string& key, std::chrono::nanoseconds delay);
  // AddAfter with the key's next back-off delay (base * 2^failures).
  void AddRateLimited(const std::string& key);
  // Forgets the key's failure count.
  void Forget(const std::string& key);
  int NumRequeues(const std::string& key) const;

  // Blocks until a key is ready or the queue is shut down (nullopt).
  // The caller must call Done(key) when finished with it.
  std::optional<std::string> Get();
  // Like Get, but gives up after `timeout` of real time (nullopt).
  std::optional<std::string> TryGet(std::chrono::milliseconds timeout);
  void Done(const std::string& key);

  void ShutDown();
  bool ShuttingDown() const;
  // Keys ready to be handed out (not counting delayed or in-process ones).
  size_t Len() const;
  // Keys waiting for a deadline.
  size_t DelayedLen() const;

 private:
  void AddLocked(const std::string& key);
  // Moves the delayed keys that are due to the queue: O(due keys).
  void PromoteDueLocked();
  void ForgetDelayedLocked(const std::string& key);
  std::optional<std::string> GetUntil(
      std::optional<std::chrono::steady_clock::time_point> deadline);

  const Clock* clock_;
  BackoffOptions backoff_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::set<std::string> dirty_;       // queued or to be queued after Done
  std::set<std::string> processing_;  // handed out, not yet Done
  std::map<std::string, TimePoint> delayed_;  // key -> when to add
  // The same entries ordered by time, so that finding the due ones does
  // not walk every delayed key (a kubelet may hold one per pod).
  std::set<std::pair<TimePoint, std::string>> delayed_by_time_;
  std::map<std::string, int> failures_;
  bool shutting_down_ = false;
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_WORK_QUEUE_H_
