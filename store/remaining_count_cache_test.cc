#include "store/remaining_count_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace kmock::store {
namespace {

TEST(RemainingCountCacheTest, CountFollowsTheKeyAfterThePage) {
  RemainingCountCache cache(10);
  int owner = 0;
  cache.Put(&owner, "/p/", 7, "/p/b", 42);
  EXPECT_EQ(cache.CountFrom(&owner, "/p/", 7, std::string("/p/b\0", 5)), 42);
  EXPECT_EQ(cache.CountFrom(&owner, "/p/", 7, "/p/b\x01"), 42);
  // Any other start key, revision, prefix or store is unknown.
  EXPECT_EQ(cache.CountFrom(&owner, "/p/", 7, "/p/b"), std::nullopt);
  EXPECT_EQ(cache.CountFrom(&owner, "/p/", 7, "/p/c\x01"), std::nullopt);
  EXPECT_EQ(cache.CountFrom(&owner, "/p/", 8, "/p/b\x01"), std::nullopt);
  EXPECT_EQ(cache.CountFrom(&owner, "/p", 7, "/p/b\x01"), std::nullopt);
  int other = 0;
  EXPECT_EQ(cache.CountFrom(&other, "/p/", 7, "/p/b\x01"), std::nullopt);
  EXPECT_EQ(cache.CountFrom(&owner, "/p/", 7, ""), std::nullopt);
}

TEST(RemainingCountCacheTest, DropsOldestBeyondCapacityAndForgetsAnOwner) {
  RemainingCountCache cache(2);
  int a = 0, b = 0;
  cache.Put(&a, "/p/", 1, "/p/1", 1);
  cache.Put(&b, "/p/", 1, "/p/2", 2);
  cache.Put(&a, "/p/", 1, "/p/2", 3);  // evicts the first entry
  EXPECT_EQ(cache.SizeForTest(), 2u);
  EXPECT_EQ(cache.CountFrom(&a, "/p/", 1, "/p/1\x01"), std::nullopt);
  EXPECT_EQ(cache.CountFrom(&b, "/p/", 1, "/p/2\x01"), 2);
  EXPECT_EQ(cache.CountFrom(&a, "/p/", 1, "/p/2\x01"), 3);
  cache.Put(&a, "/p/", 1, "/p/2", 4);  // replaces without growing
  EXPECT_EQ(cache.SizeForTest(), 2u);
  EXPECT_EQ(cache.CountFrom(&a, "/p/", 1, "/p/2\x01"), 4);
  cache.Forget(&a);
  EXPECT_EQ(cache.SizeForTest(), 1u);
  EXPECT_EQ(cache.CountFrom(&a, "/p/", 1, "/p/2\x01"), std::nullopt);
  EXPECT_EQ(cache.CountFrom(&b, "/p/", 1, "/p/2\x01"), 2);
  cache.Put(&a, "/p/", 1, "/p/3", 5);
  cache.Put(&a, "/p/", 1, "/p/4", 6);  // evicts b's entry, not a stale one
  EXPECT_EQ(cache.SizeForTest(), 2u);
  EXPECT_EQ(cache.CountFrom(&a, "/p/", 1, "/p/3\x01"), 5);
}

}  // namespace
}  // namespace kmock::store
