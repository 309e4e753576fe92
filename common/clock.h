// Time comes in through a Clock so that tests and CI runs are deterministic.
//
// RealClock reads the system clock. FakeClock is set and advanced by tests
// and gives no notice when it moves: code that waits for a moment on a
// clock sleeps until it on a clock that follows real time and polls on
// one that does not (FollowsRealTime).
//
// Thread safety: both implementations are safe to use from many threads.
#ifndef KMOCK_COMMON_CLOCK_H_
#define KMOCK_COMMON_CLOCK_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace kmock {

using TimePoint = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
  // Whether Now() moves with real time, so that a wait for a moment of this
  // clock may sleep until it; false: it moves only when set (poll it).
  virtual bool FollowsRealTime() const { return false; }
};

class RealClock : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::system_clock::now(); }
  bool FollowsRealTime() const override { return true; }
};

class FakeClock : public Clock {
 public:
  explicit FakeClock(TimePoint start) : now_(start) {}
  TimePoint Now() const override {
    std::lock_guard<std::mutex> l(mu_);
    return now_;
  }
  void Set(TimePoint t) {
    std::lock_guard<std::mutex> l(mu_);
    now_ = t;
  }
  void Advance(std::chrono::nanoseconds d) {
    std::lock_guard<std::mutex> l(mu_);
    now_ += d;
  }

 private:
  mutable std::mutex mu_;
  TimePoint now_;
};

// RFC 3339 in UTC with whole seconds, as Kubernetes writes metav1.Time:
// "2026-11-30T06:27:27Z".
std::string FormatRfc3339(TimePoint t);
// RFC 3339 with microseconds, as metav1.MicroTime:
// "2026-11-30T06:27:27.123456Z".
std::string FormatRfc3339Micro(TimePoint t);
// RFC 3339 with nanoseconds and trailing zeros dropped, as Go's
// time.RFC3339Nano (the kubelet's log timestamps):
// "2026-11-30T06:27:27.1234Z", "2026-11-30T06:27:27Z".
std::string FormatRfc3339Nano(TimePoint t);
// Parses both forms above (and a numeric offset). Returns false on bad input.
bool ParseRfc3339(const std::string& s, TimePoint* out);

// kubectl's human duration ("5s", "3m2s", "2d", "10h") used in AGE columns.
std::string HumanDuration(std::chrono::seconds d);

}  // namespace kmock

#endif  // KMOCK_COMMON_CLOCK_H_
