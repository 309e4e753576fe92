#include "server/discovery.h"

#include <gtest/gtest.h>

#include "server/test_catalog.h"

namespace kmock::server {
namespace {

using nlohmann::json;
using testing::TestCatalog;

TEST(DiscoveryTest, VersionPriority) {
  std::vector<std::string> v = {"v1alpha1", "v1beta1", "v1",
                                "v2",       "v1beta2", "foo"};
  std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
    return VersionPrecedes(a, b);
  });
  EXPECT_EQ(v, (std::vector<std::string>{"v2", "v1", "v1beta2", "v1beta1",
                                         "v1alpha1", "foo"}));
}

TEST(DiscoveryTest, LegacyApiAndApis) {
  EXPECT_EQ(ApiVersions(TestCatalog(), "127.0.0.1:6443"),
            json::parse(R"({"kind":"APIVersions","versions":["v1"],
              "serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0",
              "serverAddress":"127.0.0.1:6443"}]})"));
  json groups = ApiGroupList(TestCatalog());
  EXPECT_EQ(groups["kind"], "APIGroupList");
  ASSERT_EQ(groups["groups"].size(), 2u);
  EXPECT_EQ(
      groups["groups"][0],
      json::parse(
          R"({"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],
              "preferredVersion":{"groupVersion":"apps/v1","version":"v1"}})"));
  // Two versions: v1 preferred, listed first.
  EXPECT_EQ(groups["groups"][1]["preferredVersion"]["version"], "v1");
  EXPECT_EQ(groups["groups"][1]["versions"][1]["groupVersion"],
            "example.com/v1beta1");
  json group = ApiGroup(TestCatalog(), "example.com");
  EXPECT_EQ(group["kind"], "APIGroup");
  EXPECT_TRUE(ApiGroup(TestCatalog(), "nosuch.io").is_null());
}

TEST(DiscoveryTest, LegacyResourceListWithSubresources) {
  json core = ApiResourceList(TestCatalog(), "", "v1");
  EXPECT_EQ(core["groupVersion"], "v1");
  const json& res = core["resources"];
  ASSERT_EQ(res.size(), 6u);  // pods + 3 subresources, namespaces + status
  EXPECT_EQ(
      res[0],
      json::parse(R"({"name":"pods","singularName":"pod","namespaced":true,
      "kind":"Pod","verbs":["create","delete","deletecollection","get","list","patch",
      "update","watch"],"shortNames":["po"],"categories":["all"]})"));
  EXPECT_EQ(
      res[2],
      json::parse(R"({"name":"pods/log","singularName":"","namespaced":true,
      "kind":"Pod","verbs":["get"]})"));
  EXPECT_EQ(res[3]["kind"], "Pod");  // pods/status speaks its parent's kind
  EXPECT_EQ(res[4]["namespaced"], false);

  json apps = ApiResourceList(TestCatalog(), "apps", "v1");
  EXPECT_EQ(apps["groupVersion"], "apps/v1");
  EXPECT_EQ(
      apps["resources"][1],
      json::parse(
          R"({"name":"deployments/scale","singularName":"","namespaced":true,
              "group":"autoscaling","version":"v1","kind":"Scale",
              "verbs":["get","patch","update"]})"));
  EXPECT_TRUE(ApiResourceList(TestCatalog(), "apps", "v2").is_null());
  EXPECT_TRUE(
      ApiResourceList(TestCatalog(), "bogus.example.com", "v1").is_null());
}

TEST(DiscoveryTest, AggregatedCoreOnlyUnderApi) {
  for (const char* version : {"v2", "v2beta1"}) {
    json doc = AggregatedDiscovery(TestCatalog(), /*core=*/true, version);
    EXPECT_EQ(doc["kind"], "APIGroupDiscoveryList");
    EXPECT_EQ(doc["apiVersion"], std::string("apidiscovery.k8s.io/") + version);
    EXPECT_EQ(doc["metadata"], json::object());
    ASSERT_EQ(doc["items"].size(), 1u);
    const json& group = doc["items"][0];
    EXPECT_EQ(group["metadata"]["name"], "");
    ASSERT_EQ(group["versions"].size(), 1u);
    EXPECT_EQ(group["versions"][0]["version"], "v1");
    EXPECT_EQ(group["versions"][0]["freshness"], "Current");
    const json& pods = group["versions"][0]["resources"][0];
    EXPECT_EQ(pods["resource"], "pods");
    EXPECT_EQ(pods["responseKind"],
              json::parse(R"({"group":"","version":"v1","kind":"Pod"})"));
    EXPECT_EQ(pods["scope"], "Namespaced");
    EXPECT_EQ(pods["singularResource"], "pod");
    EXPECT_EQ(pods["shortNames"], json::array({"po"}));
    EXPECT_EQ(
        pods["subresources"][1],
        json::parse(
            R"({"subresource":"log","responseKind":{"group":"","version":"v1",
                "kind":"Pod"},"verbs":["get"]})"));
    EXPECT_EQ(group["versions"][0]["resources"][1]["scope"], "Cluster");
  }
}

TEST(DiscoveryTest, AggregatedGroupsUnderApis) {
  json doc = AggregatedDiscovery(TestCatalog(), /*core=*/false, "v2");
  ASSERT_EQ(doc["items"].size(), 2u);
  EXPECT_EQ(doc["items"][0]["metadata"]["name"], "apps");
  const json& deploy = doc["items"][0]["versions"][0]["resources"][0];
  EXPECT_EQ(deploy["subresources"][0],
            json::parse(
                R"({"subresource":"scale","responseKind":{"group":"autoscaling",
              "version":"v1","kind":"Scale"},"verbs":["get","patch","update"]})"));
  EXPECT_EQ(
      deploy["subresources"][1]["responseKind"],
      json::parse(R"({"group":"apps","version":"v1","kind":"Deployment"})"));
  const json& widgets = doc["items"][1];
  ASSERT_EQ(widgets["versions"].size(), 2u);
  EXPECT_EQ(widgets["versions"][0]["version"], "v1");
  EXPECT_EQ(widgets["versions"][1]["version"], "v1beta1");
  EXPECT_EQ(AggregatedContentType("v2beta1"),
            "application/"
            "json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList");
}

}  // namespace
}  // namespace kmock::server
