// The namespace controller: the conditions it writes, and namespaces
// emptied and removed through the real registry and controller manager.
#include "controllers/namespace_controller.h"

#include "controllers/garbage_collector.h"
#include "controllers/gc_test_harness.h"

namespace kmock::controllers {
namespace {

using std::chrono::milliseconds;

const json* FindCondition(const json& conds, const std::string& type) {
  for (const json& c : conds) {
    if (c.value("type", "") == type) return &c;
  }
  return nullptr;
}

TEST(NamespaceConditionsTest, EmptyNamespaceConditions) {
  json conds = NamespaceDeletionConditions({}, json::array(), "T1");
  ASSERT_EQ(conds.size(), 5u);
  std::vector<std::string> types;
  for (const json& c : conds) types.push_back(c["type"]);
  EXPECT_EQ(types,
            (std::vector<std::string>{
                "NamespaceDeletionDiscoveryFailure",
                "NamespaceDeletionGroupVersionParsingFailure",
                "NamespaceDeletionContentFailure", "NamespaceContentRemaining",
                "NamespaceFinalizersRemaining"}));
  EXPECT_EQ(conds[0],
            json({{"type", "NamespaceDeletionDiscoveryFailure"},
                  {"status", "False"},
                  {"lastTransitionTime", "T1"},
                  {"reason", "ResourcesDiscovered"},
                  {"message", "All resources successfully discovered"}}));
  EXPECT_EQ(conds[1]["message"], "All legacy kube types successfully parsed");
  EXPECT_EQ(conds[2]["reason"], "ContentDeleted");
  EXPECT_EQ(conds[2]["message"],
            "All content successfully deleted, may be waiting on finalization");
  EXPECT_EQ(conds[3]["reason"], "ContentRemoved");
  EXPECT_EQ(conds[3]["message"], "All content successfully removed");
  EXPECT_EQ(conds[4]["reason"], "ContentHasNoFinalizers");
  EXPECT_EQ(conds[4]["message"], "All content-preserving finalizers finished");
}

TEST(NamespaceConditionsTest, RemainingContentAndTransitionTimes) {
  NamespaceContentTally t;
  t.remaining = {{"pods.", 2}, {"leases.coordination.k8s.io", 1}};
  t.finalizers = {{"example.com/hold", 1}};
  json first = NamespaceDeletionConditions({}, json::array(), "T1");
  json conds = NamespaceDeletionConditions(t, first, "T2");
  const json* remaining = FindCondition(conds, "NamespaceContentRemaining");
  ASSERT_NE(remaining, nullptr);
  EXPECT_EQ((*remaining)["status"], "True");
  EXPECT_EQ((*remaining)["reason"], "SomeResourcesRemain");
  EXPECT_EQ((*remaining)["message"],
            "Some resources are remaining: leases.coordination.k8s.io has 1 "
            "resource instances, pods. has 2 resource instances");
  EXPECT_EQ((*remaining)["lastTransitionTime"], "T2");  // status changed
  const json* fins = FindCondition(conds, "NamespaceFinalizersRemaining");
  EXPECT_EQ((*fins)["reason"], "SomeFinalizersRemain");
  EXPECT_EQ((*fins)["message"],
            "Some content in the namespace has finalizers remaining: "
            "example.com/hold in 1 resource instances");
  // Unchanged statuses keep their time.
  EXPECT_EQ(FindCondition(conds, "NamespaceDeletionDiscoveryFailure")
                ->at("lastTransitionTime"),
            "T1");

  t.errors = {"pods.: boom"};
  conds = NamespaceDeletionConditions(t, conds, "T3");
  const json* failure = FindCondition(conds, "NamespaceDeletionContentFailure");
  EXPECT_EQ((*failure)["status"], "True");
  EXPECT_EQ((*failure)["reason"], "ContentDeletionFailed");
  EXPECT_EQ((*failure)["message"],
            "Failed to delete all resource types, 1 remaining: pods.: boom");
}

class NamespaceControllerTest : public GcTestHarness {
 protected:
  void SetUp() override {
    GcTestHarness::SetUp();
    if (HasFatalFailure()) return;
    gc_ = std::make_unique<GarbageCollector>(registry_.get(), &clock_, &rng_);
    gc_->Start();
    nc_ =
        std::make_unique<NamespaceController>(registry_.get(), &clock_, &rng_);
    nc_->Start();
  }
  void StopControllers() override {
    if (nc_) nc_->Stop();
    if (gc_) gc_->Stop();
  }

  std::unique_ptr<GarbageCollector> gc_;
  std::unique_ptr<NamespaceController> nc_;
};

TEST_F(NamespaceControllerTest, EmptiesAndRemovesANamespace) {
  Namespace("lab");
  json owner = Lease("lab", "owner");
  Pod("lab", "p1", json::array({RefTo(owner, true)}));
  Pod("lab", "p2");
  Service("lab", "web");
  ASSERT_TRUE(Eventually([&] {
    json p = Get(*res_.pods, "lab", "p1");
    return p["status"].value("phase", "") == "Running";
  }));
  ASSERT_TRUE(Delete(*res_.namespaces, "", "lab").ok());
  json ns = Get(*res_.namespaces, "", "lab");
  EXPECT_EQ(ns["status"]["phase"], "Terminating");
  // Nothing new can be made in it.
  auto r = registry_->Create(
      *res_.leases, "lab",
      {{"metadata", {{"name", "late"}}}, {"spec", json::object()}},
      registry::WriteOptions{});
  EXPECT_EQ(r.status().code(), StatusCode::kForbidden);

  EXPECT_TRUE(Gone(*res_.namespaces, "", "lab", milliseconds(100)));
  for (const char* p : {"p1", "p2"}) {
    EXPECT_TRUE(Get(*res_.pods, "lab", p).is_null()) << p;
  }
  EXPECT_TRUE(Get(*res_.services, "lab", "web").is_null());
  EXPECT_TRUE(Get(*res_.leases, "lab", "owner").is_null());
  // The same name can be used again, and it is Active.
  json again = Namespace("lab");
  EXPECT_EQ(again["status"]["phase"], "Active");
}

TEST_F(NamespaceControllerTest, FinalizerInTheNamespaceKeepsItUntilRemoved) {
  Namespace("hold");
  Lease("hold", "held", json::array(), json::array({"example.com/hold"}));
  Lease("hold", "free");
  ASSERT_TRUE(Delete(*res_.namespaces, "", "hold").ok());

  ASSERT_TRUE(Eventually(
      [&] {
        json ns = Get(*res_.namespaces, "", "hold");
        json conds = ns["status"].value("conditions", json::array());
        const json* c = FindCondition(conds, "NamespaceFinalizersRemaining");
        return c != nullptr && (*c)["status"] == "True";
      },
      milliseconds(100)));
  json ns = Get(*res_.namespaces, "", "hold");
  const json& conds = ns["status"]["conditions"];
  EXPECT_EQ(FindCondition(conds, "NamespaceContentRemaining")->at("message"),
            "Some resources are remaining: leases.coordination.k8s.io has 1 "
            "resource instances");
  EXPECT_EQ(FindCondition(conds, "NamespaceFinalizersRemaining")->at("message"),
            "Some content in the namespace has finalizers remaining: "
            "example.com/hold in 1 resource instances");
  EXPECT_EQ(
      FindCondition(conds, "NamespaceDeletionContentFailure")->at("status"),
      "False");
  EXPECT_TRUE(Get(*res_.leases, "hold", "free").is_null());
  json held = Get(*res_.leases, "hold", "held");
  EXPECT_TRUE(held["metadata"].contains("deletionTimestamp"));
  EXPECT_TRUE(
      Stays([&] { return !Get(*res_.namespaces, "", "hold").is_null(); }));

  auto r = registry_->GuaranteedUpdate(
      *res_.leases, "hold", "held", "",
      [](json& obj) {
        obj["metadata"].erase("finalizers");
        return Status::Ok();
      },
      registry::WriteOptions{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(Gone(*res_.namespaces, "", "hold", milliseconds(100)));
}

// kube-controller-manager queues a terminating namespace 5 s after its
// event (namespaceDeletionGracePeriod): the content stays that long.
TEST_F(NamespaceControllerTest, ContentStaysForTheDeletionGracePeriod) {
  Namespace("slow");
  Lease("slow", "l");
  Service("slow", "web");
  TimePoint t0 = clock_.Now();
  ASSERT_TRUE(Delete(*res_.namespaces, "", "slow").ok());
  EXPECT_EQ(Get(*res_.namespaces, "", "slow")["status"]["phase"],
            "Terminating");
  // While the clock stands still nothing goes.
  EXPECT_TRUE(Stays([&] { return !Get(*res_.leases, "slow", "l").is_null(); }));
  clock_.Advance(std::chrono::milliseconds(4900));
  EXPECT_TRUE(
      Stays([&] { return !Get(*res_.services, "slow", "web").is_null(); }));
  ASSERT_TRUE(Gone(*res_.leases, "slow", "l", milliseconds(100)));
  auto elapsed = clock_.Now() - t0;
  EXPECT_GE(elapsed, std::chrono::seconds(5));
  EXPECT_LT(elapsed, std::chrono::seconds(7));
  EXPECT_TRUE(Get(*res_.services, "slow", "web").is_null());
  EXPECT_TRUE(Gone(*res_.namespaces, "", "slow", milliseconds(100)));
}

TEST_F(NamespaceControllerTest, LeavesActiveNamespacesAlone) {
  Namespace("keep");
  Lease("keep", "l");
  ASSERT_TRUE(nc_->Sync("keep").ok());
  ASSERT_TRUE(nc_->Sync("missing").ok());
  EXPECT_FALSE(Get(*res_.leases, "keep", "l").is_null());
  EXPECT_EQ(Get(*res_.namespaces, "", "keep")["status"]["phase"], "Active");
}

}  // namespace
}  // namespace kmock::controllers
