#include "controllers/replicaset/pod_ranking.h"

#include <gtest/gtest.h>

#include "controllers/replicaset/status.h"

namespace kmock::controllers::replicaset {
namespace {

const TimePoint kNow = std::chrono::system_clock::from_time_t(1735725600);

json Pod(const std::string& name, const std::string& node,
         const std::string& phase, bool ready, int age_s) {
  std::string created = FormatRfc3339(kNow - std::chrono::seconds(age_s));
  json p = {{"metadata",
             {{"name", name}, {"uid", name}, {"creationTimestamp", created}}},
            {"spec", json::object()},
            {"status", {{"phase", phase}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  p["status"]["conditions"] = {{{"type", "Ready"},
                                {"status", ready ? "True" : "False"},
                                {"lastTransitionTime", created}}};
  return p;
}

std::vector<std::string> Names(const std::vector<json>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p["metadata"]["name"]);
  return out;
}

TEST(PodRanking, UpstreamOrder) {
  std::vector<json> pods = {
      Pod("running-old", "w1", "Running", true, 100000),
      Pod("running-new", "w2", "Running", true, 10),
      Pod("pending", "w1", "Pending", false, 100000),
      Pod("unscheduled", "", "Pending", false, 100000),
      Pod("notready", "w2", "Running", false, 100000),
  };
  EXPECT_EQ(Names(PodsToDelete(pods, pods, 4, kNow)),
            (std::vector<std::string>{"unscheduled", "pending", "notready",
                                      "running-new"}));
}

TEST(PodRanking, DoubledUpAndDeletionCostFirst) {
  std::vector<json> pods = {Pod("a", "w1", "Running", true, 1000),
                            Pod("b", "w2", "Running", true, 1000),
                            Pod("c", "w2", "Running", true, 1000)};
  // b and c share w2: one of them goes first.
  auto one = Names(PodsToDelete(pods, pods, 1, kNow));
  EXPECT_NE(one[0], "a");
  pods[0]["metadata"]["annotations"] = {
      {"controller.kubernetes.io/pod-deletion-cost", "-5"}};
  EXPECT_EQ(Names(PodsToDelete(pods, pods, 1, kNow))[0], "a");
}

TEST(ReplicaSetStatus, CountsAndAvailability) {
  json rs = {{"spec",
              {{"replicas", 3},
               {"minReadySeconds", 10},
               {"template", {{"metadata", {{"labels", {{"app", "web"}}}}}}}}},
             {"status", {{"replicas", 0}}}};
  std::vector<json> pods = {Pod("a", "w1", "Running", true, 100),
                            Pod("b", "w1", "Running", true, 5),
                            Pod("c", "w1", "Pending", false, 1)};
  pods[0]["metadata"]["labels"] = {{"app", "web"}};
  json st = CalculateStatus(rs, RefsOf(pods), std::nullopt, kNow);
  EXPECT_EQ(st["replicas"], 3);
  EXPECT_EQ(st["fullyLabeledReplicas"], 1);
  EXPECT_EQ(st["readyReplicas"], 2);
  EXPECT_EQ(st["availableReplicas"], 1);
  auto at = NextAvailableAt(rs, RefsOf(pods), kNow);
  ASSERT_TRUE(at);
  EXPECT_EQ(*at, kNow + std::chrono::seconds(5));
  json failed = CalculateStatus(rs, PodRefs{}, std::string("quota"), kNow);
  EXPECT_EQ(failed["conditions"][0]["reason"], "FailedCreate");
  EXPECT_EQ(failed["replicas"], 0);
  EXPECT_FALSE(failed.contains("readyReplicas"));
  rs["status"] = failed;
  EXPECT_FALSE(CalculateStatus(rs, PodRefs{}, std::nullopt, kNow)
                   .contains("conditions"));
}

}  // namespace
}  // namespace kmock::controllers::replicaset
