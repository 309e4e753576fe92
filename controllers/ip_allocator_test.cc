#include "controllers/ip_allocator.h"

#include <gtest/gtest.h>

#include <set>

#include "controllers/images.h"

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

TEST(ImagesTest, NormalisesLikeContainerd) {
  EXPECT_EQ(NormalizeImage("nginx"), "docker.io/library/nginx:latest");
  EXPECT_EQ(NormalizeImage("nginx:1.27"), "docker.io/library/nginx:1.27");
  EXPECT_EQ(NormalizeImage("bitnami/redis"), "docker.io/bitnami/redis:latest");
  EXPECT_EQ(NormalizeImage("registry.k8s.io/etcd:3.5.21-0"),
            "registry.k8s.io/etcd:3.5.21-0");
  EXPECT_EQ(NormalizeImage("localhost:5000/app"), "localhost:5000/app:latest");
  std::string id = ImageId("docker.io/library/nginx:latest");
  EXPECT_EQ(id.rfind("docker.io/library/nginx@sha256:", 0), 0u);
  EXPECT_EQ(id.size(),
            std::string("docker.io/library/nginx@sha256:").size() + 64);
  EXPECT_EQ(id, ImageId("docker.io/library/nginx:latest"));
  EXPECT_NE(id, ImageId("docker.io/library/nginx:1.27"));
  EXPECT_EQ(ImageSizeBytes("docker.io/library/nginx:latest"), 72099410);
  EXPECT_EQ(DefaultPullPolicy("nginx"), "Always");
  EXPECT_EQ(DefaultPullPolicy("nginx:1.27"), "IfNotPresent");
}

}  // namespace
}  // namespace kmock::controllers
