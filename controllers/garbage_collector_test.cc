// The garbage collector against the real registry and controller manager.
#include "controllers/garbage_collector.h"

#include "controllers/gc_test_harness.h"

namespace kmock::controllers {
namespace {

using std::chrono::milliseconds;

// Every test runs twice: with the collector watching every resource itself,
// and with informers for pods and leases lent to it, as the controller
// manager lends its own (whole objects instead of metadata).
class GarbageCollectorTest : public GcTestHarness,
                             public ::testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    GcTestHarness::SetUp();
    if (HasFatalFailure()) return;
    GarbageCollectorOptions opts;
    if (GetParam()) {
      for (const api::ResourceInfo* res : {res_.pods, res_.leases}) {
        shared_.push_back(std::make_unique<Informer>(registry_.get(), res));
        opts.shared_informers[res] = shared_.back().get();
      }
    }
    gc_ = std::make_unique<GarbageCollector>(registry_.get(), &clock_, &rng_,
                                             opts);
    for (auto& inf : shared_) inf->Start();
    gc_->Start();
  }
  void StopControllers() override {
    if (gc_) gc_->Stop();
    for (auto& inf : shared_) inf->Stop();
  }

  bool HasOwnerRefs(const json& obj) {
    return obj["metadata"].contains("ownerReferences");
  }

  std::vector<std::unique_ptr<Informer>> shared_;
  std::unique_ptr<GarbageCollector> gc_;
};

TEST_P(GarbageCollectorTest, WatchesServedKindsButNotEvents) {
  std::set<std::string> names;
  for (const auto* r : gc_->WatchedResources())
    names.insert(r->QualifiedName());
  EXPECT_TRUE(names.count("pods"));
  EXPECT_TRUE(names.count("namespaces"));
  EXPECT_TRUE(names.count("leases.coordination.k8s.io"));
  EXPECT_FALSE(names.count("events"));
  EXPECT_FALSE(names.count("events.events.k8s.io"));
  EXPECT_FALSE(names.count("bindings"));
  // The cluster's mirror pods are owned by live nodes: nothing to collect.
  EXPECT_TRUE(Stays([&] {
    return !Get(*res_.pods, "kube-system", "etcd-manage-1").is_null();
  }));
}

TEST_P(GarbageCollectorTest, BackgroundDeletionCollectsDependents) {
  json owner = Lease("default", "owner");
  Pod("default", "p1", json::array({RefTo(owner, true)}));
  Pod("default", "p2", json::array({RefTo(owner)}));
  json child = Lease("default", "child", json::array({RefTo(owner)}));
  json grandchild = Lease("default", "grandchild", json::array({RefTo(child)}));
  ASSERT_TRUE(Delete(*res_.leases, "default", "owner").ok());
  // The owner goes at once; its dependents (and theirs) afterwards.
  EXPECT_TRUE(Get(*res_.leases, "default", "owner").is_null());
  EXPECT_TRUE(Gone(*res_.pods, "default", "p1"));
  EXPECT_TRUE(Gone(*res_.pods, "default", "p2"));
  EXPECT_TRUE(Gone(*res_.leases, "default", "child"));
  EXPECT_TRUE(Gone(*res_.leases, "default", "grandchild"));
}

TEST_P(GarbageCollectorTest, DependentOfAMissingOrReplacedOwnerIsCollected) {
  json ghost = {{"apiVersion", "v1"},
                {"kind", "Service"},
                {"metadata", {{"name", "never"}, {"uid", "0000-missing"}}}};
  Lease("default", "orphaned", json::array({RefTo(ghost)}));
  EXPECT_TRUE(Gone(*res_.leases, "default", "orphaned"));

  // Same name, another uid: the reference is dangling too.
  json svc = Service("default", "web");
  json stale = svc;
  stale["metadata"]["uid"] = "0000-old-web";
  Lease("default", "stale", json::array({RefTo(stale)}));
  EXPECT_TRUE(Gone(*res_.leases, "default", "stale"));
  EXPECT_FALSE(Get(*res_.services, "default", "web").is_null());
}

TEST_P(GarbageCollectorTest, DependentWithAnotherLiveOwnerSurvives) {
  json a = Lease("default", "a");
  json b = Service("default", "b");
  Pod("default", "shared", {RefTo(a), RefTo(b)});
  ASSERT_TRUE(Delete(*res_.leases, "default", "a").ok());
  ASSERT_TRUE(Eventually([&] {
    json p = Get(*res_.pods, "default", "shared");
    return !p.is_null() && p["metadata"]["ownerReferences"].size() == 1;
  }));
  json p = Get(*res_.pods, "default", "shared");
  EXPECT_EQ(p["metadata"]["ownerReferences"][0]["uid"], b["metadata"]["uid"]);
  EXPECT_FALSE(p["metadata"].contains("deletionTimestamp"));

  ASSERT_TRUE(Delete(*res_.services, "default", "b").ok());
  EXPECT_TRUE(Gone(*res_.pods, "default", "shared"));
}

TEST_P(GarbageCollectorTest, OrphanLeavesDependentsWithoutTheReference) {
  json owner = Lease("default", "owner");
  json other = Service("default", "other");
  Pod("default", "p1", json::array({RefTo(owner, true)}));
  Lease("default", "l1", {RefTo(owner), RefTo(other)});
  ASSERT_TRUE(Delete(*res_.leases, "default", "owner", "Orphan").ok());
  EXPECT_TRUE(Gone(*res_.leases, "default", "owner"));
  json p = Get(*res_.pods, "default", "p1");
  ASSERT_FALSE(p.is_null());
  EXPECT_FALSE(HasOwnerRefs(p)) << p["metadata"].dump();
  EXPECT_FALSE(p["metadata"].contains("deletionTimestamp"));
  json l = Get(*res_.leases, "default", "l1");
  ASSERT_FALSE(l.is_null());
  ASSERT_EQ(l["metadata"]["ownerReferences"].size(), 1u);
  EXPECT_EQ(l["metadata"]["ownerReferences"][0]["name"], "other");
  EXPECT_TRUE(
      Stays([&] { return !Get(*res_.pods, "default", "p1").is_null(); }));
}

TEST_P(GarbageCollectorTest, ForegroundWaitsForBlockingDependents) {
  json owner = Lease("default", "owner");
  // A blocking dependent that a custom finalizer holds, a blocking pod, and
  // a non-blocking dependent that is also held.
  Lease("default", "held", json::array({RefTo(owner, true)}),
        json::array({"example.com/hold"}));
  Pod("default", "p1", json::array({RefTo(owner, true)}));
  Lease("default", "loose", json::array({RefTo(owner)}),
        json::array({"example.com/hold"}));
  ASSERT_TRUE(Delete(*res_.leases, "default", "owner", "Foreground").ok());

  json o = Get(*res_.leases, "default", "owner");
  ASSERT_FALSE(o.is_null());
  EXPECT_TRUE(o["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(o["metadata"]["finalizers"], json({"foregroundDeletion"}));

  EXPECT_TRUE(Gone(*res_.pods, "default", "p1"));
  ASSERT_TRUE(Eventually([&] {
    json h = Get(*res_.leases, "default", "held");
    json l = Get(*res_.leases, "default", "loose");
    return h["metadata"].contains("deletionTimestamp") &&
           l["metadata"].contains("deletionTimestamp");
  }));
  EXPECT_TRUE(
      Stays([&] { return !Get(*res_.leases, "default", "owner").is_null(); }));

  // Releasing the non-blocking one changes nothing for the owner.
  auto release = [&](const std::string& name) {
    auto r = registry_->GuaranteedUpdate(
        *res_.leases, "default", name, "",
        [](json& obj) {
          obj["metadata"].erase("finalizers");
          return Status::Ok();
        },
        registry::WriteOptions{});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  };
  release("loose");
  EXPECT_TRUE(Gone(*res_.leases, "default", "loose"));
  EXPECT_TRUE(
      Stays([&] { return !Get(*res_.leases, "default", "owner").is_null(); }));

  // The last blocking dependent goes: so does the owner.
  release("held");
  EXPECT_TRUE(Gone(*res_.leases, "default", "held"));
  EXPECT_TRUE(Gone(*res_.leases, "default", "owner"));
}

TEST_P(GarbageCollectorTest, OtherFinalizersKeepTheOwner) {
  json owner = Lease("default", "owner", json::array(),
                     json::array({"example.com/keep"}));
  Pod("default", "p1", json::array({RefTo(owner, true)}));
  ASSERT_TRUE(Delete(*res_.leases, "default", "owner", "Orphan").ok());
  ASSERT_TRUE(Eventually([&] {
    json o = Get(*res_.leases, "default", "owner");
    return o["metadata"]["finalizers"] == json({"example.com/keep"});
  }));
  json p = Get(*res_.pods, "default", "p1");
  EXPECT_FALSE(HasOwnerRefs(p));
  EXPECT_TRUE(
      Stays([&] { return !Get(*res_.leases, "default", "owner").is_null(); }));
}

TEST_P(GarbageCollectorTest, ClusterScopedDependentCannotHaveNamespacedOwner) {
  json owner = Lease("default", "owner");
  json ns = Create(
      *res_.namespaces, "",
      {{"apiVersion", "v1"},
       {"kind", "Namespace"},
       {"metadata", {{"name", "team"}, {"ownerReferences", {RefTo(owner)}}}}});
  ASSERT_TRUE(Delete(*res_.leases, "default", "owner").ok());
  // Unresolvable: never collected because of it.
  EXPECT_TRUE(
      Stays([&] { return !Get(*res_.namespaces, "", "team").is_null(); }));
}

TEST_P(GarbageCollectorTest, AFreshCollectorFindsDanglingDependents) {
  StopControllers();  // lent informers stop first: their handlers go too
  json owner = Lease("default", "owner");
  Lease("default", "dep", json::array({RefTo(owner)}));
  ASSERT_TRUE(Delete(*res_.leases, "default", "owner").ok());
  // A fresh collector sees the dependent of an owner it never saw.
  GarbageCollectorOptions opts;
  opts.resync = std::chrono::seconds(30);
  gc_ =
      std::make_unique<GarbageCollector>(registry_.get(), &clock_, &rng_, opts);
  gc_->Start();
  EXPECT_TRUE(Gone(*res_.leases, "default", "dep"));
}

INSTANTIATE_TEST_SUITE_P(OwnOrSharedInformers, GarbageCollectorTest,
                         ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? "Shared" : "Own";
                         });

}  // namespace
}  // namespace kmock::controllers
