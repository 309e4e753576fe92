// Priority admission through the registry: the class's value, the global
// default, kube-apiserver's 403s, and classes made or changed after the
// first pod are seen by the next one.
#include "registry/admission/priority.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/registry.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

class PriorityAdmissionTest : public registry::testing::RegistryFixture {
 protected:
  void SetUp() override {
    RegistryFixture::SetUp();
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
    pods_ = api::testing::BuiltinCatalog().Find("", "v1", "pods");
    classes_ = api::testing::BuiltinCatalog().Find("scheduling.k8s.io", "v1",
                                                   "priorityclasses");
  }
  void AddClass(const std::string& name, int64_t value, bool global = false,
                const std::string& policy = "") {
    json pc = {{"metadata", {{"name", name}}},
               {"value", value},
               {"globalDefault", global}};
    if (!policy.empty()) pc["preemptionPolicy"] = policy;
    ASSERT_TRUE(registry_->Create(*classes_, "", pc, {}).ok());
  }
  Result<WriteResult> CreatePod(const std::string& name, json spec_extra) {
    json pod = {{"metadata", {{"name", name}}},
                {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}};
    pod["spec"].update(spec_extra);
    return registry_->Create(*pods_, "default", pod, {});
  }

  const api::ResourceInfo* pods_ = nullptr;
  const api::ResourceInfo* classes_ = nullptr;
};

TEST_F(PriorityAdmissionTest, ClassGivesValueAndPolicy) {
  auto plain = CreatePod("plain", json::object());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->object["spec"]["priority"], 0);
  EXPECT_EQ(plain->object["spec"]["preemptionPolicy"], "PreemptLowerPriority");
  EXPECT_FALSE(plain->object["spec"].contains("priorityClassName"));

  // Made after the first pod: the cached classes follow.
  AddClass("high", 1000, false, "Never");
  auto high = CreatePod("high", {{"priorityClassName", "high"}});
  ASSERT_TRUE(high.ok()) << high.status().ToString();
  EXPECT_EQ(high->object["spec"]["priority"], 1000);
  EXPECT_EQ(high->object["spec"]["preemptionPolicy"], "Never");

  auto system =
      CreatePod("sys", {{"priorityClassName", "system-node-critical"}});
  ASSERT_TRUE(system.ok());
  EXPECT_EQ(system->object["spec"]["priority"], 2000001000);
}

TEST_F(PriorityAdmissionTest, GlobalDefaultAppliesToPodsWithoutAClass) {
  AddClass("low-default", 10, true);
  AddClass("lower-default", 5, true);
  auto pod = CreatePod("p", json::object());
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ(pod->object["spec"]["priorityClassName"], "lower-default");
  EXPECT_EQ(pod->object["spec"]["priority"], 5);
}

TEST_F(PriorityAdmissionTest, RefusesUnknownClassesAndWrittenPriorities) {
  auto unknown = CreatePod("p", {{"priorityClassName", "nope"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kForbidden);
  EXPECT_EQ(unknown.status().message(),
            "pods \"p\" is forbidden: no PriorityClass with name nope was "
            "found");
  auto written = CreatePod("q", {{"priority", 7}});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().message(),
            "pods \"q\" is forbidden: the integer value of priority (7) must "
            "not be provided in pod spec; priority admission controller "
            "computed 0 from the given PriorityClass name");
  EXPECT_FALSE(registry_->Get(*pods_, "default", "q").ok());
}

}  // namespace
}  // namespace kmock::registry
