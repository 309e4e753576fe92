#include "controllers/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace kmock::controllers {
namespace {

// Runs one failing sync per key (code by key), then successes, and returns
// what the pool wrote to stderr.
std::string LogOfFailures() {
  RealClock clock;
  WorkQueue queue(&clock, BackoffOptions{std::chrono::milliseconds(1),
                                         std::chrono::milliseconds(1)});
  std::atomic<int> calls{0};
  testing::internal::CaptureStderr();
  {
    WorkerPool pool("test-controller", &queue, 1,
                    [&](const std::string& key) -> Status {
                      if (calls++ >= 3) return Status::Ok();
                      if (key == "gone") return NotFoundError("gone");
                      if (key == "raced")
                        return Status(StatusCode::kConflict, "changed");
                      return InternalError("broken");
                    });
    queue.Add("gone");
    queue.Add("raced");
    queue.Add("broken");
    for (int i = 0; i < 500 && (calls < 6 || queue.Len() > 0); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return testing::internal::GetCapturedStderr();
}

// The routine races of a level-triggered loop (the object was deleted or
// changed under the sync) are retried without a log line; other failures
// are logged.
TEST(WorkerPoolTest, LogsFailuresButNotRoutineRaces) {
  std::string log = LogOfFailures();
  EXPECT_NE(log.find("test-controller: sync broken failed"), std::string::npos)
      << log;
  EXPECT_EQ(log.find("sync gone"), std::string::npos) << log;
  EXPECT_EQ(log.find("sync raced"), std::string::npos) << log;
}

}  // namespace
}  // namespace kmock::controllers
