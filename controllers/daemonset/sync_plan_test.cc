// The DaemonSet controller's decisions (node fit, the pod it makes, the
// manage step, both rolling-update modes, status, history cleanup) on
// hand-made nodes and pods.
#include "controllers/daemonset/sync_plan.h"

#include <gtest/gtest.h>

#include "controllers/daemonset/history.h"
#include "controllers/daemonset/node_fit.h"

namespace kmock::controllers::daemonset {
namespace {

const TimePoint kNow = std::chrono::system_clock::from_time_t(1735725600);

json Ds(json strategy = {
            {"type", "RollingUpdate"},
            {"rollingUpdate", {{"maxUnavailable", 1}, {"maxSurge", 0}}}}) {
  return {
      {"metadata",
       {{"name", "agent"},
        {"namespace", "default"},
        {"uid", "u1"},
        {"annotations", {{"deprecated.daemonset.template.generation", "2"}}}}},
      {"spec",
       {{"selector", {{"matchLabels", {{"app", "agent"}}}}},
        {"updateStrategy", strategy},
        {"template",
         {{"metadata", {{"labels", {{"app", "agent"}}}}},
          {"spec",
           {{"nodeSelector", {{"disk", "ssd"}}},
            {"containers",
             json::array({{{"name", "a"}, {"image", "agent:1"}}})}}}}}}}};
}

json Node(const std::string& name, json labels, json taints = json::array()) {
  return {{"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", {{"taints", taints}}}};
}

json Pod(const std::string& name, const std::string& hash, bool ready,
         int created_s = 0, const std::string& phase = "Running") {
  json conditions =
      json::array({{{"type", "Ready"},
                    {"status", ready ? "True" : "False"},
                    {"lastTransitionTime", "2024-12-01T00:00:00Z"}}});
  return {{"metadata",
           {{"name", name},
            {"creationTimestamp",
             "2025-01-01T10:00:0" + std::to_string(created_s) + "Z"},
            {"labels", {{"app", "agent"}, {kRevisionHashLabel, hash}}}}},
          {"spec", {{"nodeName", "n"}}},
          {"status", {{"phase", phase}, {"conditions", conditions}}}};
}

std::vector<std::string> Names(const std::vector<const json*>& pods) {
  std::vector<std::string> out;
  for (const json* p : pods) out.push_back(p->at("metadata").at("name"));
  return out;
}

TEST(NodeFitTest, SelectorAndTaintsDecide) {
  const json ds = Ds();
  EXPECT_TRUE(ShouldRunOnNode(ds, Node("a", {{"disk", "ssd"}})).should_run);
  NodeFit other = ShouldRunOnNode(ds, Node("b", {{"disk", "hdd"}}));
  EXPECT_FALSE(other.should_run);
  EXPECT_FALSE(other.should_continue_running);
  // NoSchedule keeps new pods away, the one there stays.
  NodeFit tainted = ShouldRunOnNode(
      ds, Node("c", {{"disk", "ssd"}},
               {{{"key", "gpu"}, {"value", "x"}, {"effect", "NoSchedule"}}}));
  EXPECT_FALSE(tainted.should_run);
  EXPECT_TRUE(tainted.should_continue_running);
  NodeFit evicting = ShouldRunOnNode(
      ds, Node("d", {{"disk", "ssd"}},
               {{{"key", "gpu"}, {"value", "x"}, {"effect", "NoExecute"}}}));
  EXPECT_FALSE(evicting.should_continue_running);
  // The daemon tolerations cover a cordoned or unreachable node.
  NodeFit cordoned =
      ShouldRunOnNode(ds, Node("e", {{"disk", "ssd"}},
                               {{{"key", "node.kubernetes.io/unschedulable"},
                                 {"effect", "NoSchedule"}},
                                {{"key", "node.kubernetes.io/unreachable"},
                                 {"effect", "NoExecute"}}}));
  EXPECT_TRUE(cordoned.should_run);
}

TEST(NodeFitTest, NewPodNamesItsNode) {
  json pod = NewDaemonPod(Ds(), "worker-1", "abc", {{"uid", "u1"}});
  EXPECT_EQ(pod["metadata"]["generateName"], "agent-");
  EXPECT_EQ(pod["metadata"]["labels"][kRevisionHashLabel], "abc");
  EXPECT_EQ(pod["metadata"]["labels"][kTemplateGenerationLabel], "2");
  EXPECT_EQ(pod["spec"]["affinity"]["nodeAffinity"]
               ["requiredDuringSchedulingIgnoredDuringExecution"]
               ["nodeSelectorTerms"][0]["matchFields"][0]["values"][0],
            "worker-1");
  EXPECT_EQ(pod["spec"]["tolerations"].size(), 6u);
  EXPECT_EQ(TargetNode(pod), "worker-1");
  pod["spec"]["hostNetwork"] = true;
  AddDaemonTolerations(&pod["spec"]);
  EXPECT_EQ(pod["spec"]["tolerations"].size(), 7u);
}

TEST(SyncPlanTest, ManageCreatesReplacesAndPrunes) {
  json failed = Pod("failed", "h", false, 1, "Failed");
  json done = Pod("done", "h", false, 1, "Succeeded");
  json older = Pod("older", "h", true, 1);
  json newer = Pod("newer", "h", true, 2);
  json stray = Pod("stray", "h", true, 1);
  std::vector<NodeState> nodes = {
      {"empty", {true, true}, {}},
      {"failed", {true, true}, {&failed, &done}},
      {"two", {true, true}, {&older, &newer}},
      {"gone", {false, false}, {&stray}},
  };
  Plan plan = ManageNodes(Ds(), nodes, "h");
  EXPECT_EQ(plan.create_on, std::vector<std::string>{"empty"});
  EXPECT_EQ(Names(plan.failed_pods), std::vector<std::string>{"failed"});
  EXPECT_EQ(Names(plan.delete_pods),
            (std::vector<std::string>{"done", "newer", "stray"}));
}

TEST(SyncPlanTest, RollingUpdateStaysWithinMaxUnavailable) {
  json a = Pod("a", "old", true), b = Pod("b", "old", true),
       c = Pod("c", "old", false), d = Pod("d", "new", true);
  std::vector<NodeState> nodes = {{"a", {true, true}, {&a}},
                                  {"b", {true, true}, {&b}},
                                  {"c", {true, true}, {&c}},
                                  {"d", {true, true}, {&d}}};
  // The unavailable old pod goes at once; one available old one more.
  Plan plan = RollingUpdate(Ds(), nodes, "new", kNow);
  EXPECT_EQ(Names(plan.delete_pods), (std::vector<std::string>{"c", "a"}));
  // A new pod not yet ready uses up the budget.
  d["status"]["conditions"][0]["status"] = "False";
  plan = RollingUpdate(Ds(), nodes, "new", kNow);
  EXPECT_EQ(Names(plan.delete_pods), std::vector<std::string>{"c"});
}

TEST(SyncPlanTest, SurgeCreatesBesideAndDeletesOnceAvailable) {
  json ds = Ds({{"type", "RollingUpdate"},
                {"rollingUpdate", {{"maxUnavailable", 0}, {"maxSurge", 1}}}});
  EXPECT_TRUE(AllowsSurge(ds));
  json a = Pod("a", "old", true), b = Pod("b", "old", true);
  std::vector<NodeState> nodes = {{"a", {true, true}, {&a}},
                                  {"b", {true, true}, {&b}}};
  Plan plan = RollingUpdate(ds, nodes, "new", kNow);
  EXPECT_EQ(plan.create_on, std::vector<std::string>{"a"});
  EXPECT_TRUE(plan.delete_pods.empty());
  json a2 = Pod("a2", "new", true, 2);
  nodes[0].pods.push_back(&a2);
  plan = RollingUpdate(ds, nodes, "new", kNow);
  EXPECT_EQ(Names(plan.delete_pods), std::vector<std::string>{"a"});
  EXPECT_EQ(plan.create_on, std::vector<std::string>{"b"});
  // While both run, the manage step keeps the pair (the new one is ready:
  // the old one goes).
  EXPECT_EQ(Names(ManageNodes(ds, nodes, "new").delete_pods),
            std::vector<std::string>{"a"});
}

TEST(SyncPlanTest, StatusCountsEachNodeOnce) {
  json a = Pod("a", "new", true), b = Pod("b", "old", false),
       c = Pod("c", "new", true);
  std::vector<NodeState> nodes = {{"a", {true, true}, {&a}},
                                  {"b", {true, true}, {&b}},
                                  {"c", {false, false}, {&c}},
                                  {"d", {true, true}, {}}};
  json st = ComputeStatus(Ds(), nodes, "new", kNow);
  EXPECT_EQ(st, json({{"desiredNumberScheduled", 3},
                      {"currentNumberScheduled", 2},
                      {"numberMisscheduled", 1},
                      {"numberReady", 1},
                      {"numberAvailable", 1},
                      {"numberUnavailable", 2},
                      {"updatedNumberScheduled", 1}}));
  EXPECT_EQ(ScaledValue("25%", 5, true), 2);
  EXPECT_EQ(ScaledValue("25%", 5, false), 1);
}

TEST(HistoryTest, RevisionsHoldTheTemplateAsAReplacePatch) {
  json ds = Ds();
  json rev = NewRevision(ds, 3, {{"uid", "u1"}});
  EXPECT_EQ(rev["metadata"]["name"], "agent-" + RevisionHash(ds));
  EXPECT_EQ(rev["data"]["spec"]["template"]["$patch"], "replace");
  EXPECT_EQ(rev["revision"], 3);
  EXPECT_TRUE(RevisionMatches(ds, rev));
  json changed = ds;
  changed["spec"]["template"]["spec"]["containers"][0]["image"] = "agent:2";
  EXPECT_FALSE(RevisionMatches(changed, rev));
  EXPECT_NE(RevisionHash(changed), RevisionHash(ds));
  json collided = changed;
  collided["status"]["collisionCount"] = 1;
  EXPECT_NE(RevisionHash(collided), RevisionHash(changed));

  std::vector<json> old;
  for (int i = 1; i <= 4; ++i) {
    old.push_back(
        {{"metadata",
          {{"name", "r" + std::to_string(i)},
           {"labels", {{kRevisionHashLabel, "h" + std::to_string(i)}}}}},
         {"revision", i}});
  }
  ds["spec"]["revisionHistoryLimit"] = 1;
  // Three must go; r1's hash is still on a live pod.
  EXPECT_EQ(HistoryToDelete(ds, old, {"h1"}),
            (std::vector<std::string>{"r2", "r3", "r4"}));
  ds["spec"]["revisionHistoryLimit"] = 2;
  EXPECT_EQ(HistoryToDelete(ds, old, {}),
            (std::vector<std::string>{"r1", "r2"}));
}

}  // namespace
}  // namespace kmock::controllers::daemonset
