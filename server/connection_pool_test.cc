#include "server/connection_pool.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace kmock::server {
namespace {

using namespace std::chrono_literals;

// A gate that tasks wait on until the test opens it.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [this] { return open_; });
  }
  void Open() {
    {
      std::lock_guard<std::mutex> l(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

template <typename F>
bool Eventually(F f, std::chrono::milliseconds timeout = 5s) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return f();
}

ConnectionPoolOptions Small(size_t warm, size_t max) {
  ConnectionPoolOptions o;
  o.warm_workers = warm;
  o.max_workers = max;
  o.idle_exit = 100ms;
  o.stack_bytes = 256 * 1024;
  return o;
}

TEST(ConnectionPoolTest, StartsOnlyTheWarmWorkers) {
  ConnectionPool pool(Small(2, 100));
  EXPECT_EQ(pool.threads(), 2u);
  EXPECT_EQ(pool.busy(), 0u);
}

TEST(ConnectionPoolTest, GrowsAThreadPerBusyTask) {
  ConnectionPool pool(Small(1, 100));
  Gate gate;
  std::atomic<int> running{0};
  for (int i = 0; i < 20; ++i) {
    pool.enqueue([&] {
      ++running;
      gate.Wait();
    });
  }
  // All 20 run at once: none waits behind another.
  EXPECT_TRUE(Eventually([&] { return running.load() == 20; }));
  EXPECT_EQ(pool.busy(), 20u);
  EXPECT_EQ(pool.threads(), 20u);
  EXPECT_EQ(pool.refused(), 0u);
  gate.Open();
  EXPECT_TRUE(Eventually([&] { return pool.busy() == 0; }));
}

TEST(ConnectionPoolTest, ReusesIdleWorkers) {
  ConnectionPool pool(Small(2, 100));
  for (int i = 0; i < 50; ++i) {
    std::promise<void> done;
    pool.enqueue([&] { done.set_value(); });
    done.get_future().wait();
    ASSERT_TRUE(Eventually([&] { return pool.busy() == 0; }));
  }
  EXPECT_EQ(pool.started_threads(), 2u);
}

TEST(ConnectionPoolTest, RefusesBeyondTheCapOnTheCallingThread) {
  ConnectionPool pool(Small(0, 3));
  Gate gate;
  std::atomic<int> running{0};
  for (int i = 0; i < 3; ++i) {
    pool.enqueue([&] {
      EXPECT_FALSE(ConnectionPool::CurrentTaskRefused());
      ++running;
      gate.Wait();
    });
  }
  ASSERT_TRUE(Eventually([&] { return running.load() == 3; }));
  bool ran = false, refused = false;
  std::thread::id ran_on;
  pool.enqueue([&] {
    ran = true;
    refused = ConnectionPool::CurrentTaskRefused();
    ran_on = std::this_thread::get_id();
  });
  // Run at once, on this thread, marked refused; nothing queued.
  EXPECT_TRUE(ran);
  EXPECT_TRUE(refused);
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_FALSE(ConnectionPool::CurrentTaskRefused());
  EXPECT_EQ(pool.refused(), 1u);
  EXPECT_EQ(pool.threads(), 3u);
  gate.Open();
  ASSERT_TRUE(Eventually([&] { return pool.busy() == 0; }));
  // Room again: the next task runs on a worker.
  std::promise<bool> next;
  pool.enqueue([&] { next.set_value(ConnectionPool::CurrentTaskRefused()); });
  EXPECT_FALSE(next.get_future().get());
  EXPECT_EQ(pool.refused(), 1u);
}

TEST(ConnectionPoolTest, SpareWorkersRetireWhenIdle) {
  ConnectionPool pool(Small(2, 100));
  Gate gate;
  for (int i = 0; i < 10; ++i) pool.enqueue([&] { gate.Wait(); });
  ASSERT_TRUE(Eventually([&] { return pool.threads() == 10; }));
  gate.Open();
  // idle_exit is 100ms: back to the warm workers, not below.
  EXPECT_TRUE(Eventually([&] { return pool.threads() == 2; }));
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(pool.threads(), 2u);
  // And it grows again.
  Gate again;
  std::atomic<int> running{0};
  for (int i = 0; i < 5; ++i)
    pool.enqueue([&] {
      ++running;
      again.Wait();
    });
  EXPECT_TRUE(Eventually([&] { return running.load() == 5; }));
  again.Open();
}

TEST(ConnectionPoolTest, ShutdownWaitsForRunningTasks) {
  auto pool = std::make_unique<ConnectionPool>(Small(1, 100));
  std::atomic<int> finished{0};
  std::atomic<int> started{0};
  for (int i = 0; i < 8; ++i) {
    pool->enqueue([&] {
      ++started;
      std::this_thread::sleep_for(200ms);
      ++finished;
    });
  }
  ASSERT_TRUE(Eventually([&] { return started.load() == 8; }));
  pool->shutdown();
  EXPECT_EQ(finished.load(), 8);
  EXPECT_EQ(pool->threads(), 0u);
  // After shutdown a task is refused, not lost.
  bool refused = false;
  pool->enqueue([&] { refused = ConnectionPool::CurrentTaskRefused(); });
  EXPECT_TRUE(refused);
  pool->shutdown();  // idempotent
  pool.reset();
}

TEST(ConnectionPoolTest, WorkersHaveTheRequestedStack) {
  ConnectionPoolOptions o = Small(0, 4);
  o.stack_bytes = 320 * 1024;
  ConnectionPool pool(o);
  std::promise<size_t> size;
  pool.enqueue([&] {
    pthread_attr_t attr;
    size_t bytes = 0;
    pthread_getattr_np(pthread_self(), &attr);
    pthread_attr_getstacksize(&attr, &bytes);
    pthread_attr_destroy(&attr);
    size.set_value(bytes);
  });
  size_t bytes = size.get_future().get();
  EXPECT_GE(bytes, 320u * 1024);
  EXPECT_LT(bytes, 1024u * 1024);
}

}  // namespace
}  // namespace kmock::server
