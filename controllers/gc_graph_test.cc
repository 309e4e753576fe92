#include "controllers/gc_graph.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "api/builtin_catalog.h"

namespace kmock::controllers {
namespace {

json Obj(const std::string& ns, const std::string& name, const std::string& uid,
         json owners = json::array(), json finalizers = json::array(),
         bool deleting = false) {
  json md = {{"name", name}, {"uid", uid}};
  if (!ns.empty()) md["namespace"] = ns;
  if (!owners.empty()) md["ownerReferences"] = owners;
  if (!finalizers.empty()) md["finalizers"] = finalizers;
  if (deleting) md["deletionTimestamp"] = "2025-01-01T10:00:00Z";
  return {{"metadata", md}};
}

json Ref(const std::string& kind, const std::string& name,
         const std::string& uid, bool block = false) {
  json r = {{"apiVersion", kind == "Lease" ? "coordination.k8s.io/v1" : "v1"},
            {"kind", kind},
            {"name", name},
            {"uid", uid}};
  if (block) r["blockOwnerDeletion"] = true;
  return r;
}

const api::ResourceInfo* Res(const char* group, const char* plural) {
  return api::testing::BuiltinCatalog().Find(group, "v1", plural);
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(GcGraphTest, ReadsOwnerReferencesAndFinalizers) {
  json o = Obj("default", "p", "u1",
               {Ref("Lease", "l", "o1", true), {{"kind", "Lease"}}}, {"orphan"},
               true);
  GraphNode n = NodeFromObject(Res("", "pods"), o);
  EXPECT_EQ(n.ns, "default");
  EXPECT_EQ(n.uid, "u1");
  ASSERT_EQ(n.owners.size(), 1u);  // the entry without a uid is skipped
  EXPECT_EQ(n.owners[0].api_version, "coordination.k8s.io/v1");
  EXPECT_TRUE(n.owners[0].block_owner_deletion);
  EXPECT_FALSE(n.owners[0].controller);
  EXPECT_TRUE(n.deleting);
  EXPECT_TRUE(n.HasFinalizer(kOrphanFinalizer));
  EXPECT_FALSE(n.HasFinalizer(kForegroundFinalizer));
  EXPECT_EQ(n.Describe(), "pods default/p (u1)");
}

TEST(GcGraphTest, IndexFollowsUpsertsAndRemovals) {
  OwnerGraph g;
  const api::ResourceInfo* pods = Res("", "pods");
  g.Upsert(NodeFromObject(
      pods, Obj("d", "a", "a", json::array({Ref("Lease", "o", "o", true)}))));
  g.Upsert(NodeFromObject(
      pods, Obj("d", "b", "b", json::array({Ref("Lease", "o", "o")}))));
  EXPECT_EQ(Sorted(g.DependentsOf("o")), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(g.BlockingDependentsOf("o"), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(g.HasDependents("o"));
  EXPECT_FALSE(g.Contains("o"));  // owners need not be in the graph

  // b changes owner: the index moves with it.
  auto old = g.Upsert(NodeFromObject(
      pods, Obj("d", "b", "b", json::array({Ref("Service", "s", "s")}))));
  ASSERT_TRUE(old.has_value());
  ASSERT_EQ(old->owners.size(), 1u);
  EXPECT_EQ(old->owners[0].uid, "o");
  EXPECT_EQ(g.DependentsOf("o"), (std::vector<std::string>{"a"}));
  EXPECT_EQ(g.DependentsOf("s"), (std::vector<std::string>{"b"}));

  // Removing an owner keeps its dependents' entries; removing a dependent
  // drops them.
  g.Upsert(
      NodeFromObject(Res("coordination.k8s.io", "leases"), Obj("d", "o", "o")));
  EXPECT_TRUE(g.Remove("o").has_value());
  EXPECT_EQ(g.DependentsOf("o"), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(g.Remove("a").has_value());
  EXPECT_FALSE(g.HasDependents("o"));
  EXPECT_FALSE(g.Remove("a").has_value());
  EXPECT_EQ(g.size(), 1u);
}

TEST(GcGraphTest, AttentionMeansOwnersOrCollectorFinalizers) {
  OwnerGraph g;
  const api::ResourceInfo* leases = Res("coordination.k8s.io", "leases");
  g.Upsert(NodeFromObject(leases, Obj("d", "plain", "1")));
  g.Upsert(NodeFromObject(
      leases, Obj("d", "owned", "2", json::array({Ref("Lease", "x", "x")}))));
  g.Upsert(NodeFromObject(
      leases, Obj("d", "fg", "3", {}, {"foregroundDeletion"}, true)));
  g.Upsert(NodeFromObject(
      leases, Obj("d", "custom", "4", {}, {"example.com/x"}, true)));
  g.Upsert(
      NodeFromObject(leases, Obj("d", "notyet", "5", {}, {"orphan"}, false)));
  EXPECT_EQ(Sorted(g.NodesNeedingAttention()),
            (std::vector<std::string>{"2", "3"}));
}

TEST(GcGraphTest, LocatesOwnersByScope) {
  const auto& cat = api::testing::BuiltinCatalog();
  OwnerReference lease{"coordination.k8s.io/v1", "Lease", "l", "u"};
  OwnerLocation loc = LocateOwner(cat, lease, "team");
  EXPECT_EQ(loc.resource, Res("coordination.k8s.io", "leases"));
  EXPECT_EQ(loc.ns, "team");
  EXPECT_TRUE(loc.resolvable);

  // A cluster-scoped dependent cannot have a namespaced owner.
  loc = LocateOwner(cat, lease, "");
  EXPECT_NE(loc.resource, nullptr);
  EXPECT_FALSE(loc.resolvable);

  // A cluster-scoped owner is found without a namespace.
  loc =
      LocateOwner(cat, OwnerReference{"v1", "Node", "n1", "u"}, "kube-system");
  EXPECT_EQ(loc.resource, Res("", "nodes"));
  EXPECT_EQ(loc.ns, "");
  EXPECT_TRUE(loc.resolvable);

  // Another version of a served group/kind, and an unknown kind.
  loc = LocateOwner(
      cat, OwnerReference{"coordination.k8s.io/v1beta1", "Lease", "l", "u"},
      "d");
  EXPECT_EQ(loc.resource, Res("coordination.k8s.io", "leases"));
  loc = LocateOwner(cat, OwnerReference{"example.com/v1", "Widget", "w", "u"},
                    "d");
  EXPECT_EQ(loc.resource, nullptr);
  EXPECT_FALSE(loc.resolvable);
}

ClassifiedOwner Owner(const std::string& uid, OwnerState s) {
  return ClassifiedOwner{OwnerReference{"v1", "Service", uid, uid}, s};
}

TEST(GcGraphTest, DecidesLikeTheUpstreamCollector) {
  GraphNode dep;
  dep.uid = "d";
  using A = CollectDecision::Action;

  EXPECT_EQ(DecideForDependent(dep, {}, false).action, A::kNone);
  EXPECT_EQ(
      DecideForDependent(dep, {Owner("a", OwnerState::kSolid)}, false).action,
      A::kNone);

  // All owners gone: deleted in the background.
  CollectDecision d =
      DecideForDependent(dep, {Owner("a", OwnerState::kDangling)}, true);
  EXPECT_EQ(d.action, A::kDelete);
  EXPECT_EQ(d.propagation_policy, "Background");

  // A live owner keeps it; only the dangling and waiting references go.
  d = DecideForDependent(
      dep,
      {Owner("a", OwnerState::kDangling), Owner("b", OwnerState::kSolid),
       Owner("c", OwnerState::kWaiting)},
      false);
  EXPECT_EQ(d.action, A::kRemoveReferences);
  EXPECT_EQ(d.remove_owner_uids, (std::vector<std::string>{"a", "c"}));

  // An unresolvable owner counts as live.
  d = DecideForDependent(dep,
                         {Owner("a", OwnerState::kDangling),
                          Owner("u", OwnerState::kUnresolvable)},
                         false);
  EXPECT_EQ(d.action, A::kRemoveReferences);

  // A waiting owner: the dependent goes in the foreground when it has
  // dependents of its own, else in the background.
  d = DecideForDependent(dep, {Owner("a", OwnerState::kWaiting)}, true);
  EXPECT_EQ(d.propagation_policy, "Foreground");
  d = DecideForDependent(dep, {Owner("a", OwnerState::kWaiting)}, false);
  EXPECT_EQ(d.propagation_policy, "Background");

  // The dependent's own collector finalizers choose its policy.
  dep.finalizers = {"orphan"};
  d = DecideForDependent(dep, {Owner("a", OwnerState::kDangling)}, false);
  EXPECT_EQ(d.propagation_policy, "Orphan");
  dep.finalizers = {"foregroundDeletion"};
  d = DecideForDependent(dep, {Owner("a", OwnerState::kDangling)}, false);
  EXPECT_EQ(d.propagation_policy, "Foreground");
}

}  // namespace
}  // namespace kmock::controllers
