// APIService autoregistration: every served built-in group version gets
// its local APIService with kube-apiserver's priorities and Available
// condition; a user's APIService of an unknown group is left alone, and a
// second pass changes nothing.
#include "controllers/apiservices/local_api_services.h"

#include <gtest/gtest.h>

#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;

class LocalApiServicesTest : public testing::ControllerFixture {
 protected:
  const api::ResourceInfo* ApiServices() {
    return registry_->catalog().Find("apiregistration.k8s.io", "v1",
                                     "apiservices");
  }
  json Get(const std::string& name) {
    auto r = registry_->Get(*ApiServices(), "", name);
    return r.ok() ? *r : json();
  }
};

TEST_F(LocalApiServicesTest, PrioritiesAreKubeApiservers) {
  auto apps = BuiltinApiServicePriority("apps", "v1");
  ASSERT_TRUE(apps);
  EXPECT_EQ(apps->group, 17800);
  EXPECT_EQ(apps->version, 15);
  EXPECT_EQ(BuiltinApiServicePriority("autoscaling", "v2")->version, 30);
  EXPECT_FALSE(BuiltinApiServicePriority("stable.example.com", "v1"));
  json core = LocalApiService("", "v1", {18000, 1});
  EXPECT_EQ(core["metadata"]["name"], "v1.");
  EXPECT_FALSE(core["spec"].contains("group"));
}

TEST_F(LocalApiServicesTest, EveryServedGroupVersionIsRegistered) {
  ASSERT_NE(ApiServices(), nullptr);
  LocalApiServices loop(registry_.get(), &clock_, ApiServices());
  ASSERT_TRUE(loop.Sync().ok());
  json apps = Get("v1.apps");
  EXPECT_EQ(apps["spec"]["group"], "apps");
  EXPECT_EQ(apps["spec"]["groupPriorityMinimum"], 17800);
  EXPECT_EQ(
      apps["metadata"]["labels"]["kube-aggregator.kubernetes.io/automanaged"],
      "onstart");
  const json& cond = apps["status"]["conditions"][0];
  EXPECT_EQ(cond["type"], "Available");
  EXPECT_EQ(cond["status"], "True");
  EXPECT_EQ(cond["reason"], "Local");
  EXPECT_EQ(cond["message"], "Local APIServices are always available");
  EXPECT_EQ(Get("v1.")["spec"]["version"], "v1");
  auto list = registry_->List(*ApiServices(), "", {});
  ASSERT_TRUE(list.ok());
  size_t registered = 0;
  for (const auto& [group, version] : registry_->catalog().GroupVersions()) {
    if (BuiltinApiServicePriority(group, version)) ++registered;
  }
  EXPECT_EQ((*list)["items"].size(), registered);
  EXPECT_GE(registered, 20u);
  const std::string rv = (*list)["metadata"]["resourceVersion"];
  ASSERT_TRUE(loop.Sync().ok());
  EXPECT_EQ(
      (*registry_->List(*ApiServices(), "", {}))["metadata"]["resourceVersion"],
      rv);
}

}  // namespace
}  // namespace kmock::controllers
