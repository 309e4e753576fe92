#include "server/health.h"

#include <gtest/gtest.h>

namespace kmock::server {
namespace {

TEST(HealthTest, VersionBodyIsIndentedInFieldOrder) {
  EXPECT_EQ(VersionBody("1.33.0"),
            "{\n"
            "  \"major\": \"1\",\n"
            "  \"minor\": \"33\",\n"
            "  \"gitVersion\": \"v1.33.0\",\n"
            "  \"gitCommit\": \"0000000000000000000000000000000000000000\",\n"
            "  \"gitTreeState\": \"clean\",\n"
            "  \"buildDate\": \"2025-01-01T00:00:00Z\",\n"
            "  \"goVersion\": \"go1.24.0\",\n"
            "  \"compiler\": \"gc\",\n"
            "  \"platform\": \"linux/amd64\"\n"
            "}");
}

TEST(HealthTest, HealthPaths) {
  EXPECT_TRUE(IsHealthPath("/readyz"));
  EXPECT_TRUE(IsHealthPath("/livez/ping"));
  EXPECT_FALSE(IsHealthPath("/readyzz"));
  EXPECT_EQ(HealthBody("/healthz", false), "ok");
}

}  // namespace
}  // namespace kmock::server
