// Backoff: the waits between retries of a failing loop, as client-go's
// reflector spaces its list-and-watch attempts
// (wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0)): the first
// wait is `initial`, each later one `factor` times the one before, at most
// `max`, each stretched by a random part of itself (up to `jitter` times
// it, so 800 ms becomes 0.8-1.6 s) so that loops failing together do not
// retry together. When more than `reset_after` has passed since the last
// wait began, the next starts again at `initial`: a loop that failed once
// after a long healthy run retries soon, one that keeps failing slows down.
//
// Thread safety: not thread-safe; one loop owns a Backoff. The clock and
// the random source are shared and thread-safe.
#ifndef KMOCK_CONTROLLERS_BACKOFF_H_
#define KMOCK_CONTROLLERS_BACKOFF_H_

#include <chrono>
#include <optional>

#include "common/clock.h"
#include "common/rng.h"

namespace kmock::controllers {

struct BackoffPolicy {
  std::chrono::milliseconds initial{800};
  std::chrono::milliseconds max{std::chrono::seconds(30)};
  double factor = 2.0;
  double jitter = 1.0;
  std::chrono::milliseconds reset_after{std::chrono::minutes(2)};
};

class Backoff {
 public:
  // clock and rng are not owned and must outlive the Backoff.
  Backoff(BackoffPolicy policy, const Clock* clock, Rng* rng);

  // How long to wait before the next attempt, starting that wait now.
  std::chrono::milliseconds Next();

 private:
  const BackoffPolicy policy_;
  const Clock* const clock_;
  Rng* const rng_;
  std::chrono::milliseconds step_;       // the next wait before jitter
  std::optional<TimePoint> last_start_;  // when the last wait began
};

}  // namespace kmock::controllers

#endif  // KMOCK_CONTROLLERS_BACKOFF_H_
