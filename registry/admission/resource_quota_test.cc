// ResourceQuota admission through the registry, and what objects count.
#include "registry/admission/resource_quota.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/admission/quota_usage.h"
#include "registry/registry.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

const api::ResourceInfo* Res(const char* group, const char* plural) {
  return api::testing::BuiltinCatalog().Find(group, "v1", plural);
}

json Pod(const std::string& name, const char* cpu = nullptr) {
  json c = {{"name", name}, {"image", "nginx"}};
  if (cpu != nullptr) c["resources"]["requests"]["cpu"] = cpu;
  return {{"metadata", {{"name", name}}}, {"spec", {{"containers", {c}}}}};
}

TEST(QuotaUsageTest, CountsWhatEachKindHolds) {
  json pod = Pod("web", "250m");
  pod["spec"]["containers"][0]["resources"]["limits"]["memory"] = "128Mi";
  QuotaUsage u = UsageOf(*Res("", "pods"), pod);
  EXPECT_EQ(u["pods"], 1000);
  EXPECT_EQ(u["count/pods"], 1000);
  EXPECT_EQ(u["requests.cpu"], 250);
  EXPECT_EQ(u["cpu"], 250);
  EXPECT_EQ(u["limits.memory"], 128LL * 1024 * 1024 * 1000);
  pod["status"]["phase"] = "Succeeded";
  EXPECT_TRUE(UsageOf(*Res("", "pods"), pod).empty());

  json lb = {{"spec",
              {{"type", "LoadBalancer"},
               {"ports", {{{"port", 80}}, {{"port", 443}}}}}}};
  u = UsageOf(*Res("", "services"), lb);
  EXPECT_EQ(u["services.nodeports"], 2000);
  EXPECT_EQ(u["services.loadbalancers"], 1000);
  EXPECT_EQ(UsageOf(*Res("apps", "deployments"), json::object()),
            (QuotaUsage{{"count/deployments.apps", 1000}}));

  EXPECT_EQ(FormatQuantity("requests.cpu", 1500), "1500m");
  EXPECT_EQ(FormatQuantity("requests.cpu", 2000), "2");
  EXPECT_EQ(FormatQuantity("limits.memory", 128LL * 1024 * 1024 * 1000),
            "128Mi");
  EXPECT_EQ(
      CountedResource(api::testing::BuiltinCatalog(), "count/deployments.apps"),
      Res("apps", "deployments"));
  EXPECT_EQ(CountedResource(api::testing::BuiltinCatalog(), "requests.storage"),
            Res("", "persistentvolumeclaims"));
  EXPECT_EQ(MissingComputeResources(Pod("web"), {{"requests.cpu", "1"}}),
            "requests.cpu for: web");
}

class ResourceQuotaAdmissionTest : public registry::testing::RegistryFixture {
 protected:
  void SetUp() override {
    RegistryFixture::SetUp();
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "free").ok());
  }
  // A quota whose usage has been counted (what the controller does).
  void AddQuota(json hard, json used, const std::string& name = "small") {
    json q = {{"metadata", {{"name", name}}}, {"spec", {{"hard", hard}}}};
    auto created =
        registry_->Create(*Res("", "resourcequotas"), "default", q, {});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    if (used.is_null()) return;
    json obj = created->object;
    obj["status"] = {{"hard", hard}, {"used", used}};
    ASSERT_TRUE(registry_
                    ->Update(*Res("", "resourcequotas"), "default", name,
                             "status", obj, {})
                    .ok());
  }
  std::string Create(const std::string& ns, const json& pod) {
    auto r = registry_->Create(*Res("", "pods"), ns, pod, {});
    return r.ok() ? "ok" : r.status().message();
  }
  json Used(const std::string& name = "small") {
    auto q = registry_->Get(*Res("", "resourcequotas"), "default", name);
    return q.ok() ? (*q)["status"]["used"] : json();
  }
};

TEST_F(ResourceQuotaAdmissionTest, ChargesUntilTheLimitThenRefuses) {
  AddQuota({{"pods", "2"}, {"requests.cpu", "1"}},
           {{"pods", "0"}, {"requests.cpu", "0"}});
  EXPECT_EQ(Create("default", Pod("a", "400m")), "ok");
  EXPECT_EQ(Used(), (json{{"pods", "1"}, {"requests.cpu", "400m"}}));
  EXPECT_EQ(Create("default", Pod("b", "700m")),
            "pods \"b\" is forbidden: exceeded quota: small, requested: "
            "requests.cpu=700m, used: requests.cpu=400m, limited: "
            "requests.cpu=1");
  EXPECT_EQ(Create("default", Pod("c")),
            "pods \"c\" is forbidden: failed quota: small: must specify "
            "requests.cpu for: c");
  EXPECT_EQ(Create("default", Pod("d", "100m")), "ok");
  EXPECT_EQ(Create("default", Pod("e", "100m")),
            "pods \"e\" is forbidden: exceeded quota: small, requested: "
            "pods=1, used: pods=2, limited: pods=2");
  EXPECT_FALSE(registry_->Get(*Res("", "pods"), "default", "e").ok());
  // Other namespaces are not limited.
  EXPECT_EQ(Create("free", Pod("e")), "ok");
}

TEST_F(ResourceQuotaAdmissionTest, OneRefusalChargesNoQuota) {
  AddQuota({{"pods", "5"}}, {{"pods", "0"}}, "roomy");
  AddQuota({{"pods", "1"}}, {{"pods", "1"}}, "tight");
  EXPECT_EQ(Create("default", Pod("a")),
            "pods \"a\" is forbidden: exceeded quota: tight, requested: "
            "pods=1, used: pods=1, limited: pods=1");
  EXPECT_EQ(Used("roomy"), (json{{"pods", "0"}}));
}

TEST_F(ResourceQuotaAdmissionTest, UncountedQuotaRefuses) {
  AddQuota({{"pods", "2"}}, json());
  EXPECT_EQ(Create("default", Pod("a")),
            "pods \"a\" is forbidden: status unknown for quota: small, "
            "resource: pods");
}

TEST_F(ResourceQuotaAdmissionTest, InvalidObjectsAndDryRunsChargeNothing) {
  AddQuota({{"pods", "2"}}, {{"pods", "0"}});
  json bad = Pod("Bad_Name");
  EXPECT_NE(Create("default", bad), "ok");
  WriteOptions dry;
  dry.dry_run = true;
  ASSERT_TRUE(
      registry_->Create(*Res("", "pods"), "default", Pod("dry"), dry).ok());
  EXPECT_EQ(Used(), (json{{"pods", "0"}}));
}

}  // namespace
}  // namespace kmock::registry
