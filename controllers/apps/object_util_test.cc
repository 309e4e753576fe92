// The pod and owner helpers the workload controllers read objects with.
#include "controllers/apps/object_util.h"

#include <gtest/gtest.h>

namespace kmock::controllers::apps {
namespace {

TEST(ObjectUtilTest, ControllerRefIsTheOneMarkedControllerAndPointsIntoIt) {
  json pod = json::parse(R"({"metadata":{"ownerReferences":[
      {"uid":"a","controller":"yes"},
      {"uid":"b"},
      {"uid":"c","controller":true}]}})");
  const json* ref = ControllerRefOf(pod);
  ASSERT_NE(ref, nullptr);
  EXPECT_EQ((*ref)["uid"], "c");
  EXPECT_EQ(ref, &pod["metadata"]["ownerReferences"][2]);
  EXPECT_EQ(ControllerRefOf(json::parse(
                R"({"metadata":{"ownerReferences":[{"uid":"b"}]}})")),
            nullptr);
  EXPECT_EQ(ControllerRefOf(json::object()), nullptr);
}

TEST(ObjectUtilTest, ActiveAndReadyPods) {
  json pod = json::parse(R"({"metadata":{},"status":{"phase":"Running",
      "conditions":[{"type":"Initialized","status":"True"},
                    {"type":"Ready","status":"True"}]}})");
  EXPECT_TRUE(IsPodActive(pod));
  EXPECT_TRUE(IsPodReady(pod));
  pod["status"]["conditions"][1]["status"] = "False";
  EXPECT_FALSE(IsPodReady(pod));
  pod["status"]["conditions"][1]["status"] = true;  // not the string "True"
  EXPECT_FALSE(IsPodReady(pod));
  pod["status"]["phase"] = "Succeeded";
  EXPECT_FALSE(IsPodActive(pod));
  pod["status"]["phase"] = "Running";
  pod["metadata"]["deletionTimestamp"] = "2027-01-15T08:00:00Z";
  EXPECT_FALSE(IsPodActive(pod));
  EXPECT_TRUE(IsPodActive(json::object()));
  EXPECT_FALSE(IsPodReady(json::object()));
}

}  // namespace
}  // namespace kmock::controllers::apps
