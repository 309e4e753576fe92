// The DaemonSet controller against a registry (the test plays scheduler and
// kubelet: it marks pods ready and finishes deletions): one pod per fitting
// node, a node that starts to fit gets one, a new template rolls out one
// node at a time with a second ControllerRevision, a failed pod is
// replaced with the FailedDaemonPod event, and status counts it all.
#include "controllers/daemonset/daemonset_controller.h"

#include <gtest/gtest.h>

#include "controllers/replicaset_controller.h"
#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;

class DaemonSetControllerTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    ASSERT_NE(res_.daemonsets, nullptr);
    ASSERT_NE(res_.controllerrevisions, nullptr);
    pods_ = std::make_unique<Informer>(registry_.get(), res_.pods);
    pods_->AddIndex(kByNamespaceIndex, NamespaceIndex);
    pods_->AddIndex(kByControllerIndex, ControllerIndex);
    nodes_ = std::make_unique<Informer>(registry_.get(), res_.nodes);
    ctl_ = std::make_unique<DaemonSetController>(registry_.get(), &clock_, res_,
                                                 pods_.get(), nodes_.get());
    for (const char* n : {"a", "b"}) AddNode(n, "ssd");
    AddNode("c", "hdd");
    pods_->Start();
    nodes_->Start();
    ctl_->Start();
  }
  void TearDown() override {
    ctl_->Stop();
    nodes_->Stop();
    pods_->Stop();
    ControllerFixture::TearDown();
  }

  void AddNode(const std::string& name, const std::string& disk) {
    json node = {{"apiVersion", "v1"},
                 {"kind", "Node"},
                 {"metadata", {{"name", name}, {"labels", {{"disk", disk}}}}}};
    ASSERT_TRUE(registry_->Create(*res_.nodes, "", node, {}).ok());
  }
  void CreateDaemonSet() {
    json ds = {
        {"apiVersion", "apps/v1"},
        {"kind", "DaemonSet"},
        {"metadata", {{"name", "agent"}}},
        {"spec",
         {{"selector", {{"matchLabels", {{"app", "agent"}}}}},
          {"template",
           {{"metadata", {{"labels", {{"app", "agent"}}}}},
            {"spec",
             {{"nodeSelector", {{"disk", "ssd"}}},
              {"containers", {{{"name", "a"}, {"image", "agent:1"}}}}}}}}}}};
    auto made = registry_->Create(*res_.daemonsets, "default", ds, {});
    ASSERT_TRUE(made.ok()) << made.status().ToString();
  }
  std::vector<json> Pods() { return Items(*res_.pods); }
  // Plays the kubelet: terminating pods go, the others run and are ready
  // (or fail, for `fail`).
  void Kubelet(const std::string& fail = "") {
    for (json pod : Pods()) {
      const std::string name = pod["metadata"]["name"];
      if (pod["metadata"].contains("deletionTimestamp")) {
        registry::DeleteOptions now;
        now.grace_period_seconds = 0;
        (void)registry_->Delete(*res_.pods, "default", name, now);
        continue;
      }
      if (pod.value("status", json::object()).value("phase", "") == "Failed") {
        continue;
      }
      const bool failed = name == fail;
      pod["status"]["phase"] = failed ? "Failed" : "Running";
      pod["status"]["conditions"] = {
          {{"type", "Ready"},
           {"status", failed ? "False" : "True"},
           {"lastTransitionTime", "2025-01-01T09:00:00Z"}}};
      (void)registry_->Update(*res_.pods, "default", name, "status", pod, {});
    }
  }
  json DsStatus() {
    auto r = registry_->Get(*res_.daemonsets, "default", "agent");
    return r.ok() ? (*r).value("status", json::object()) : json::object();
  }
  std::map<std::string, std::string> NodeToImage() {
    std::map<std::string, std::string> out;
    for (const json& p : Pods()) {
      if (p["metadata"].contains("deletionTimestamp")) continue;
      const json& terms = p["spec"]["affinity"]["nodeAffinity"]
                           ["requiredDuringSchedulingIgnoredDuringExecution"]
                           ["nodeSelectorTerms"];
      out[terms[0]["matchFields"][0]["values"][0]] =
          p["spec"]["containers"][0]["image"];
    }
    return out;
  }
  std::vector<json> Revisions() { return Items(*res_.controllerrevisions); }

  std::unique_ptr<Informer> pods_;
  std::unique_ptr<Informer> nodes_;
  std::unique_ptr<DaemonSetController> ctl_;
};

TEST_F(DaemonSetControllerTest, OnePodPerFittingNodeAndStatus) {
  CreateDaemonSet();
  using M = std::map<std::string, std::string>;
  ASSERT_TRUE(Eventually([&] {
    return NodeToImage() == M{{"a", "agent:1"}, {"b", "agent:1"}};
  }));
  ASSERT_TRUE(Eventually([&] { return Revisions().size() == 1; }));
  const json rev = Revisions()[0];
  EXPECT_EQ(rev["revision"], 1);
  for (const json& p : Pods()) {
    EXPECT_EQ(p["metadata"]["labels"]["controller-revision-hash"],
              rev["metadata"]["labels"]["controller-revision-hash"]);
    EXPECT_EQ(p["metadata"]["labels"]["pod-template-generation"], "1");
    EXPECT_EQ(p["metadata"]["ownerReferences"][0]["kind"], "DaemonSet");
  }
  Kubelet();
  ASSERT_TRUE(Eventually([&] {
    json st = DsStatus();
    return st.value("numberReady", 0) == 2 &&
           st.value("numberAvailable", 0) == 2 &&
           st.value("updatedNumberScheduled", 0) == 2 &&
           st.value("desiredNumberScheduled", 0) == 2 &&
           st.value("observedGeneration", 0) == 1;
  })) << DsStatus().dump();

  // Node c starts to fit.
  auto c = registry_->Get(*res_.nodes, "", "c");
  ASSERT_TRUE(c.ok());
  json node = *c;
  node["metadata"]["labels"]["disk"] = "ssd";
  ASSERT_TRUE(registry_->Update(*res_.nodes, "", "c", "", node, {}).ok());
  ASSERT_TRUE(Eventually([&] { return NodeToImage().size() == 3; }));
}

TEST_F(DaemonSetControllerTest, RollingUpdateReplacesOneNodeAtATime) {
  CreateDaemonSet();
  ASSERT_TRUE(Eventually([&] { return NodeToImage().size() == 2; }));
  Kubelet();
  ASSERT_TRUE(
      Eventually([&] { return DsStatus().value("numberAvailable", 0) == 2; }));
  auto live = registry_->Get(*res_.daemonsets, "default", "agent");
  ASSERT_TRUE(live.ok());
  json ds = *live;
  ds["spec"]["template"]["spec"]["containers"][0]["image"] = "agent:2";
  ASSERT_TRUE(
      registry_->Update(*res_.daemonsets, "default", "agent", "", ds, {}).ok());
  // Never more than one node without a ready pod.
  bool within_budget = true;
  ASSERT_TRUE(Eventually([&] {
    int serving = 0;
    for (const json& p : Pods()) {
      if (!p["metadata"].contains("deletionTimestamp") &&
          p.value("status", json::object()).value("phase", "") == "Running") {
        ++serving;
      }
    }
    if (serving < 1) within_budget = false;
    Kubelet();
    using M = std::map<std::string, std::string>;
    return NodeToImage() == M{{"a", "agent:2"}, {"b", "agent:2"}} &&
           DsStatus().value("updatedNumberScheduled", 0) == 2 &&
           DsStatus().value("numberAvailable", 0) == 2;
  })) << DsStatus().dump();
  EXPECT_TRUE(within_budget);
  std::vector<json> revisions = Revisions();
  ASSERT_EQ(revisions.size(), 2u);
  std::set<int64_t> numbers;
  for (const json& r : revisions) numbers.insert(r["revision"].get<int64_t>());
  EXPECT_EQ(numbers, (std::set<int64_t>{1, 2}));
  for (const json& p : Pods()) {
    EXPECT_EQ(p["metadata"]["labels"]["pod-template-generation"], "2");
  }
}

TEST_F(DaemonSetControllerTest, FailedPodIsReplaced) {
  CreateDaemonSet();
  ASSERT_TRUE(Eventually([&] { return NodeToImage().size() == 2; }));
  const std::string victim = Pods()[0]["metadata"]["name"];
  Kubelet(victim);
  ASSERT_TRUE(Eventually([&] {
    Kubelet();
    std::vector<json> pods = Pods();
    if (pods.size() != 2) return false;
    for (const json& p : pods) {
      if (p["metadata"]["name"] == victim) return false;
    }
    return NodeToImage().size() == 2;
  }));
  auto events = registry_->List(*res_.events, "default", {});
  ASSERT_TRUE(events.ok());
  bool seen = false;
  for (const json& e : (*events)["items"]) {
    if (e["reason"] == "FailedDaemonPod") {
      seen = true;
      EXPECT_NE(e["message"].get<std::string>().find(
                    "Found failed daemon pod default/" + victim + " on node"),
                std::string::npos);
    }
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace kmock::controllers
