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

TEST(HealthTest, AHealthyStartedServerIsReady) {
  HealthAnswer a = AnswerHealth("/readyz", false, true, Status::Ok());
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.body, "ok");
  a = AnswerHealth("/readyz", true, true, Status::Ok());
  EXPECT_EQ(a.body, "[+]ping ok\n[+]log ok\n[+]etcd ok\nreadyz check passed\n");
  EXPECT_EQ(AnswerHealth("/readyz", false, false, Status::Ok()).status, 500);
}

// A damaged store (or one refusing writes) fails readiness and health as
// kube-apiserver's etcd check does; the check's own path says why.
TEST(HealthTest, AnUnhealthyStoreFailsReadiness) {
  Status damaged(StatusCode::kServiceUnavailable,
                 "reading a key: damaged store: Corruption: block checksum "
                 "mismatch");
  HealthAnswer a = AnswerHealth("/readyz", false, true, damaged);
  EXPECT_EQ(a.status, 500);
  EXPECT_EQ(a.body,
            "[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n"
            "readyz check failed\n");
  a = AnswerHealth("/readyz/etcd", false, true, damaged);
  EXPECT_EQ(a.status, 500);
  EXPECT_EQ(a.body, "internal server error: " + damaged.message() + "\n");
  EXPECT_EQ(AnswerHealth("/healthz", false, true, damaged).status, 500);
  EXPECT_EQ(AnswerHealth("/readyz/ping", false, true, damaged).status, 200);
  // Restarting the process does not mend the store: still live.
  EXPECT_EQ(AnswerHealth("/livez", false, true, damaged).status, 200);
}

}  // namespace
}  // namespace kmock::server
