// ControlLoop: informers start before the workers and the sync sees them
// listed; Stop stops everything once, also for a loop never started;
// WaitForInformers fails for an informer that has not listed.
#include "controllers/control_loop.h"

#include <gtest/gtest.h>

#include <atomic>

#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

class ControlLoopTest : public testing::ControllerFixture {};

TEST_F(ControlLoopTest, InformersFirstThenWorkers) {
  Informer pods(registry_.get(), res_.pods);
  WorkQueue queue(&clock_);
  std::atomic<int> synced{0};
  std::atomic<bool> listed_first{true};
  ControlLoop loop("test", &queue, 1, [&](const std::string&) {
    if (!pods.HasSynced()) listed_first = false;
    ++synced;
    return WaitForInformers({&pods});
  });
  EXPECT_EQ(WaitForInformers({&pods}, std::chrono::milliseconds(1)).code(),
            StatusCode::kServiceUnavailable);
  loop.Start({&pods, nullptr});
  ASSERT_TRUE(pods.WaitForSync(std::chrono::seconds(5)));
  queue.Add("a");
  EXPECT_TRUE(Eventually([&] { return synced.load() == 1; }));
  EXPECT_TRUE(listed_first.load());
  EXPECT_TRUE(WaitForInformers({&pods}).ok());
  loop.Stop();
  loop.Stop();
}

TEST_F(ControlLoopTest, ANeverStartedLoopStopsNothing) {
  Informer pods(registry_.get(), res_.pods);
  WorkQueue queue(&clock_);
  ControlLoop loop("test", &queue, 1,
                   [](const std::string&) { return Status::Ok(); });
  loop.Stop();
  EXPECT_FALSE(pods.HasSynced());
}

}  // namespace
}  // namespace kmock::controllers
