#include "store/periodic_compactor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kmock::store {
namespace {

TEST(PeriodicCompactorTest, CompactsToTheRevisionOfThePreviousTick) {
  int64_t current = 10;
  std::vector<int64_t> compacted;
  PeriodicCompactor c([&] { return current; },
                      [&](int64_t rev) {
                        compacted.push_back(rev);
                        return Status::Ok();
                      });
  ASSERT_TRUE(c.Tick().ok());  // records 10
  EXPECT_TRUE(compacted.empty());
  current = 25;
  ASSERT_TRUE(c.Tick().ok());  // compacts to 10, records 25
  current = 25;
  ASSERT_TRUE(c.Tick().ok());  // compacts to 25, records 25
  ASSERT_TRUE(c.Tick().ok());  // nothing new
  current = 40;
  ASSERT_TRUE(c.Tick().ok());  // nothing new (25 done), records 40
  ASSERT_TRUE(c.Tick().ok());  // compacts to 40
  EXPECT_EQ(compacted, (std::vector<int64_t>{10, 25, 40}));
}

TEST(PeriodicCompactorTest, RetriesAfterAFailureButNotAfterCompacted) {
  int64_t current = 5;
  std::vector<int64_t> calls;
  Status next = Status(StatusCode::kInternal, "disk");
  PeriodicCompactor c([&] { return current; },
                      [&](int64_t rev) {
                        calls.push_back(rev);
                        return next;
                      });
  ASSERT_TRUE(c.Tick().ok());
  EXPECT_EQ(c.Tick().code(), StatusCode::kInternal);  // 5 failed
  next = Status(StatusCode::kCompacted, "already");
  EXPECT_EQ(c.Tick().code(), StatusCode::kCompacted);  // 5 again
  ASSERT_TRUE(c.Tick().ok());                          // 5 counts as done
  EXPECT_EQ(calls, (std::vector<int64_t>{5, 5}));
}

}  // namespace
}  // namespace kmock::store
