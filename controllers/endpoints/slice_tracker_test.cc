#include "controllers/endpoints/slice_tracker.h"

#include <gtest/gtest.h>

namespace kmock::controllers::endpoints {
namespace {

ObjectPtr Slice(const std::string& name, const std::string& rv) {
  return std::make_shared<const json>(
      json{{"metadata", {{"name", name}, {"resourceVersion", rv}}}});
}

TEST(SliceTrackerTest, ACacheWithoutTheCreatedSliceIsStale) {
  SliceTracker tracker;
  tracker.Wrote("default/web", *Slice("web-abcde", "7"));
  EXPECT_TRUE(tracker.Stale("default/web", {}));
  EXPECT_TRUE(tracker.Stale("default/web", {Slice("web-abcde", "6")}));
  EXPECT_FALSE(tracker.Stale("default/web", {Slice("web-abcde", "7")}));
  // Caught up: the write is forgotten, an older view no longer matters.
  EXPECT_FALSE(tracker.Stale("default/web", {}));
}

TEST(SliceTrackerTest, ADeletedSliceStillCachedIsStale) {
  SliceTracker tracker;
  tracker.Deleted("default/web", "web-abcde");
  EXPECT_TRUE(tracker.Stale("default/web", {Slice("web-abcde", "7")}));
  EXPECT_FALSE(tracker.Stale("default/web", {Slice("web-fghij", "8")}));
}

TEST(SliceTrackerTest, ServicesAreTrackedApart) {
  SliceTracker tracker;
  tracker.Wrote("default/web", *Slice("web-abcde", "7"));
  EXPECT_FALSE(tracker.Stale("default/api", {}));
  EXPECT_FALSE(tracker.Stale("other/web", {}));
  tracker.Forget("default/web");
  EXPECT_FALSE(tracker.Stale("default/web", {}));
}

TEST(SliceTrackerTest, GivesUpOnAWriteTheCacheNeverShows) {
  SliceTracker tracker;
  tracker.Wrote("default/web", *Slice("web-abcde", "7"));
  int stale = 0;
  while (tracker.Stale("default/web", {}) && stale < 100) ++stale;
  EXPECT_GT(stale, 1);
  EXPECT_LT(stale, 100);
}

}  // namespace
}  // namespace kmock::controllers::endpoints
