#include "common/run_concurrently.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace kmock {
namespace {

TEST(RunConcurrentlyTest, CallsEveryIndexOnceFromSeveralThreads) {
  std::vector<std::atomic<int>> calls(100);
  std::mutex mu;
  std::set<std::thread::id> threads;
  RunConcurrently(calls.size(), 4, [&](size_t k) {
    calls[k]++;
    // Long enough that the helpers take some of the calls.
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::lock_guard<std::mutex> l(mu);
    threads.insert(std::this_thread::get_id());
  });
  for (size_t k = 0; k < calls.size(); ++k) EXPECT_EQ(calls[k], 1) << k;
  EXPECT_GT(threads.size(), 1u);
  EXPECT_LE(threads.size(), 4u);
}

TEST(RunConcurrentlyTest, OneThreadOrNoWorkRunsInline) {
  std::set<std::thread::id> threads;
  RunConcurrently(5, 1,
                  [&](size_t) { threads.insert(std::this_thread::get_id()); });
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
  int calls = 0;
  RunConcurrently(0, 8, [&](size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace kmock
