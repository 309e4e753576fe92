// The disruption controller against a registry: a budget's status follows
// the pods its selector picks as they become ready and go, an eviction's
// pending entry keeps its pod out of the count, and a maxUnavailable
// budget over pods without a controller fails safe with its events.
#include "controllers/disruption/disruption_controller.h"

#include <gtest/gtest.h>

#include "controllers/replicaset_controller.h"
#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;

class DisruptionControllerTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    ASSERT_NE(res_.poddisruptionbudgets, nullptr);
    pods_ = std::make_unique<Informer>(registry_.get(), res_.pods);
    pods_->AddIndex(kByNamespaceIndex, NamespaceIndex);
    ctl_ = std::make_unique<DisruptionController>(registry_.get(), &clock_,
                                                  res_, pods_.get());
    pods_->Start();
    ctl_->Start();
  }
  void TearDown() override {
    ctl_->Stop();
    pods_->Stop();
    ControllerFixture::TearDown();
  }

  void CreatePod(const std::string& name, bool ready) {
    json pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}, {"labels", {{"app", "web"}}}}},
        {"spec", {{"containers", {{{"name", "app"}, {"image", "nginx"}}}}}}};
    ASSERT_TRUE(registry_->Create(*res_.pods, "default", pod, {}).ok());
    SetReady(name, ready);
  }
  void SetReady(const std::string& name, bool ready) {
    auto live = registry_->Get(*res_.pods, "default", name);
    ASSERT_TRUE(live.ok());
    json pod = *live;
    pod["status"]["phase"] = "Running";
    pod["status"]["conditions"] = {
        {{"type", "Ready"}, {"status", ready ? "True" : "False"}}};
    ASSERT_TRUE(
        registry_->Update(*res_.pods, "default", name, "status", pod, {}).ok());
  }
  void CreateBudget(const std::string& name, json spec) {
    spec["selector"] = {{"matchLabels", {{"app", "web"}}}};
    json pdb = {{"apiVersion", "policy/v1"},
                {"kind", "PodDisruptionBudget"},
                {"metadata", {{"name", name}}},
                {"spec", spec}};
    auto created =
        registry_->Create(*res_.poddisruptionbudgets, "default", pdb, {});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }
  json Status(const std::string& name) {
    auto r = registry_->Get(*res_.poddisruptionbudgets, "default", name);
    if (!r.ok() || !(*r)["status"].is_object()) return json::object();
    return (*r)["status"];
  }

  std::unique_ptr<Informer> pods_;
  std::unique_ptr<DisruptionController> ctl_;
};

TEST_F(DisruptionControllerTest, StatusFollowsTheSelectedPods) {
  CreatePod("a", true);
  CreatePod("b", true);
  CreateBudget("web", {{"minAvailable", 1}});
  ASSERT_TRUE(Eventually([&] {
    json s = Status("web");
    return s.value("disruptionsAllowed", -1) == 1 &&
           s.value("currentHealthy", -1) == 2 &&
           s.value("expectedPods", -1) == 2 &&
           s.value("observedGeneration", -1) == 1;
  })) << Status("web").dump();
  SetReady("b", false);
  ASSERT_TRUE(Eventually([&] {
    json s = Status("web");
    return s.value("disruptionsAllowed", -1) == 0 &&
           s["conditions"][0]["reason"] == "InsufficientPods";
  })) << Status("web").dump();
  ASSERT_TRUE(registry_->Delete(*res_.pods, "default", "b", {}).ok());
  CreatePod("c", true);
  EXPECT_TRUE(Eventually([&] {
    return Status("web").value("disruptionsAllowed", -1) == 1;
  })) << Status("web").dump();
}

TEST_F(DisruptionControllerTest, APendingEvictionKeepsItsPodOutOfTheCount) {
  CreatePod("a", true);
  CreatePod("b", true);
  CreateBudget("web", {{"minAvailable", 1}});
  ASSERT_TRUE(Eventually(
      [&] { return Status("web").value("disruptionsAllowed", -1) == 1; }));
  auto live = registry_->Get(*res_.poddisruptionbudgets, "default", "web");
  ASSERT_TRUE(live.ok());
  json pdb = *live;
  pdb["status"]["disruptionsAllowed"] = 0;
  pdb["status"]["disruptedPods"] = {{"a", FormatRfc3339(clock_.Now())}};
  ASSERT_TRUE(registry_
                  ->Update(*res_.poddisruptionbudgets, "default", "web",
                           "status", pdb, {})
                  .ok());
  auto counted_out = [&] {
    json s = Status("web");
    return s.value("currentHealthy", -1) == 1 &&
           s.value("disruptionsAllowed", -1) == 0 &&
           s["disruptedPods"].contains("a");
  };
  ASSERT_TRUE(Eventually(counted_out)) << Status("web").dump();
  EXPECT_TRUE(Stays(counted_out)) << Status("web").dump();
}

TEST_F(DisruptionControllerTest, PodsWithoutAControllerFailSafe) {
  CreatePod("a", true);
  CreateBudget("web", {{"maxUnavailable", 1}});
  ASSERT_TRUE(Eventually([&] {
    json s = Status("web");
    return s.contains("conditions") &&
           s["conditions"][0]["reason"] == "SyncFailed";
  })) << Status("web").dump();
  json s = Status("web");
  EXPECT_EQ(s["disruptionsAllowed"], 0);
  EXPECT_EQ(s["conditions"][0]["message"],
            "found no controller ref for pod \"a\"");
}

}  // namespace
}  // namespace kmock::controllers
