// pods/eviction through the registry: a pod no budget selects is deleted;
// a budget that allows a disruption is spent (disruptionsAllowed down, the
// pod in disruptedPods) and the pod gets DisruptionTarget and goes; one
// that allows none answers 429 with the DisruptionBudget cause and leaves
// everything as it was; an unprocessed budget, two budgets, a name that
// differs from the URL's and a missing pod get kube-apiserver's answers;
// pending pods and dry runs behave as there.
#include "registry/eviction.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

class EvictionTest : public registry::testing::RegistryFixture {
 protected:
  void SetUp() override {
    RegistryFixture::SetUp();
    pods_ = api::testing::BuiltinCatalog().Find("", "v1", "pods");
    budgets_ = api::testing::BuiltinCatalog().Find("policy", "v1",
                                                   "poddisruptionbudgets");
    ASSERT_NE(pods_, nullptr);
    ASSERT_NE(budgets_, nullptr);
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
  }

  void CreatePod(const std::string& name, const std::string& phase,
                 bool ready) {
    json pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}, {"labels", {{"app", "web"}}}}},
        {"spec", {{"containers", {{{"name", "app"}, {"image", "nginx"}}}}}}};
    ASSERT_TRUE(registry_->Create(*pods_, "default", pod, {}).ok());
    auto live = registry_->Get(*pods_, "default", name);
    ASSERT_TRUE(live.ok());
    json with_status = *live;
    with_status["status"]["phase"] = phase;
    with_status["status"]["conditions"] = {
        {{"type", "Ready"}, {"status", ready ? "True" : "False"}}};
    ASSERT_TRUE(registry_
                    ->Update(*pods_, "default", name, "status",
                             std::move(with_status), {})
                    .ok());
  }

  // A budget whose status says `allowed` disruptions of `healthy` pods
  // with `desired` needed, processed at its generation unless told not.
  void CreateBudget(const std::string& name, int64_t allowed, int64_t healthy,
                    int64_t desired, bool processed = true) {
    json pdb = {{"apiVersion", "policy/v1"},
                {"kind", "PodDisruptionBudget"},
                {"metadata", {{"name", name}}},
                {"spec",
                 {{"minAvailable", desired},
                  {"selector", {{"matchLabels", {{"app", "web"}}}}}}}};
    auto created = registry_->Create(*budgets_, "default", pdb, {});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    json live = created->object;
    live["status"] = {{"disruptionsAllowed", allowed},
                      {"currentHealthy", healthy},
                      {"desiredHealthy", desired},
                      {"expectedPods", healthy},
                      {"observedGeneration", processed ? 1 : 0}};
    ASSERT_TRUE(
        registry_
            ->Update(*budgets_, "default", name, "status", std::move(live), {})
            .ok());
  }

  json Eviction(const std::string& name) {
    return {{"apiVersion", "policy/v1"},
            {"kind", "Eviction"},
            {"metadata", {{"name", name}, {"namespace", "default"}}}};
  }

  Result<json> Evict(const std::string& name, DeleteOptions opts = {}) {
    return EvictPod(*registry_, "default", name, Eviction(name), opts);
  }

  bool PodExists(const std::string& name) {
    return registry_->Get(*pods_, "default", name).ok();
  }
  json Budget(const std::string& name) {
    auto r = registry_->Get(*budgets_, "default", name);
    return r.ok() ? *r : json();
  }

  const api::ResourceInfo* pods_ = nullptr;
  const api::ResourceInfo* budgets_ = nullptr;
};

TEST_F(EvictionTest, WithoutABudgetThePodIsDeleted) {
  CreatePod("a", "Running", true);
  auto out = Evict("a");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)["status"], "Success");
  EXPECT_EQ((*out)["code"], 201);
  // The pod's grace period keeps it, terminating, with its condition.
  auto live = registry_->Get(*pods_, "default", "a");
  if (live.ok()) {
    EXPECT_TRUE((*live)["metadata"].contains("deletionTimestamp"));
    bool marked = false;
    for (const json& c : (*live)["status"]["conditions"]) {
      marked |= c["type"] == "DisruptionTarget" &&
                c["reason"] == "EvictionByEvictionAPI";
    }
    EXPECT_TRUE(marked) << live->dump();
  }
}

TEST_F(EvictionTest, ABudgetThatAllowsItIsSpent) {
  CreatePod("a", "Running", true);
  CreateBudget("web", 1, 3, 2);
  ASSERT_TRUE(Evict("a").ok());
  json status = Budget("web")["status"];
  EXPECT_EQ(status["disruptionsAllowed"], 0);
  EXPECT_EQ(status["disruptedPods"]["a"], "2027-01-15T08:00:00Z");
  auto live = registry_->Get(*pods_, "default", "a");
  EXPECT_TRUE(!live.ok() || (*live)["metadata"].contains("deletionTimestamp"));
}

TEST_F(EvictionTest, ABudgetThatAllowsNothingRefusesWith429) {
  CreatePod("a", "Running", true);
  CreateBudget("web", 0, 2, 2);
  auto out = Evict("a");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kTooManyRequests);
  EXPECT_EQ(out.status().message(),
            "Cannot evict pod as it would violate the pod's disruption "
            "budget.");
  ASSERT_EQ(out.status().details().causes.size(), 1u);
  EXPECT_EQ(out.status().details().causes[0].reason, "DisruptionBudget");
  EXPECT_EQ(out.status().details().causes[0].message,
            "The disruption budget web needs 2 healthy pods and has 2 "
            "currently");
  EXPECT_EQ(out.status().details().retry_after_seconds, 0);
  auto live = registry_->Get(*pods_, "default", "a");
  ASSERT_TRUE(live.ok());
  EXPECT_FALSE((*live)["metadata"].contains("deletionTimestamp"));
  EXPECT_FALSE(Budget("web")["status"].contains("disruptedPods"));
}

TEST_F(EvictionTest, AnUnprocessedBudgetAsksToComeBack) {
  CreatePod("a", "Running", true);
  CreateBudget("web", 1, 3, 2, /*processed=*/false);
  auto out = Evict("a");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kTooManyRequests);
  EXPECT_EQ(out.status().details().causes[0].message,
            "The disruption budget web is still being processed by the "
            "server.");
  EXPECT_EQ(out.status().details().retry_after_seconds, 10);
  EXPECT_TRUE(PodExists("a"));
}

TEST_F(EvictionTest, PendingPodsAndUnreadyPodsOfAMetBudgetGoFreely) {
  CreatePod("pending", "Pending", false);
  CreatePod("unready", "Running", false);
  CreateBudget("web", 0, 2, 2);
  EXPECT_TRUE(Evict("pending").ok());
  // Two healthy pods remain, as the budget needs: the unready one is no
  // loss.
  EXPECT_TRUE(Evict("unready").ok());
  EXPECT_EQ(Budget("web")["status"]["disruptionsAllowed"], 0);
}

TEST_F(EvictionTest, TwoBudgetsAreMoreThanEvictionSupports) {
  CreatePod("a", "Running", true);
  CreateBudget("one", 1, 3, 2);
  CreateBudget("two", 1, 3, 2);
  auto out = Evict("a");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInternal);
  EXPECT_NE(out.status().message().find(
                "This pod has more than one PodDisruptionBudget"),
            std::string::npos);
  EXPECT_TRUE(PodExists("a"));
}

TEST_F(EvictionTest, BadRequestsAndMissingPods) {
  CreatePod("a", "Running", true);
  auto mismatch = EvictPod(*registry_, "default", "a", Eviction("b"), {});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().code(), StatusCode::kBadRequest);
  EXPECT_EQ(mismatch.status().message(),
            "name in URL does not match name in Eviction object");
  auto missing = Evict("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "pods \"nope\" not found");
}

TEST_F(EvictionTest, ADryRunSpendsAndDeletesNothing) {
  CreatePod("a", "Running", true);
  CreateBudget("web", 1, 3, 2);
  DeleteOptions dry;
  dry.dry_run = true;
  ASSERT_TRUE(Evict("a", dry).ok());
  EXPECT_EQ(Budget("web")["status"]["disruptionsAllowed"], 1);
  auto live = registry_->Get(*pods_, "default", "a");
  ASSERT_TRUE(live.ok());
  EXPECT_FALSE((*live)["metadata"].contains("deletionTimestamp"));
}

}  // namespace
}  // namespace kmock::registry
