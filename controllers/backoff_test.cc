#include "controllers/backoff.h"

#include <gtest/gtest.h>

namespace kmock::controllers {
namespace {

using std::chrono::milliseconds;

TEST(BackoffTest, DoublesUpToTheCapWithJitterOnTop) {
  FakeClock clock(TimePoint{} + std::chrono::hours(1));
  Rng rng(7);
  Backoff b(BackoffPolicy{}, &clock, &rng);
  const int64_t base[] = {800,   1600,  3200,  6400, 12800,
                          25600, 30000, 30000, 30000};
  for (int64_t want : base) {
    milliseconds got = b.Next();
    EXPECT_GE(got.count(), want);
    EXPECT_LT(got.count(), 2 * want);
    clock.Advance(got);
  }
}

TEST(BackoffTest, WithoutJitterTheWaitsAreExact) {
  FakeClock clock(TimePoint{});
  Rng rng(1);
  BackoffPolicy p;
  p.jitter = 0;
  Backoff b(p, &clock, &rng);
  EXPECT_EQ(b.Next(), milliseconds(800));
  EXPECT_EQ(b.Next(), milliseconds(1600));
  EXPECT_EQ(b.Next(), milliseconds(3200));
}

TEST(BackoffTest, StartsOverAfterAQuietSpell) {
  FakeClock clock(TimePoint{});
  Rng rng(1);
  BackoffPolicy p;
  p.jitter = 0;
  Backoff b(p, &clock, &rng);
  EXPECT_EQ(b.Next(), milliseconds(800));
  clock.Advance(std::chrono::minutes(1));
  EXPECT_EQ(b.Next(), milliseconds(1600));  // still failing: keeps growing
  clock.Advance(std::chrono::minutes(2) + milliseconds(1));
  EXPECT_EQ(b.Next(), milliseconds(800));
}

TEST(BackoffTest, SameSeedSameWaits) {
  FakeClock clock(TimePoint{});
  Rng rng1(42), rng2(42);
  Backoff a(BackoffPolicy{}, &clock, &rng1), b(BackoffPolicy{}, &clock, &rng2);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(a.Next(), b.Next());
}

}  // namespace
}  // namespace kmock::controllers
