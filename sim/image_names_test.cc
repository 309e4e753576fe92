#include "sim/image_names.h"

#include <gtest/gtest.h>

namespace kmock::sim {
namespace {

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
}  // namespace kmock::sim
