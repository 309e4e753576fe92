#include "server/request_info.h"

#include <gtest/gtest.h>

namespace kmock::server {
namespace {

// "verb group/version ns resource/name/subresource" for one-line checks.
std::string Describe(const std::string& method, const std::string& path,
                     bool watch = false) {
  RequestInfo i = ParseRequestInfo(method, path, watch);
  if (!i.is_resource_request) return "non-resource " + i.verb;
  std::string gv =
      i.api_group.empty() ? i.api_version : i.api_group + "/" + i.api_version;
  std::string out = i.verb + " " + gv + " ns=" + i.ns + " " + i.resource;
  if (!i.name.empty()) out += "/" + i.name;
  if (!i.subresource.empty()) out += "/" + i.subresource;
  return out;
}

TEST(RequestInfoTest, CoreAndGroupedCollections) {
  EXPECT_EQ(Describe("GET", "/api/v1/pods"), "list v1 ns= pods");
  EXPECT_EQ(Describe("GET", "/api/v1/namespaces/default/pods"),
            "list v1 ns=default pods");
  EXPECT_EQ(Describe("GET", "/apis/apps/v1/namespaces/default/deployments"),
            "list apps/v1 ns=default deployments");
  EXPECT_EQ(Describe("GET", "/apis/apps/v1/deployments"),
            "list apps/v1 ns= deployments");
  EXPECT_EQ(Describe("POST", "/api/v1/namespaces/default/pods"),
            "create v1 ns=default pods");
  EXPECT_EQ(Describe("DELETE", "/api/v1/namespaces/default/pods"),
            "deletecollection v1 ns=default pods");
}

TEST(RequestInfoTest, Objects) {
  EXPECT_EQ(Describe("GET", "/api/v1/namespaces/default/pods/p1"),
            "get v1 ns=default pods/p1");
  EXPECT_EQ(Describe("PUT", "/api/v1/namespaces/default/pods/p1"),
            "update v1 ns=default pods/p1");
  EXPECT_EQ(Describe("PATCH", "/apis/apps/v1/namespaces/ns1/deployments/web"),
            "patch apps/v1 ns=ns1 deployments/web");
  EXPECT_EQ(Describe("DELETE", "/api/v1/namespaces/default/pods/p1"),
            "delete v1 ns=default pods/p1");
  EXPECT_EQ(Describe("GET", "/api/v1/nodes/n1"), "get v1 ns= nodes/n1");
}

TEST(RequestInfoTest, Subresources) {
  EXPECT_EQ(Describe("GET", "/api/v1/namespaces/default/pods/p1/log"),
            "get v1 ns=default pods/p1/log");
  EXPECT_EQ(Describe("PATCH",
                     "/apis/apps/v1/namespaces/default/deployments/web/scale"),
            "patch apps/v1 ns=default deployments/web/scale");
  EXPECT_EQ(Describe("POST", "/api/v1/namespaces/default/pods/p1/binding"),
            "create v1 ns=default pods/p1/binding");
  EXPECT_EQ(Describe("PUT", "/api/v1/nodes/n1/status"),
            "update v1 ns= nodes/n1/status");
}

TEST(RequestInfoTest, NamespaceObjectItself) {
  EXPECT_EQ(Describe("GET", "/api/v1/namespaces"), "list v1 ns= namespaces");
  EXPECT_EQ(Describe("GET", "/api/v1/namespaces/kube-system"),
            "get v1 ns=kube-system namespaces/kube-system");
  EXPECT_EQ(Describe("PUT", "/api/v1/namespaces/ns1/finalize"),
            "update v1 ns=ns1 namespaces/ns1/finalize");
  EXPECT_EQ(Describe("PATCH", "/api/v1/namespaces/ns1/status"),
            "patch v1 ns=ns1 namespaces/ns1/status");
}

TEST(RequestInfoTest, Watch) {
  EXPECT_EQ(Describe("GET", "/api/v1/namespaces/default/pods", true),
            "watch v1 ns=default pods");
  // A watch parameter on an object path stays a get, as upstream.
  EXPECT_EQ(Describe("GET", "/api/v1/namespaces/default/pods/p1", true),
            "get v1 ns=default pods/p1");
  EXPECT_EQ(Describe("GET", "/api/v1/watch/namespaces/default/pods"),
            "watch v1 ns=default pods");
  EXPECT_EQ(Describe("GET", "/apis/apps/v1/watch/deployments"),
            "watch apps/v1 ns= deployments");
  RequestInfo one = ParseRequestInfo(
      "GET", "/api/v1/watch/namespaces/default/pods/p1", false);
  EXPECT_TRUE(one.legacy_watch);
  EXPECT_EQ(one.verb, "watch");
  EXPECT_EQ(one.name, "p1");
  EXPECT_TRUE(IsTrueParam("true"));
  EXPECT_TRUE(IsTrueParam("1"));
  EXPECT_TRUE(IsTrueParam("True"));  // the Python client's str(True)
  EXPECT_TRUE(IsTrueParam("TRUE"));
  EXPECT_FALSE(IsTrueParam("false"));
  EXPECT_FALSE(IsTrueParam("False"));
  EXPECT_FALSE(IsTrueParam("0"));
  EXPECT_FALSE(IsTrueParam(""));
}

TEST(RequestInfoTest, NonResourcePaths) {
  EXPECT_EQ(Describe("GET", "/"), "non-resource get");
  EXPECT_EQ(Describe("GET", "/api"), "non-resource get");
  EXPECT_EQ(Describe("GET", "/api/v1"), "non-resource get");
  EXPECT_EQ(Describe("GET", "/apis"), "non-resource get");
  EXPECT_EQ(Describe("GET", "/apis/apps"), "non-resource get");
  EXPECT_EQ(Describe("GET", "/apis/apps/v1/"), "non-resource get");
  EXPECT_EQ(Describe("GET", "/version"), "non-resource get");
  EXPECT_EQ(Describe("POST", "/openapi/v3"), "non-resource post");
  RequestInfo gv = ParseRequestInfo("GET", "/apis/apps/v1", false);
  EXPECT_EQ(gv.api_group, "apps");
  EXPECT_EQ(gv.api_version, "v1");
}

TEST(RequestInfoTest, PartsAndTrailingSlashes) {
  RequestInfo i = ParseRequestInfo(
      "GET", "/api/v1/namespaces/default/pods/p1/proxy/a/b", false);
  EXPECT_EQ(i.parts.size(), 5u);
  EXPECT_EQ(i.subresource, "proxy");
  EXPECT_EQ(Describe("GET", "/api/v1/namespaces/default/pods/"),
            "list v1 ns=default pods");
}

}  // namespace
}  // namespace kmock::server
