// The API Priority and Fairness configuration loops: kube-apiserver 1.33's
// bootstrap objects are created, the mandatory ones put back after an edit
// or a delete, the suggested ones left alone once their autoupdate
// annotation says "false", unwanted auto-updated objects removed, and each
// FlowSchema's Dangling condition kept; a second pass writes nothing.
#include "controllers/flowcontrol/apf_configuration.h"

#include <gtest/gtest.h>

#include "common/json_view.h"
#include "controllers/flowcontrol/apf_bootstrap.h"
#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;

class ApfConfigurationTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    schemas_ = registry_->catalog().Find("flowcontrol.apiserver.k8s.io", "v1",
                                         "flowschemas");
    levels_ = registry_->catalog().Find("flowcontrol.apiserver.k8s.io", "v1",
                                        "prioritylevelconfigurations");
    ASSERT_NE(schemas_, nullptr);
    ASSERT_NE(levels_, nullptr);
    apf_ = std::make_unique<ApfConfiguration>(registry_.get(), &clock_,
                                              schemas_, levels_);
  }
  void TearDown() override {
    apf_.reset();
    ControllerFixture::TearDown();
  }

  json Get(const api::ResourceInfo* res, const std::string& name) {
    auto r = registry_->Get(*res, "", name);
    return r.ok() ? *r : json();
  }
  std::string Revision() {
    auto list = registry_->List(*schemas_, "", {});
    return list.ok() ? (*list)["metadata"]["resourceVersion"].get<std::string>()
                     : "";
  }
  // A cluster admin's change.
  void Edit(const api::ResourceInfo* res, const std::string& name,
            const std::function<void(json&)>& change) {
    registry::WriteOptions wo;
    wo.user.name = "kubernetes-admin";
    wo.user.groups = {"kubeadm:cluster-admins", "system:authenticated"};
    wo.field_manager = "kubectl-edit";
    auto r = registry_->GuaranteedUpdate(
        *res, "", name, "",
        [&](json& obj) {
          change(obj);
          return Status::Ok();
        },
        wo);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void Delete(const api::ResourceInfo* res, const std::string& name) {
    ASSERT_TRUE(registry_->Delete(*res, "", name, {}).ok());
  }
  static json RejectingLevel(const std::string& name) {
    json limited = {{"limitResponse", {{"type", "Reject"}}}};
    return {{"apiVersion", "flowcontrol.apiserver.k8s.io/v1"},
            {"kind", "PriorityLevelConfiguration"},
            {"metadata", {{"name", name}}},
            {"spec", {{"type", "Limited"}, {"limited", std::move(limited)}}}};
  }
  static json Dangling(const json& schema) {
    for (const json& c : ArrayAt(ObjectAt(schema, "status"), "conditions")) {
      if (c["type"] == "Dangling") return c;
    }
    return json();
  }

  const api::ResourceInfo* schemas_ = nullptr;
  const api::ResourceInfo* levels_ = nullptr;
  std::unique_ptr<ApfConfiguration> apf_;
};

TEST_F(ApfConfigurationTest, BootstrapIsKubeApiserver133s) {
  const ApfBootstrapObjects& boot = ApfBootstrapConfiguration();
  EXPECT_EQ(boot.LevelNames(),
            (std::set<std::string>{"catch-all", "exempt", "global-default",
                                   "leader-election", "node-high", "system",
                                   "workload-high", "workload-low"}));
  EXPECT_EQ(boot.SchemaNames(),
            (std::set<std::string>{
                "catch-all", "endpoint-controller", "exempt", "global-default",
                "kube-controller-manager", "kube-scheduler",
                "kube-system-service-accounts", "probes", "service-accounts",
                "system-leader-election", "system-node-high", "system-nodes",
                "workload-leader-election"}));
  EXPECT_EQ(boot.mandatory_levels.size(), 2u);
  EXPECT_EQ(boot.mandatory_schemas.size(), 2u);
  const json& workload_low = boot.suggested_levels[4];
  EXPECT_EQ(workload_low["metadata"]["name"], "workload-low");
  EXPECT_EQ(workload_low["spec"]["limited"]["nominalConcurrencyShares"], 100);
  EXPECT_EQ(workload_low["spec"]["limited"]["lendablePercent"], 90);
  EXPECT_EQ(workload_low["spec"]["limited"]["limitResponse"]["queuing"],
            json({{"queues", 128}, {"handSize", 6}, {"queueLengthLimit", 50}}));
  const json& probes = boot.suggested_schemas[2];
  EXPECT_EQ(probes["metadata"]["name"], "probes");
  EXPECT_EQ(probes["spec"]["matchingPrecedence"], 2);
  EXPECT_FALSE(probes["spec"].contains("distinguisherMethod"));
  EXPECT_EQ(
      probes["spec"]["rules"][0]["nonResourceRules"][0]["nonResourceURLs"],
      json({"/healthz", "/readyz", "/livez"}));
  EXPECT_EQ(probes["metadata"]["annotations"][kApfAutoUpdateAnnotation],
            "true");
}

TEST_F(ApfConfigurationTest, CreatesEverythingOnceAsKubeApiserver) {
  ASSERT_TRUE(apf_->EnsureBootstrap().ok());
  ASSERT_TRUE(apf_->SyncDanglingConditions().ok());
  auto fs = registry_->List(*schemas_, "", {});
  auto pl = registry_->List(*levels_, "", {});
  ASSERT_TRUE(fs.ok() && pl.ok());
  EXPECT_EQ((*fs)["items"].size(), 13u);
  EXPECT_EQ((*pl)["items"].size(), 8u);
  json catch_all = Get(levels_, "catch-all");
  EXPECT_EQ(catch_all["spec"]["limited"],
            json({{"nominalConcurrencyShares", 5},
                  {"lendablePercent", 0},
                  {"limitResponse", {{"type", "Reject"}}}}));
  EXPECT_EQ(catch_all["metadata"]["annotations"][kApfAutoUpdateAnnotation],
            "true");
  EXPECT_EQ(catch_all["metadata"]["managedFields"][0]["manager"],
            kApfProducerFieldManager);
  json exempt = Get(schemas_, "exempt");
  json cond = Dangling(exempt);
  EXPECT_EQ(cond["status"], "False");
  EXPECT_EQ(cond["reason"], "Found");
  EXPECT_EQ(cond["message"],
            "This FlowSchema references the PriorityLevelConfiguration object "
            "named \"exempt\" and it exists");
  bool consumer = false;
  for (const json& m : exempt["metadata"]["managedFields"]) {
    if (m["manager"] == kApfConsumerFieldManager) {
      consumer = m["operation"] == "Apply" && m["subresource"] == "status";
    }
  }
  EXPECT_TRUE(consumer) << exempt["metadata"]["managedFields"].dump();
  // Everything is in place: another pass (a restart) writes nothing.
  const std::string rv = Revision();
  ASSERT_TRUE(apf_->EnsureBootstrap().ok());
  ASSERT_TRUE(apf_->SyncDanglingConditions().ok());
  EXPECT_EQ(Revision(), rv);
}

TEST_F(ApfConfigurationTest, MandatoryObjectsArePutBack) {
  ASSERT_TRUE(apf_->EnsureBootstrap().ok());
  Edit(schemas_, "catch-all", [](json& fs) {
    fs["spec"]["matchingPrecedence"] = 5000;
    fs["metadata"]["annotations"][kApfAutoUpdateAnnotation] = "false";
  });
  Delete(levels_, "catch-all");
  ASSERT_TRUE(apf_->EnsureBootstrap().ok());
  json fs = Get(schemas_, "catch-all");
  EXPECT_EQ(fs["spec"]["matchingPrecedence"], 10000);
  EXPECT_EQ(fs["metadata"]["annotations"][kApfAutoUpdateAnnotation], "true");
  EXPECT_EQ(
      Get(levels_, "catch-all")["spec"]["limited"]["nominalConcurrencyShares"],
      5);
}

TEST_F(ApfConfigurationTest, ExemptLevelKeepsItsOwnShares) {
  ASSERT_TRUE(apf_->EnsureBootstrap().ok());
  Edit(levels_, "exempt",
       [](json& pl) { pl["spec"]["exempt"]["nominalConcurrencyShares"] = 10; });
  const std::string rv = Revision();
  ASSERT_TRUE(apf_->EnsureBootstrap().ok());
  EXPECT_EQ(Revision(), rv);
  EXPECT_EQ(
      Get(levels_, "exempt")["spec"]["exempt"]["nominalConcurrencyShares"], 10);
}

TEST_F(ApfConfigurationTest, SuggestedObjectsFollowTheirAnnotation) {
  ASSERT_TRUE(apf_->EnsureBootstrap().ok());
  // "false": the operator's spec stays.
  Edit(levels_, "global-default", [](json& pl) {
    pl["spec"]["limited"]["nominalConcurrencyShares"] = 77;
    pl["metadata"]["annotations"][kApfAutoUpdateAnnotation] = "false";
  });
  // Still "true": put back.
  Edit(levels_, "workload-low",
       [](json& pl) { pl["spec"]["limited"]["nominalConcurrencyShares"] = 1; });
  // No annotation and a changed spec (generation 2): left alone, and
  // marked "false".
  Edit(schemas_, "service-accounts", [](json& fs) {
    fs["metadata"].erase("annotations");
    fs["spec"]["matchingPrecedence"] = 8000;
  });
  // Deleted: made again.
  Delete(schemas_, "probes");
  ASSERT_TRUE(apf_->EnsureBootstrap().ok());
  json global = Get(levels_, "global-default");
  EXPECT_EQ(global["spec"]["limited"]["nominalConcurrencyShares"], 77);
  EXPECT_EQ(global["metadata"]["annotations"][kApfAutoUpdateAnnotation],
            "false");
  EXPECT_EQ(Get(levels_,
                "workload-low")["spec"]["limited"]["nominalConcurrencyShares"],
            100);
  json sa = Get(schemas_, "service-accounts");
  EXPECT_EQ(sa["spec"]["matchingPrecedence"], 8000);
  EXPECT_EQ(sa["metadata"]["annotations"][kApfAutoUpdateAnnotation], "false");
  EXPECT_EQ(Get(schemas_, "probes")["spec"]["matchingPrecedence"], 2);
}

TEST_F(ApfConfigurationTest, UnwantedAutoUpdatedObjectsAreRemoved) {
  for (const char* name : {"retired", "kept", "mine"}) {
    json pl = RejectingLevel(name);
    if (std::string(name) == "retired") {
      pl["metadata"]["annotations"][kApfAutoUpdateAnnotation] = "true";
    } else if (std::string(name) == "kept") {
      pl["metadata"]["annotations"][kApfAutoUpdateAnnotation] = "false";
    }
    ASSERT_TRUE(registry_->Create(*levels_, "", pl, {}).ok());
  }
  ASSERT_TRUE(apf_->EnsureBootstrap().ok());
  EXPECT_TRUE(Get(levels_, "retired").is_null());
  EXPECT_FALSE(Get(levels_, "kept").is_null());
  EXPECT_FALSE(Get(levels_, "mine").is_null());
}

TEST_F(ApfConfigurationTest, DanglingSaysWhetherTheLevelExists) {
  json fs = {{"apiVersion", "flowcontrol.apiserver.k8s.io/v1"},
             {"kind", "FlowSchema"},
             {"metadata", {{"name", "batch"}}},
             {"spec",
              {{"priorityLevelConfiguration", {{"name", "batch-level"}}},
               {"rules", json::array()}}}};
  ASSERT_TRUE(registry_->Create(*schemas_, "", fs, {}).ok());
  ASSERT_TRUE(apf_->SyncDanglingConditions().ok());
  json cond = Dangling(Get(schemas_, "batch"));
  EXPECT_EQ(cond["status"], "True");
  EXPECT_EQ(cond["reason"], "NotFound");
  EXPECT_EQ(cond["message"],
            "This FlowSchema references the PriorityLevelConfiguration object "
            "named \"batch-level\" but there is no such object");
  EXPECT_EQ(cond["lastTransitionTime"], FormatRfc3339(clock_.Now()));
  json pl = RejectingLevel("batch-level");
  ASSERT_TRUE(registry_->Create(*levels_, "", pl, {}).ok());
  clock_.Advance(std::chrono::seconds(30));
  ASSERT_TRUE(apf_->SyncDanglingConditions().ok());
  cond = Dangling(Get(schemas_, "batch"));
  EXPECT_EQ(cond["status"], "False");
  EXPECT_EQ(cond["reason"], "Found");
  EXPECT_EQ(cond["lastTransitionTime"], FormatRfc3339(clock_.Now()));
}

TEST_F(ApfConfigurationTest, TheLoopEnsuresAndFollowsChanges) {
  apf_->Start();
  EXPECT_TRUE(Eventually([&] {
    return Dangling(Get(schemas_, "global-default"))["status"] == "False";
  }));
  Delete(levels_, "global-default");
  EXPECT_TRUE(Eventually([&] {
    return Dangling(Get(schemas_, "global-default"))["status"] == "True";
  }));
  // The next minute's pass makes the level again.
  clock_.Advance(std::chrono::minutes(1));
  EXPECT_TRUE(Eventually([&] {
    return Dangling(Get(schemas_, "global-default"))["status"] == "False";
  }));
  apf_->Stop();
}

}  // namespace
}  // namespace kmock::controllers
