#include "controllers/work_queue.h"

#include <algorithm>

namespace kmock::controllers {

namespace {
// How often a waiting Get looks at a clock that does not follow real time
// (a test's) for due delayed keys: it gives no notice when it is advanced.
constexpr std::chrono::milliseconds kClockPoll{5};
// The longest wait with nothing due: every change notifies the waiters, so
// this only bounds a wait that a lost wakeup would make endless.
constexpr std::chrono::seconds kIdleWait{5};
}  // namespace

WorkQueue::WorkQueue(const Clock* clock, BackoffOptions backoff)
    : clock_(clock), backoff_(backoff) {}

void WorkQueue::AddLocked(const std::string& key) {
  if (shutting_down_) return;
  if (dirty_.count(key)) return;
  dirty_.insert(key);
  if (processing_.count(key)) return;  // queued again at Done
  queue_.push_back(key);
  cv_.notify_one();
}

void WorkQueue::ForgetDelayedLocked(const std::string& key) {
  auto it = delayed_.find(key);
  if (it == delayed_.end()) return;
  delayed_by_time_.erase({it->second, key});
  delayed_.erase(it);
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  ForgetDelayedLocked(key);
  AddLocked(key);
}

void WorkQueue::AddAfter(const std::string& key,
                         std::chrono::nanoseconds delay) {
  std::lock_guard<std::mutex> l(mu_);
  if (shutting_down_) return;
  if (delay <= std::chrono::nanoseconds::zero()) {
    ForgetDelayedLocked(key);
    AddLocked(key);
    return;
  }
  TimePoint when =
      clock_->Now() + std::chrono::duration_cast<TimePoint::duration>(delay);
  auto it = delayed_.find(key);
  if (it == delayed_.end()) {
    delayed_.emplace(key, when);
    delayed_by_time_.emplace(when, key);
  } else if (when < it->second) {
    delayed_by_time_.erase({it->second, key});
    delayed_by_time_.emplace(when, key);
    it->second = when;
  }
  cv_.notify_all();
}

void WorkQueue::AddRateLimited(const std::string& key) {
  std::chrono::nanoseconds delay;
  {
    std::lock_guard<std::mutex> l(mu_);
    int n = failures_[key]++;
    auto d =
        std::chrono::duration_cast<std::chrono::nanoseconds>(backoff_.base);
    for (int i = 0; i < n && d < backoff_.max; ++i) d *= 2;
    delay = std::min<std::chrono::nanoseconds>(d, backoff_.max);
  }
  AddAfter(key, delay);
}

void WorkQueue::Forget(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  failures_.erase(key);
}

int WorkQueue::NumRequeues(const std::string& key) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

void WorkQueue::PromoteDueLocked() {
  if (delayed_by_time_.empty()) return;
  TimePoint now = clock_->Now();
  while (!delayed_by_time_.empty() && delayed_by_time_.begin()->first <= now) {
    std::string key = delayed_by_time_.begin()->second;
    delayed_by_time_.erase(delayed_by_time_.begin());
    delayed_.erase(key);
    AddLocked(key);
  }
}

std::optional<std::string> WorkQueue::GetUntil(
    std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::unique_lock<std::mutex> l(mu_);
  while (true) {
    PromoteDueLocked();
    if (!queue_.empty()) {
      std::string key = std::move(queue_.front());
      queue_.pop_front();
      processing_.insert(key);
      dirty_.erase(key);
      return key;
    }
    if (shutting_down_) return std::nullopt;
    auto now = std::chrono::steady_clock::now();
    if (deadline && now >= *deadline) return std::nullopt;
    auto wake = now + std::chrono::steady_clock::duration(kIdleWait);
    if (!delayed_by_time_.empty()) {
      if (clock_->FollowsRealTime()) {
        // Sleep until the first delayed key is due (a sooner AddAfter
        // notifies), not a poll a second: idle controllers with a resync
        // key waiting cost nothing.
        const auto until_due =
            std::max(delayed_by_time_.begin()->first - clock_->Now(),
                     TimePoint::duration::zero());
        wake = std::min(
            wake, now + std::chrono::ceil<std::chrono::steady_clock::duration>(
                            until_due));
      } else {
        wake = std::min(wake,
                        now + std::chrono::steady_clock::duration(kClockPoll));
      }
    }
    if (deadline && *deadline < wake) wake = *deadline;
    cv_.wait_until(l, wake);
  }
}

std::optional<std::string> WorkQueue::Get() { return GetUntil(std::nullopt); }

std::optional<std::string> WorkQueue::TryGet(
    std::chrono::milliseconds timeout) {
  return GetUntil(std::chrono::steady_clock::now() + timeout);
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  processing_.erase(key);
  if (dirty_.count(key) && !shutting_down_) {
    queue_.push_back(key);
    cv_.notify_one();
  }
}

void WorkQueue::ShutDown() {
  std::lock_guard<std::mutex> l(mu_);
  shutting_down_ = true;
  cv_.notify_all();
}

bool WorkQueue::ShuttingDown() const {
  std::lock_guard<std::mutex> l(mu_);
  return shutting_down_;
}

size_t WorkQueue::Len() const {
  std::lock_guard<std::mutex> l(mu_);
  return queue_.size();
}

size_t WorkQueue::DelayedLen() const {
  std::lock_guard<std::mutex> l(mu_);
  return delayed_.size();
}

}  // namespace kmock::controllers
