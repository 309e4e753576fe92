#include "controllers/ip_allocator.h"

#include <gtest/gtest.h>

#include <set>

namespace kmock::controllers {
namespace {

TEST(IpAllocatorTest, HandsOutInOrderAndDoesNotReuseAtOnce) {
  auto a = IpAllocator::Create("10.244.3.0/24");
  ASSERT_TRUE(a.ok());
  auto& ips = **a;
  EXPECT_EQ(*ips.Allocate(), "10.244.3.2");
  EXPECT_EQ(*ips.Allocate(), "10.244.3.3");
  ips.Release("10.244.3.2");
  EXPECT_EQ(*ips.Allocate(), "10.244.3.4");
  EXPECT_TRUE(ips.Contains("10.244.3.200"));
  EXPECT_FALSE(ips.Contains("10.244.4.1"));
}

TEST(IpAllocatorTest, NeverGivesAnAddressInUseAndReportsFull) {
  auto a = IpAllocator::Create("10.0.0.0/29");  // usable .2 - .6
  ASSERT_TRUE(a.ok());
  auto& ips = **a;
  ASSERT_TRUE(ips.Reserve("10.0.0.4").ok());
  std::set<std::string> got;
  for (int i = 0; i < 4; ++i) got.insert(*ips.Allocate());
  EXPECT_EQ(got, (std::set<std::string>{"10.0.0.2", "10.0.0.3", "10.0.0.5",
                                        "10.0.0.6"}));
  EXPECT_FALSE(ips.Allocate().ok());
  ips.Release("10.0.0.3");
  EXPECT_EQ(*ips.Allocate(), "10.0.0.3");
  EXPECT_FALSE(IpAllocator::Create("10.0.0.0").ok());
  EXPECT_FALSE(IpAllocator::Create("10.0.0.0/40").ok());
}

}  // namespace
}  // namespace kmock::controllers
