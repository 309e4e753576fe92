#include "controllers/scheduling/select_node.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>

namespace kmock::controllers::scheduling {
namespace {

json Node(const std::string& name, const std::string& cpu,
          const std::string& mem, json taints = json::array(),
          json labels = json::object(), bool ready = true) {
  return {{"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", {{"taints", taints}}},
          {"status",
           {{"allocatable", {{"cpu", cpu}, {"memory", mem}, {"pods", "110"}}},
            {"conditions",
             json::array({{{"type", "Ready"},
                           {"status", ready ? "True" : "False"}}})}}}};
}

std::shared_ptr<const NodeInfo> Shared(json node) {
  return std::make_shared<const NodeInfo>(MakeNodeInfo(node));
}

json Pod(const std::string& cpu = "", const std::string& mem = "") {
  json c = {{"name", "c1"}, {"image", "nginx"}};
  if (!cpu.empty()) c["resources"]["requests"]["cpu"] = cpu;
  if (!mem.empty()) c["resources"]["requests"]["memory"] = mem;
  return {{"metadata", {{"name", "hello"}, {"namespace", "default"}}},
          {"spec", {{"containers", json::array({c})}}}};
}

json ControlPlaneTaint() {
  return json::array({{{"key", "node-role.kubernetes.io/control-plane"},
                       {"effect", "NoSchedule"}}});
}

TEST(FiltersTest, Tolerations) {
  json taint = {{"key", "k"}, {"value", "v"}, {"effect", "NoSchedule"}};
  EXPECT_TRUE(Tolerates({{"key", "k"}, {"value", "v"}}, taint));
  EXPECT_TRUE(Tolerates({{"key", "k"}, {"operator", "Exists"}}, taint));
  EXPECT_TRUE(Tolerates({{"operator", "Exists"}}, taint));
  EXPECT_FALSE(Tolerates({{"key", "k"}, {"value", "w"}}, taint));
  EXPECT_FALSE(Tolerates(
      {{"key", "k"}, {"operator", "Exists"}, {"effect", "NoExecute"}}, taint));
  EXPECT_FALSE(Tolerates({{"key", ""}}, taint));  // Equal with no key
}

TEST(FiltersTest, TaintMessageNamesTheTaint) {
  auto f = CheckTaints(Pod(), Node("m", "2", "8Gi", ControlPlaneTaint()));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->reasons[0],
            "node(s) had untolerated taint "
            "{node-role.kubernetes.io/control-plane: }");
  EXPECT_FALSE(f->resolvable);
  json pod = Pod();
  pod["spec"]["tolerations"] =
      json::array({{{"key", "node-role.kubernetes.io/control-plane"},
                    {"operator", "Exists"},
                    {"effect", "NoSchedule"}}});
  EXPECT_FALSE(CheckTaints(pod, Node("m", "2", "8Gi", ControlPlaneTaint())));
}

TEST(FiltersTest, PreferNoScheduleDoesNotFilter) {
  json taints = json::array({{{"key", "k"}, {"effect", "PreferNoSchedule"}}});
  EXPECT_FALSE(CheckTaints(Pod(), Node("n", "2", "8Gi", taints)));
}

TEST(FiltersTest, NotReadyNodeCountsAsTainted) {
  auto f = CheckTaints(Pod(), Node("n", "2", "8Gi", json::array(), {}, false));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->reasons[0],
            "node(s) had untolerated taint {node.kubernetes.io/not-ready: }");
}

TEST(FiltersTest, Unschedulable) {
  json node = Node("n", "2", "8Gi");
  node["spec"]["unschedulable"] = true;
  auto f = CheckUnschedulable(Pod(), node);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->reasons[0], "node(s) were unschedulable");
  json pod = Pod();
  pod["spec"]["tolerations"] =
      json::array({{{"key", "node.kubernetes.io/unschedulable"},
                    {"operator", "Exists"},
                    {"effect", "NoSchedule"}}});
  EXPECT_FALSE(CheckUnschedulable(pod, node));
}

TEST(FiltersTest, NodeSelectorAndAffinity) {
  json node =
      Node("n", "2", "8Gi", json::array(), {{"disk", "ssd"}, {"gen", "5"}});
  json pod = Pod();
  pod["spec"]["nodeSelector"] = {{"disk", "ssd"}};
  EXPECT_TRUE(MatchesNodeAffinity(pod, node));
  pod["spec"]["nodeSelector"] = {{"disk", "hdd"}};
  EXPECT_FALSE(MatchesNodeAffinity(pod, node));
  auto f = CheckAffinity(pod, node);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->reasons[0], "node(s) didn't match Pod's node affinity/selector");

  auto with_expr = [&](json expr) {
    json p = Pod();
    p["spec"]["affinity"]["nodeAffinity"]
     ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] =
         json::array({{{"matchExpressions", json::array({expr})}}});
    return MatchesNodeAffinity(p, node);
  };
  EXPECT_TRUE(with_expr(
      {{"key", "disk"}, {"operator", "In"}, {"values", {"ssd", "nvme"}}}));
  EXPECT_FALSE(
      with_expr({{"key", "disk"}, {"operator", "NotIn"}, {"values", {"ssd"}}}));
  EXPECT_TRUE(
      with_expr({{"key", "zone"}, {"operator", "NotIn"}, {"values", {"a"}}}));
  EXPECT_TRUE(with_expr({{"key", "disk"}, {"operator", "Exists"}}));
  EXPECT_TRUE(with_expr({{"key", "gpu"}, {"operator", "DoesNotExist"}}));
  EXPECT_TRUE(
      with_expr({{"key", "gen"}, {"operator", "Gt"}, {"values", {"4"}}}));
  EXPECT_FALSE(
      with_expr({{"key", "gen"}, {"operator", "Lt"}, {"values", {"5"}}}));
  EXPECT_FALSE(
      with_expr({{"key", "disk"}, {"operator", "Gt"}, {"values", {"1"}}}));
}

TEST(FiltersTest, Resources) {
  Resources alloc{2000, 8LL << 30, 110};
  Resources used{1500, 1LL << 30, 3};
  EXPECT_FALSE(CheckResources({500, 0, 1}, alloc, used));
  auto f = CheckResources({600, 8LL << 30, 1}, alloc, used);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->reasons, (std::vector<std::string>{"Insufficient cpu",
                                                  "Insufficient memory"}));
  EXPECT_TRUE(f->resolvable);
  auto full = CheckResources({0, 0, 1}, {2000, 1, 3}, {0, 0, 3});
  ASSERT_TRUE(full.has_value());
  EXPECT_EQ(full->reasons[0], "Too many pods");
}

TEST(ResourcesTest, PodRequestsSumsAndTakesInitMax) {
  json pod = Pod("100m", "64Mi");
  pod["spec"]["containers"].push_back(
      {{"name", "c2"}, {"resources", {{"limits", {{"cpu", "1"}}}}}});
  pod["spec"]["initContainers"] = json::array(
      {{{"name", "i"}, {"resources", {{"requests", {{"cpu", "2"}}}}}}});
  Resources r = PodRequests(pod);
  EXPECT_EQ(r.milli_cpu, 2000);
  EXPECT_EQ(r.memory, 64LL << 20);
  EXPECT_EQ(r.pods, 1);
  Resources s = PodRequestsForScoring(Pod());
  EXPECT_EQ(s.milli_cpu, 100);
  EXPECT_EQ(s.memory, 200LL << 20);
}

TEST(SelectNodeTest, FailedSchedulingMessageLikeKubeScheduler) {
  std::vector<NodeState> nodes;
  nodes.push_back(
      {Shared(Node("manage-1", "2", "8Gi", ControlPlaneTaint())), {}, {}});
  for (const char* n : {"manage-2", "worker-1", "worker-2", "worker-3"}) {
    nodes.push_back({Shared(Node(n, "4", "16Gi")), {}, {}});
  }
  Decision d = SelectNode(Pod("5"), nodes, nullptr);
  EXPECT_FALSE(d.scheduled);
  EXPECT_EQ(d.message,
            "0/5 nodes are available: 1 node(s) had untolerated taint "
            "{node-role.kubernetes.io/control-plane: }, 4 Insufficient cpu. "
            "preemption: 0/5 nodes are available: 1 Preemption is not helpful "
            "for scheduling, 4 No preemption victims found for incoming pod.");
  json never = Pod("5");
  never["spec"]["preemptionPolicy"] = "Never";
  EXPECT_EQ(SelectNode(never, nodes, nullptr).message,
            "0/5 nodes are available: 1 node(s) had untolerated taint "
            "{node-role.kubernetes.io/control-plane: }, 4 Insufficient cpu. "
            "preemption: not eligible due to preemptionPolicy=Never.");
  EXPECT_EQ(SelectNode(Pod(), {}, nullptr).message,
            "no nodes available to schedule pods");
}

TEST(SelectNodeTest, PrefersLeastRequestedAndAvoidsTaintedNode) {
  std::vector<NodeState> nodes;
  nodes.push_back(
      {Shared(Node("manage-1", "8", "32Gi", ControlPlaneTaint())), {}, {}});
  nodes.push_back(
      {Shared(Node("worker-1", "4", "16Gi")), {}, {3000, 8LL << 30, 1}});
  nodes.push_back({Shared(Node("worker-2", "4", "16Gi")), {}, {}});
  Decision d = SelectNode(Pod("100m"), nodes, nullptr);
  ASSERT_TRUE(d.scheduled);
  EXPECT_EQ(d.node, "worker-2");
}

TEST(SelectNodeTest, TiesSpreadWithTheSeededRng) {
  std::vector<NodeState> nodes;
  for (const char* n : {"worker-1", "worker-2", "worker-3"}) {
    nodes.push_back({Shared(Node(n, "4", "16Gi")), {}, {}});
  }
  EXPECT_EQ(SelectNode(Pod(), nodes, nullptr).node, "worker-1");
  Rng rng(7);
  std::set<std::string> picked;
  for (int i = 0; i < 50; ++i)
    picked.insert(SelectNode(Pod(), nodes, &rng).node);
  EXPECT_EQ(picked.size(), 3u);
  Rng a(42), b(42);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(SelectNode(Pod(), nodes, &a).node,
              SelectNode(Pod(), nodes, &b).node);
  }
}

TEST(SelectNodeTest, PreferNoScheduleCostsPoints) {
  std::vector<NodeState> nodes;
  nodes.push_back(
      {Shared(
           Node("a", "4", "16Gi",
                json::array({{{"key", "k"}, {"effect", "PreferNoSchedule"}}}))),
       {},
       {}});
  nodes.push_back({Shared(Node("b", "4", "16Gi")), {}, {1000, 4LL << 30, 2}});
  EXPECT_EQ(SelectNode(Pod(), nodes, nullptr).node, "b");
}

TEST(SelectNodeTest, NodeSelectorAndAffinityLimitTheChoice) {
  std::vector<NodeState> nodes;
  nodes.push_back(
      {Shared(Node("a", "4", "16Gi", json::array(), {{"disk", "hdd"}})),
       {},
       {}});
  nodes.push_back(
      {Shared(Node("b", "4", "16Gi", json::array(), {{"disk", "ssd"}})),
       {},
       {3000, 8LL << 30, 1}});
  json pod = Pod();
  EXPECT_EQ(SelectNode(pod, nodes, nullptr).node, "a");
  pod["spec"]["nodeSelector"] = {{"disk", "ssd"}};
  EXPECT_EQ(SelectNode(pod, nodes, nullptr).node, "b");
  pod["spec"].erase("nodeSelector");
  pod["spec"]["affinity"]["nodeAffinity"]
     ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] =
         json::array({{{"matchExpressions",
                        json::array({{{"key", "disk"},
                                      {"operator", "In"},
                                      {"values", json::array({"ssd"})}}})}}});
  EXPECT_EQ(SelectNode(pod, nodes, nullptr).node, "b");
  pod["spec"]["nodeSelector"] = {{"disk", "nvme"}};
  Decision d = SelectNode(pod, nodes, nullptr);
  EXPECT_FALSE(d.scheduled);
  EXPECT_NE(d.message.find("2 node(s) didn't match Pod's node "
                           "affinity/selector"),
            std::string::npos);
}

TEST(NodeInfoTest, KeepsOnlyWhatNodeAffinityReadsOfTheNode) {
  json node = Node("a", "4", "16Gi", json::array(), {{"disk", "ssd"}});
  node["status"]["images"] =
      json::array({{{"names", json::array({"registry.k8s.io/pause:3.9"})},
                    {"sizeBytes", 321520}}});
  node["metadata"]["annotations"] = {{"note", "not for the scheduler"}};
  NodeInfo info = MakeNodeInfo(node);
  EXPECT_EQ(
      *info.node,
      json({{"metadata", {{"name", "a"}, {"labels", {{"disk", "ssd"}}}}}}));
  EXPECT_EQ(info.allocatable.milli_cpu, 4000);

  // A node without labels is matched by name (matchFields) alone.
  node["metadata"].erase("labels");
  std::vector<NodeState> nodes;
  nodes.push_back({Shared(node), {}, {}});
  json pod = Pod();
  pod["spec"]["affinity"]["nodeAffinity"]
     ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] =
         json::array({{{"matchFields",
                        json::array({{{"key", "metadata.name"},
                                      {"operator", "In"},
                                      {"values", json::array({"a"})}}})}}});
  EXPECT_EQ(SelectNode(pod, nodes, nullptr).node, "a");
  pod["spec"]["nodeSelector"] = {{"disk", "ssd"}};
  EXPECT_FALSE(SelectNode(pod, nodes, nullptr).scheduled);
}

TEST(SelectNodeTest, FeasibleNodesToFindFollowsTheAdaptivePercentage) {
  EXPECT_EQ(NumFeasibleNodesToFind(0), 0u);
  EXPECT_EQ(NumFeasibleNodesToFind(5), 5u);
  EXPECT_EQ(NumFeasibleNodesToFind(99), 99u);
  EXPECT_EQ(NumFeasibleNodesToFind(100), 100u);     // 50%, but at least 100
  EXPECT_EQ(NumFeasibleNodesToFind(336), 161u);     // 48%
  EXPECT_EQ(NumFeasibleNodesToFind(1000), 420u);    // 42%
  EXPECT_EQ(NumFeasibleNodesToFind(5000), 500u);    // 10%
  EXPECT_EQ(NumFeasibleNodesToFind(20000), 1000u);  // at least 5%
}

std::vector<NodeState> Workers(int n) {
  std::vector<NodeState> nodes;
  for (int i = 0; i < n; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "w%03d", i);
    nodes.push_back({Shared(Node(name, "4", "16Gi")), {}, {2000, 0, 0}});
  }
  return nodes;
}

TEST(SelectNodeTest, LargeClustersAreSearchedInTurnsUntilEnoughFit) {
  std::vector<NodeState> nodes = Workers(300);  // 48%: 144 to find
  // The emptiest node wins, but only among those searched.
  nodes[10].used_for_scoring = {1000, 0, 0};
  nodes[200].used_for_scoring = {0, 0, 0};
  Decision d = SelectNode(Pod(), nodes, nullptr, 0);
  ASSERT_TRUE(d.scheduled);
  EXPECT_EQ(d.processed, 144u);
  EXPECT_EQ(d.node, "w010");
  d = SelectNode(Pod(), nodes, nullptr, 144);
  EXPECT_EQ(d.processed, 144u);
  EXPECT_EQ(d.node, "w200");
  // The search wraps around the end of the list.
  d = SelectNode(Pod(), nodes, nullptr, 288);
  EXPECT_EQ(d.node, "w010");
  // Nodes that do not fit do not count towards the number to find.
  for (int i = 0; i < 150; ++i) nodes[i].used = {0, 0, 110};
  d = SelectNode(Pod(), nodes, nullptr, 0);
  EXPECT_EQ(d.processed, 294u);
  EXPECT_EQ(d.node, "w200");
}

TEST(SelectNodeTest, NoFitInALargeClusterCountsEveryNode) {
  std::vector<NodeState> nodes = Workers(300);
  Decision d = SelectNode(Pod("5"), nodes, nullptr, 123);
  EXPECT_FALSE(d.scheduled);
  EXPECT_EQ(d.processed, 300u);
  EXPECT_EQ(d.message,
            "0/300 nodes are available: 300 Insufficient cpu. preemption: "
            "0/300 nodes are available: 300 No preemption victims found for "
            "incoming pod.");
}

}  // namespace
}  // namespace kmock::controllers::scheduling
