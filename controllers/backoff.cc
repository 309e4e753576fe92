#include "controllers/backoff.h"

#include <algorithm>

namespace kmock::controllers {

Backoff::Backoff(BackoffPolicy policy, const Clock* clock, Rng* rng)
    : policy_(policy), clock_(clock), rng_(rng), step_(policy.initial) {}

std::chrono::milliseconds Backoff::Next() {
  const TimePoint now = clock_->Now();
  if (!last_start_ || now - *last_start_ > policy_.reset_after) {
    step_ = policy_.initial;
  }
  last_start_ = now;
  const std::chrono::milliseconds wait = step_;
  step_ = std::min(policy_.max, std::chrono::milliseconds(static_cast<int64_t>(
                                    static_cast<double>(step_.count()) *
                                    std::max(1.0, policy_.factor))));
  if (policy_.jitter <= 0) return wait;
  constexpr uint64_t kSteps = 1 << 20;
  const double part = static_cast<double>(rng_->Uniform(kSteps)) / kSteps;
  return wait + std::chrono::milliseconds(static_cast<int64_t>(
                    part * policy_.jitter * static_cast<double>(wait.count())));
}

}  // namespace kmock::controllers
