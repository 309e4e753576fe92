#include "controllers/event_sink.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace kmock::controllers {
namespace {

using std::chrono::milliseconds;

TEST(EventSinkTest, FlushReturnsOnceEverySubmittedWriteIsMade) {
  EventSink sink(EventSinkOptions{.writers = 3, .max_queued = 100});
  std::mutex mu;
  std::set<int> written;
  for (int i = 0; i < 50; ++i) {
    sink.Submit([&, i] {
      std::this_thread::sleep_for(milliseconds(1));
      std::lock_guard<std::mutex> l(mu);
      written.insert(i);
      return Status::Ok();
    });
  }
  sink.Flush();
  std::lock_guard<std::mutex> l(mu);
  EXPECT_EQ(written.size(), 50u);
}

TEST(EventSinkTest, WritesRunOnSeveralThreadsAtOnce) {
  // Writes that overlap are what lets the store commit them together.
  EventSink sink(EventSinkOptions{.writers = 4, .max_queued = 100});
  std::atomic<int> running{0}, most{0};
  for (int i = 0; i < 16; ++i) {
    sink.Submit([&] {
      int now = ++running;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(milliseconds(20));
      --running;
      return Status::Ok();
    });
  }
  sink.Flush();
  EXPECT_GE(most.load(), 2);
  EXPECT_LE(most.load(), 4);
}

TEST(EventSinkTest, SubmitWaitsForRoomInsteadOfDropping) {
  EventSink sink(EventSinkOptions{.writers = 1, .max_queued = 2});
  std::atomic<bool> release{false};
  std::atomic<int> done{0};
  // The writer holds the first; two more fill the queue.
  for (int i = 0; i < 3; ++i) {
    sink.Submit([&] {
      while (!release) std::this_thread::sleep_for(milliseconds(1));
      ++done;
      return Status::Ok();
    });
  }
  std::atomic<bool> fourth_queued{false};
  std::thread submitter([&] {
    sink.Submit([&] {
      ++done;
      return Status::Ok();
    });
    fourth_queued = true;
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(fourth_queued.load());
  release = true;
  submitter.join();
  sink.Flush();
  EXPECT_EQ(done.load(), 4);
}

TEST(EventSinkTest, StopMakesTheQueuedWritesAndLaterOnesRunInline) {
  std::atomic<int> done{0};
  EventSink sink(EventSinkOptions{.writers = 1, .max_queued = 100});
  for (int i = 0; i < 20; ++i) {
    sink.Submit([&] {
      ++done;
      return Status::Ok();
    });
  }
  sink.Stop();
  EXPECT_EQ(done.load(), 20);
  std::thread::id ran_on;
  sink.Submit([&] {
    ran_on = std::this_thread::get_id();
    ++done;
    return Status::Ok();
  });
  EXPECT_EQ(done.load(), 21);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  sink.Stop();  // idempotent
}

TEST(EventSinkTest, CountsFailedWrites) {
  EventSink sink;
  sink.Submit([] { return Status(StatusCode::kInternal, "disk on fire"); });
  sink.Submit([] { return Status(StatusCode::kForbidden, "terminating"); });
  sink.Submit([] { return Status::Ok(); });
  sink.Flush();
  EXPECT_EQ(sink.FailedWrites(), 2u);
}

}  // namespace
}  // namespace kmock::controllers
