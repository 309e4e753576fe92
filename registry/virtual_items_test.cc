// Computed kinds through the registry (ComponentStatus): list answers the
// computed items filtered by the selectors, get finds one by name or
// answers kube-apiserver's bare 500, and nothing is stored.
#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/registry.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

class VirtualItemsTest : public registry::testing::RegistryFixture {
 protected:
  void SetUp() override {
    RegistryFixture::SetUp();
    statuses_ =
        api::testing::BuiltinCatalog().Find("", "v1", "componentstatuses");
    ASSERT_NE(statuses_, nullptr);
    ASSERT_TRUE(statuses_->virtual_items);
  }

  const api::ResourceInfo* statuses_ = nullptr;
};

TEST_F(VirtualItemsTest, ListFiltersTheComputedItems) {
  auto all = registry_->List(*statuses_, "", {});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ((*all)["kind"], "ComponentStatusList");
  EXPECT_EQ((*all)["metadata"], json::object());
  std::vector<std::string> names;
  for (const json& item : (*all)["items"]) {
    names.push_back(item["metadata"]["name"]);
    EXPECT_FALSE(item.contains("kind"));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"controller-manager", "scheduler",
                                             "etcd-0"}));
  ListOptions by_name;
  by_name.field_selector = "metadata.name=etcd-0";
  auto one = registry_->List(*statuses_, "", by_name);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ((*one)["items"].size(), 1u);
  ListOptions bad;
  bad.field_selector = "status.phase=Running";
  auto refused = registry_->List(*statuses_, "", bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kBadRequest);
}

TEST_F(VirtualItemsTest, GetFindsByNameOrAnswersLikeKubeApiserver) {
  auto got = registry_->Get(*statuses_, "", "scheduler");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)["conditions"][0],
            json({{"type", "Healthy"}, {"status", "True"}, {"message", "ok"}}));
  auto missing = registry_->Get(*statuses_, "", "kube-proxy");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kUnclassified);
  EXPECT_EQ(missing.status().message(), "Component not found: kube-proxy");
}

}  // namespace
}  // namespace kmock::registry
