#include "controllers/work_queue.h"

#include <gtest/gtest.h>

#include <thread>

namespace kmock::controllers {
namespace {

using std::chrono::milliseconds;

TimePoint T0() { return std::chrono::system_clock::from_time_t(1700000000); }

TEST(WorkQueueTest, DeduplicatesWaitingKeys) {
  FakeClock clock(T0());
  WorkQueue q(&clock);
  q.Add("a");
  q.Add("b");
  q.Add("a");
  EXPECT_EQ(q.Len(), 2u);
  EXPECT_EQ(*q.TryGet(milliseconds(10)), "a");
  EXPECT_EQ(*q.TryGet(milliseconds(10)), "b");
  EXPECT_FALSE(q.TryGet(milliseconds(10)).has_value());
}

TEST(WorkQueueTest, KeyAddedWhileProcessingComesBackAfterDone) {
  FakeClock clock(T0());
  WorkQueue q(&clock);
  q.Add("a");
  auto k = q.TryGet(milliseconds(10));
  ASSERT_EQ(*k, "a");
  q.Add("a");
  // Not handed to a second worker while the first holds it.
  EXPECT_FALSE(q.TryGet(milliseconds(10)).has_value());
  q.Done("a");
  EXPECT_EQ(*q.TryGet(milliseconds(10)), "a");
  q.Done("a");
  EXPECT_FALSE(q.TryGet(milliseconds(10)).has_value());
}

TEST(WorkQueueTest, AddAfterWaitsForTheFakeClock) {
  FakeClock clock(T0());
  WorkQueue q(&clock);
  q.AddAfter("a", std::chrono::seconds(5));
  EXPECT_FALSE(q.TryGet(milliseconds(20)).has_value());
  EXPECT_EQ(q.DelayedLen(), 1u);
  clock.Advance(std::chrono::seconds(4));
  EXPECT_FALSE(q.TryGet(milliseconds(20)).has_value());
  clock.Advance(std::chrono::seconds(1));
  EXPECT_EQ(*q.TryGet(milliseconds(100)), "a");
}

TEST(WorkQueueTest, EarlierDeadlineWinsAndAddCancelsDelay) {
  FakeClock clock(T0());
  WorkQueue q(&clock);
  q.AddAfter("a", std::chrono::seconds(10));
  q.AddAfter("a", std::chrono::seconds(1));
  clock.Advance(std::chrono::seconds(1));
  EXPECT_EQ(*q.TryGet(milliseconds(100)), "a");
  q.Done("a");
  q.AddAfter("b", std::chrono::seconds(10));
  q.Add("b");
  EXPECT_EQ(*q.TryGet(milliseconds(10)), "b");
  EXPECT_EQ(q.DelayedLen(), 0u);
}

TEST(WorkQueueTest, ManyDelayedKeysComeDueInTimeOrder) {
  FakeClock clock(T0());
  WorkQueue q(&clock);
  // Keys whose name order is not their time order, some moved earlier.
  for (int i = 0; i < 1000; ++i) {
    q.AddAfter("k" + std::to_string(i), std::chrono::seconds(1000 - i));
  }
  q.AddAfter("k0", std::chrono::seconds(1));    // earlier: wins
  q.AddAfter("k999", std::chrono::seconds(5));  // later: ignored
  q.Add("k500");                                // now: no longer delayed
  EXPECT_EQ(q.DelayedLen(), 999u);
  EXPECT_EQ(*q.TryGet(milliseconds(10)), "k500");
  q.Done("k500");
  clock.Advance(std::chrono::seconds(1));  // both due at 1 s: key order
  EXPECT_EQ(*q.TryGet(milliseconds(50)), "k0");
  EXPECT_EQ(*q.TryGet(milliseconds(50)), "k999");
  EXPECT_FALSE(q.TryGet(milliseconds(10)).has_value());
  clock.Advance(std::chrono::seconds(3));  // t = 4 s: k996 .. k998 due
  EXPECT_EQ(*q.TryGet(milliseconds(50)), "k998");
  EXPECT_EQ(*q.TryGet(milliseconds(50)), "k997");
  EXPECT_EQ(*q.TryGet(milliseconds(50)), "k996");
  EXPECT_FALSE(q.TryGet(milliseconds(10)).has_value());
  EXPECT_EQ(q.DelayedLen(), 994u);
}

TEST(WorkQueueTest, RateLimitedBacksOffExponentially) {
  FakeClock clock(T0());
  WorkQueue q(&clock, BackoffOptions{milliseconds(100), milliseconds(1000)});
  q.AddRateLimited("a");  // 100ms
  EXPECT_EQ(q.NumRequeues("a"), 1);
  clock.Advance(milliseconds(100));
  ASSERT_EQ(*q.TryGet(milliseconds(100)), "a");
  q.Done("a");
  q.AddRateLimited("a");  // 200ms
  clock.Advance(milliseconds(150));
  EXPECT_FALSE(q.TryGet(milliseconds(20)).has_value());
  clock.Advance(milliseconds(50));
  ASSERT_EQ(*q.TryGet(milliseconds(100)), "a");
  q.Done("a");
  q.Forget("a");
  EXPECT_EQ(q.NumRequeues("a"), 0);
}

TEST(WorkQueueTest, ShutDownWakesBlockedGet) {
  FakeClock clock(T0());
  WorkQueue q(&clock);
  std::optional<std::string> got = "unset";
  std::thread t([&] { got = q.Get(); });
  std::this_thread::sleep_for(milliseconds(20));
  q.ShutDown();
  t.join();
  EXPECT_FALSE(got.has_value());
  q.Add("late");
  EXPECT_EQ(q.Len(), 0u);
}

}  // namespace
}  // namespace kmock::controllers
