#include "controllers/deployment/rollout_math.h"

#include <gtest/gtest.h>

#include "controllers/deployment/conditions.h"
#include "controllers/deployment/revision.h"

namespace kmock::controllers::deployment {
namespace {

json Deploy(int replicas, json surge, json unavailable) {
  return {{"metadata", {{"name", "web"}, {"generation", 1}}},
          {"spec",
           {{"replicas", replicas},
            {"strategy",
             {{"type", "RollingUpdate"},
              {"rollingUpdate",
               {{"maxSurge", surge}, {"maxUnavailable", unavailable}}}}}}}};
}

json RS(const std::string& name, int replicas, int available,
        const std::string& created, json annotations = json::object()) {
  return {
      {"metadata",
       {{"name", name},
        {"uid", name + "-uid"},
        {"creationTimestamp", created},
        {"annotations", annotations}}},
      {"spec", {{"replicas", replicas}}},
      {"status", {{"replicas", replicas}, {"availableReplicas", available}}}};
}

TEST(RolloutMath, PercentRounding) {
  EXPECT_EQ(ScaledValue("25%", 10, true), 3);
  EXPECT_EQ(ScaledValue("25%", 10, false), 2);
  EXPECT_EQ(ScaledValue(2, 10, false), 2);
  EXPECT_EQ(ScaledValue("x%", 10, false), std::nullopt);
  auto f = ResolveFenceposts("25%", "25%", 3);
  EXPECT_EQ(f.surge, 1);
  EXPECT_EQ(f.unavailable, 0);
  f = ResolveFenceposts(0, "10%", 3);  // both zero: one may be unavailable
  EXPECT_EQ(f.surge, 0);
  EXPECT_EQ(f.unavailable, 1);
}

TEST(RolloutMath, MaxUnavailableCappedAndZeroForRecreate) {
  EXPECT_EQ(MaxUnavailable(Deploy(2, 0, 5)), 2);
  json r = Deploy(3, 1, 1);
  r["spec"]["strategy"] = {{"type", "Recreate"}};
  EXPECT_EQ(MaxUnavailable(r), 0);
  EXPECT_EQ(MaxSurge(r), 0);
  EXPECT_EQ(NewReplicaSetReplicas(r, {}, RS("n", 0, 0, "")), 3);
}

TEST(RolloutMath, NewReplicaSetGrowsWithinSurge) {
  json d = Deploy(10, "25%", "25%");  // surge 3
  json old_rs = RS("old", 10, 10, "2025-01-01T00:00:00Z");
  json new_rs = RS("new", 0, 0, "2025-01-02T00:00:00Z");
  EXPECT_EQ(NewReplicaSetReplicas(d, {old_rs, new_rs}, new_rs), 3);
  new_rs["spec"]["replicas"] = 3;
  EXPECT_EQ(NewReplicaSetReplicas(d, {old_rs, new_rs}, new_rs), 3);
  old_rs["spec"]["replicas"] = 2;
  EXPECT_EQ(NewReplicaSetReplicas(d, {old_rs, new_rs}, new_rs), 10);
  // min available 8; 13 pods, new unavailable 3: 2 old may go.
  old_rs["spec"]["replicas"] = 10;
  EXPECT_EQ(MaxScaledDown(d, {old_rs, new_rs}, new_rs), 2);
}

TEST(RolloutMath, ProportionalScalingSharesByMaxReplicas) {
  // 10 replicas mid-rollout (surge 3): old 8, new 5, scaled to 20 (surge 5).
  json d = Deploy(20, "25%", "25%");
  json ann = {{kMaxReplicasAnnotation, "13"}};
  std::vector<json> active = {RS("old", 8, 8, "2025-01-01T00:00:00Z", ann),
                              RS("new", 5, 0, "2025-01-02T00:00:00Z", ann)};
  auto sizes = ProportionalSizes(d, &active);
  EXPECT_EQ(sizes["old"] + sizes["new"], 25);
  EXPECT_EQ(sizes["old"], 15);  // round(8*25/13)=15
  EXPECT_EQ(sizes["new"], 10);  // round(5*25/13)=10
  // Scaling down to 0 empties both.
  json z = Deploy(0, "25%", "25%");
  sizes = ProportionalSizes(z, &active);
  EXPECT_EQ(sizes["old"], 0);
  EXPECT_EQ(sizes["new"], 0);
}

TEST(RolloutMath, ActiveOrLatest) {
  json a = RS("a", 0, 0, "2025-01-01T00:00:00Z");
  json b = RS("b", 0, 0, "2025-01-02T00:00:00Z");
  auto r = FindActiveOrLatest(std::nullopt, {a, b});
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["metadata"]["name"], "b");
  a["spec"]["replicas"] = 2;
  r = FindActiveOrLatest(b, {a});
  EXPECT_EQ((*r)["metadata"]["name"], "a");
  b["spec"]["replicas"] = 1;
  EXPECT_FALSE(FindActiveOrLatest(b, {a}));
}

TEST(Revision, AnnotationsAndRollback) {
  json d = Deploy(3, 1, 0);
  d["metadata"]["annotations"] = {
      {"team", "a"},
      {"kubectl.kubernetes.io/last-applied-configuration", "{}"}};
  json rs = RS("web-1", 0, 0, "");
  EXPECT_TRUE(SetNewReplicaSetAnnotations(d, &rs, "1", false));
  const json& a = rs["metadata"]["annotations"];
  EXPECT_EQ(a[kRevisionAnnotation], "1");
  EXPECT_EQ(a[kDesiredReplicasAnnotation], "3");
  EXPECT_EQ(a[kMaxReplicasAnnotation], "4");
  EXPECT_EQ(a["team"], "a");
  EXPECT_FALSE(a.contains("kubectl.kubernetes.io/last-applied-configuration"));
  EXPECT_FALSE(SetNewReplicaSetAnnotations(d, &rs, "1", true));
  // Rolled back to: revision 3, history "1".
  EXPECT_TRUE(SetNewReplicaSetAnnotations(d, &rs, "3", true));
  EXPECT_EQ(rs["metadata"]["annotations"][kRevisionAnnotation], "3");
  EXPECT_EQ(rs["metadata"]["annotations"][kRevisionHistoryAnnotation], "1");
  EXPECT_EQ(Revision(rs), 3);
  EXPECT_EQ(MaxRevision({rs, RS("x", 0, 0, "")}), 3);
}

TEST(Revision, TemplateEqualityIgnoresHash) {
  json t1 = {{"metadata", {{"labels", {{"app", "web"}}}}},
             {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}};
  json t2 = t1;
  t2["metadata"]["labels"][kPodTemplateHashLabel] = "abc";
  t2["metadata"]["creationTimestamp"] = nullptr;
  EXPECT_TRUE(EqualIgnoreHash(t1, t2));
  t2["spec"]["containers"][0]["image"] = "nginx:1.27";
  EXPECT_FALSE(EqualIgnoreHash(t1, t2));
}

TEST(Revision, TemplateEqualityEdges) {
  const json spec = {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}};
  const json bare = {{"spec", spec}};
  // Metadata left empty by dropping the hash, the time and empty
  // annotations counts as none.
  json t = bare;
  t["metadata"] = {{"labels", {{kPodTemplateHashLabel, "abc"}}},
                   {"annotations", json::object()},
                   {"creationTimestamp", nullptr}};
  EXPECT_TRUE(EqualIgnoreHash(bare, t));
  EXPECT_TRUE(EqualIgnoreHash(t, bare));
  t["metadata"]["labels"] = json::object();
  EXPECT_TRUE(EqualIgnoreHash(bare, t));
  // Anything else in it counts.
  t["metadata"]["annotations"] = {{"a", "1"}};
  EXPECT_FALSE(EqualIgnoreHash(bare, t));
  json u = bare;
  u["metadata"] = {{"annotations", {{"a", "1"}}},
                   {"labels", {{kPodTemplateHashLabel, "zzz"}}}};
  EXPECT_TRUE(EqualIgnoreHash(t, u));
  u["metadata"]["labels"]["tier"] = "web";
  EXPECT_FALSE(EqualIgnoreHash(t, u));
  t["metadata"]["labels"]["tier"] = "web";
  EXPECT_TRUE(EqualIgnoreHash(t, u));
  t["metadata"]["labels"]["tier"] = "db";
  EXPECT_FALSE(EqualIgnoreHash(t, u));
  // Members compare whole, whatever their order of insertion.
  json x = {{"spec", spec}, {"metadata", {{"name", "n"}}}};
  json y = {{"metadata", {{"name", "n"}}}, {"spec", spec}};
  EXPECT_TRUE(EqualIgnoreHash(x, y));
  y["extra"] = 1;
  EXPECT_FALSE(EqualIgnoreHash(x, y));
  // A non-object template is an empty one; non-object metadata compares
  // as it is.
  EXPECT_TRUE(EqualIgnoreHash(json(nullptr), json::object()));
  EXPECT_FALSE(EqualIgnoreHash(json(nullptr), bare));
  x["metadata"] = "odd";
  y = x;
  EXPECT_TRUE(EqualIgnoreHash(x, y));
  y["metadata"] = json::array();
  EXPECT_FALSE(EqualIgnoreHash(x, y));
}

TEST(Revision, NewReplicaSetIsTheOldestMatch) {
  json d = Deploy(3, 1, 0);
  d["spec"]["template"] = {
      {"metadata", {{"labels", {{"app", "web"}}}}},
      {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}};
  json tmpl = d["spec"]["template"];
  json a = RS("b-later", 0, 0, "2025-01-02T00:00:00Z");
  json b = RS("a-earlier", 0, 0, "2025-01-01T00:00:00Z");
  json c = RS("c-other", 0, 0, "2024-12-31T00:00:00Z");
  a["spec"]["template"] = tmpl;
  b["spec"]["template"] = tmpl;
  b["spec"]["template"]["metadata"]["labels"][kPodTemplateHashLabel] = "h";
  c["spec"]["template"] = tmpl;
  c["spec"]["template"]["spec"]["containers"][0]["image"] = "other";
  auto found = FindNewReplicaSet(d, {a, c, b});
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ((*found)["metadata"]["name"], "a-earlier");
  // Same time: the first by name.
  b["metadata"]["creationTimestamp"] = "2025-01-02T00:00:00Z";
  found = FindNewReplicaSet(d, {a, b});
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ((*found)["metadata"]["name"], "a-earlier");
  EXPECT_FALSE(FindNewReplicaSet(d, {c}).has_value());
}

TEST(Revision, HistoryCleanupOldestFirstOnlyEmpty) {
  json d = Deploy(3, 1, 0);
  d["spec"]["revisionHistoryLimit"] = 1;
  std::vector<json> old;
  for (int i = 1; i <= 4; ++i) {
    json rs = RS("r" + std::to_string(i), 0, 0, "2025-01-01T00:00:00Z",
                 {{kRevisionAnnotation, std::to_string(i)}});
    old.push_back(rs);
  }
  old[1]["spec"]["replicas"] = 1;  // r2 still has pods: kept
  EXPECT_EQ(HistoryToDelete(d, old), (std::vector<std::string>{"r1", "r3"}));
  d["spec"]["revisionHistoryLimit"] = 10;
  EXPECT_TRUE(HistoryToDelete(d, old).empty());
}

TEST(Conditions, ProgressingTransitionsAndDeadline) {
  TimePoint t0 = std::chrono::system_clock::from_time_t(1735725600);
  json d = Deploy(2, 1, 0);
  d["spec"]["progressDeadlineSeconds"] = 600;
  json new_rs = RS("web-1", 2, 0, "2025-01-01T00:00:00Z");
  new_rs["status"]["replicas"] = 0;
  d["status"] = json::object();
  SetCondition(&d["status"], NewCondition("Progressing", "True", kNewRSReason,
                                          "Created", t0));
  // No pods yet: Available False, Progressing unchanged.
  json st = RolloutStatus({new_rs}, new_rs, d, t0);
  EXPECT_EQ((*GetCondition(st, "Available"))["reason"],
            "MinimumReplicasUnavailable");
  EXPECT_EQ((*GetCondition(st, "Progressing"))["reason"], kNewRSReason);
  // Pods created: progressing, lastTransitionTime kept.
  new_rs["status"]["replicas"] = 2;
  TimePoint t1 = t0 + std::chrono::seconds(5);
  json st2 = RolloutStatus({new_rs}, new_rs, d, t1);
  const json* p = GetCondition(st2, "Progressing");
  EXPECT_EQ((*p)["reason"], kRSUpdatedReason);
  EXPECT_EQ((*p)["message"], "ReplicaSet \"web-1\" is progressing.");
  EXPECT_EQ((*p)["lastTransitionTime"], FormatRfc3339(t0));
  EXPECT_EQ((*p)["lastUpdateTime"], FormatRfc3339(t1));
  // Nothing more happens: times out after the deadline.
  d["status"] = st2;
  auto after = StuckRequeue(d, st2, t1);
  ASSERT_TRUE(after);
  EXPECT_EQ(*after, std::chrono::seconds(601));
  json st3 = RolloutStatus({new_rs}, new_rs, d, t1 + std::chrono::seconds(601));
  p = GetCondition(st3, "Progressing");
  EXPECT_EQ((*p)["status"], "False");
  EXPECT_EQ((*p)["reason"], kTimedOutReason);
  EXPECT_EQ((*p)["message"], "ReplicaSet \"web-1\" has timed out progressing.");
  // All available: complete.
  new_rs["status"]["availableReplicas"] = 2;
  json st4 = RolloutStatus({new_rs}, new_rs, d, t1);
  EXPECT_EQ((*GetCondition(st4, "Progressing"))["reason"],
            kNewRSAvailableReason);
  EXPECT_EQ((*GetCondition(st4, "Available"))["message"],
            "Deployment has minimum availability.");
  EXPECT_EQ(st4["updatedReplicas"], 2);
  EXPECT_FALSE(st4.contains("unavailableReplicas"));
}

TEST(Conditions, PausedAndResumed) {
  TimePoint t0 = std::chrono::system_clock::from_time_t(1735725600);
  json d = Deploy(2, 1, 0);
  d["spec"]["progressDeadlineSeconds"] = 600;
  d["spec"]["paused"] = true;
  EXPECT_TRUE(CheckPausedConditions(&d, t0));
  EXPECT_EQ((*GetCondition(d["status"], "Progressing"))["reason"],
            kPausedReason);
  EXPECT_FALSE(CheckPausedConditions(&d, t0));
  d["spec"]["paused"] = false;
  EXPECT_TRUE(CheckPausedConditions(&d, t0));
  EXPECT_EQ((*GetCondition(d["status"], "Progressing"))["message"],
            "Deployment is resumed");
}

}  // namespace
}  // namespace kmock::controllers::deployment
