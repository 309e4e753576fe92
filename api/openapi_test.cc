#include "api/openapi.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <regex>
#include <set>
#include <string>

#include "api/builtin_catalog.h"

namespace kmock::api {
namespace {

constexpr char kPodItem[] = "/api/v1/namespaces/{namespace}/pods/{name}";

// A catalog of our own, independent of the real one in resources.cc.
class OpenApiTest : public ::testing::Test {
 protected:
  OpenApiTest() {
    pods_.version = "v1";
    pods_.kind = "Pod";
    pods_.list_kind = "PodList";
    pods_.plural = "pods";
    pods_.singular = "pod";
    pods_.namespaced = true;
    pods_.verbs = {"create", "delete", "deletecollection", "get",
                   "list",   "patch",  "update",           "watch"};
    pods_.subresources = {
        {"status", "", "v1", "Pod", {"get", "patch", "update"}},
        {"binding", "", "v1", "Binding", {"create"}},
        {"log", "", "v1", "", {"get"}}};
    pods_.schema_type = "io.k8s.api.core.v1.Pod";
    nodes_ = pods_;
    nodes_.kind = "Node";
    nodes_.list_kind = "NodeList";
    nodes_.plural = "nodes";
    nodes_.namespaced = false;
    nodes_.subresources = {
        {"status", "", "v1", "Node", {"get", "patch", "update"}}};
    nodes_.schema_type = "io.k8s.api.core.v1.Node";
    leases_ = pods_;
    leases_.group = "coordination.k8s.io";
    leases_.kind = "Lease";
    leases_.list_kind = "LeaseList";
    leases_.plural = "leases";
    leases_.subresources = {};
    leases_.schema_type = "io.k8s.api.coordination.v1.Lease";
    EXPECT_TRUE(catalog_.Add(std::make_unique<ResourceInfo>(pods_)).ok());
    EXPECT_TRUE(catalog_.Add(std::make_unique<ResourceInfo>(nodes_)).ok());
    EXPECT_TRUE(catalog_.Add(std::make_unique<ResourceInfo>(leases_)).ok());
  }

  json CoreDoc() {
    return OpenApiV3Document(catalog_, Schema::Builtin(), "", "v1", "1.30.0");
  }

  ResourceInfo pods_, nodes_, leases_;
  Catalog catalog_;
};

bool HasParam(const json& op, const std::string& name) {
  for (const json& p : op.at("parameters")) {
    if (p.at("name") == name) return true;
  }
  return false;
}

TEST_F(OpenApiTest, DocumentHeader) {
  json doc = CoreDoc();
  EXPECT_EQ(doc["openapi"], "3.0.0");
  EXPECT_EQ(doc["info"]["title"], "Kubernetes");
  EXPECT_EQ(doc["info"]["version"], "v1.30.0");
  EXPECT_TRUE(
      OpenApiV3Document(catalog_, Schema::Builtin(), "apps", "v1", "1.30.0")
          .is_null());
}

TEST_F(OpenApiTest, PodSchemaCarriesGvkAndPatchMetadata) {
  json doc = CoreDoc();
  const json& schemas = doc["components"]["schemas"];
  ASSERT_TRUE(schemas.contains("io.k8s.api.core.v1.Pod"));
  EXPECT_EQ(
      schemas["io.k8s.api.core.v1.Pod"]["x-kubernetes-group-version-kind"],
      json::parse(R"([{"group":"","kind":"Pod","version":"v1"}])"));
  const json& containers =
      schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
  EXPECT_EQ(containers["x-kubernetes-patch-merge-key"], "name");
  EXPECT_EQ(containers["x-kubernetes-patch-strategy"], "merge");
  EXPECT_EQ(containers["x-kubernetes-list-type"], "map");
  EXPECT_EQ(containers["items"]["$ref"],
            "#/components/schemas/io.k8s.api.core.v1.Container");
  EXPECT_EQ(schemas["io.k8s.api.core.v1.PodSpec"]["required"],
            json::array({"containers"}));
  // A described reference is wrapped in allOf; maps use additionalProperties.
  const json& spec = schemas["io.k8s.api.core.v1.Pod"]["properties"]["spec"];
  EXPECT_EQ(spec["allOf"][0]["$ref"],
            "#/components/schemas/io.k8s.api.core.v1.PodSpec");
  EXPECT_FALSE(spec["description"].get<std::string>().empty());
  EXPECT_EQ(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]
                   ["properties"]["labels"]["additionalProperties"]["type"],
            "string");
  EXPECT_EQ(schemas["io.k8s.api.core.v1.ContainerPort"]["properties"]
                   ["protocol"]["enum"],
            json::array({"SCTP", "TCP", "UDP"}));
  EXPECT_EQ(schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]
                   ["x-kubernetes-int-or-string"],
            true);
  // Inlined fields appear in place, and the embedding types do not.
  EXPECT_TRUE(
      schemas["io.k8s.api.core.v1.Volume"]["properties"].contains("configMap"));
  EXPECT_FALSE(schemas.contains("io.k8s.api.core.v1.EphemeralContainerCommon"));
  EXPECT_FALSE(schemas.contains("io.k8s.api.core.v1.VolumeSource"));
  EXPECT_FALSE(schemas.contains("io.k8s.api.coordination.v1.Lease"));
  EXPECT_TRUE(schemas.contains("io.k8s.api.core.v1.Binding"));
  EXPECT_TRUE(schemas.contains("io.k8s.apimachinery.pkg.apis.meta.v1.Status"));
}

TEST_F(OpenApiTest, EveryRefResolves) {
  json doc = CoreDoc();
  const json& schemas = doc["components"]["schemas"];
  int refs = 0;
  std::function<void(const json&)> walk = [&](const json& j) {
    if (j.is_object()) {
      for (const auto& [k, v] : j.items()) {
        if (k == "$ref") {
          ++refs;
          std::string ref = v;
          const std::string prefix = "#/components/schemas/";
          ASSERT_EQ(ref.rfind(prefix, 0), 0u) << ref;
          EXPECT_TRUE(schemas.contains(ref.substr(prefix.size()))) << ref;
        } else {
          walk(v);
        }
      }
    } else if (j.is_array()) {
      for (const auto& v : j) walk(v);
    }
  };
  walk(doc);
  EXPECT_GT(refs, 100);
}

TEST_F(OpenApiTest, PatchOperationsDeclareFieldValidationAndPatchTypes) {
  json doc = CoreDoc();
  const json& paths = doc["paths"];
  ASSERT_TRUE(paths.contains(kPodItem));
  const json& patch = paths[kPodItem]["patch"];
  EXPECT_TRUE(HasParam(patch, "fieldValidation"));
  EXPECT_TRUE(HasParam(patch, "fieldManager"));
  EXPECT_TRUE(HasParam(patch, "dryRun"));
  EXPECT_TRUE(HasParam(patch, "force"));
  EXPECT_EQ(patch["x-kubernetes-action"], "patch");
  EXPECT_EQ(patch["x-kubernetes-group-version-kind"],
            json::parse(R"({"group":"","kind":"Pod","version":"v1"})"));
  for (const char* type :
       {"application/json-patch+json", "application/merge-patch+json",
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml"}) {
    EXPECT_TRUE(patch["requestBody"]["content"].contains(type)) << type;
  }
  EXPECT_EQ(patch["responses"]["200"]["content"]["application/json"]["schema"]
                 ["$ref"],
            "#/components/schemas/io.k8s.api.core.v1.Pod");
  // kubectl stops at the first PATCH of the kind it meets, in any order:
  // every one of them must declare fieldValidation.
  int patches = 0;
  for (const auto& [path, item] : paths.items()) {
    if (!item.contains("patch")) continue;
    ++patches;
    EXPECT_TRUE(HasParam(item["patch"], "fieldValidation")) << path;
  }
  EXPECT_EQ(patches, 4);  // pods, pods/status, nodes, nodes/status
}

TEST_F(OpenApiTest, PathsFollowScopeAndVerbs) {
  json paths = CoreDoc()["paths"];
  const json& coll = paths["/api/v1/namespaces/{namespace}/pods"];
  EXPECT_EQ(coll["get"]["x-kubernetes-action"], "list");
  EXPECT_EQ(coll["post"]["x-kubernetes-action"], "post");
  EXPECT_EQ(coll["delete"]["x-kubernetes-action"], "deletecollection");
  EXPECT_TRUE(HasParam(coll["get"], "labelSelector"));
  EXPECT_TRUE(HasParam(coll["post"], "fieldValidation"));
  EXPECT_EQ(coll["get"]["responses"]["200"]["content"]["application/json"]
                ["schema"]["$ref"],
            "#/components/schemas/io.k8s.api.core.v1.PodList");
  EXPECT_EQ(paths["/api/v1/pods"]["get"]["operationId"],
            "listCoreV1PodForAllNamespaces");
  EXPECT_EQ(paths[kPodItem]["get"]["operationId"], "readCoreV1NamespacedPod");
  EXPECT_EQ(paths[std::string(kPodItem) + "/binding"]["post"]
                 ["x-kubernetes-group-version-kind"]["kind"],
            "Binding");
  EXPECT_TRUE(paths[std::string(kPodItem) + "/status"].contains("put"));
  EXPECT_TRUE(paths[std::string(kPodItem) + "/log"].contains("get"));
  EXPECT_TRUE(paths.contains("/api/v1/nodes/{name}"));
  EXPECT_TRUE(paths.contains("/api/v1/nodes/{name}/status"));
  EXPECT_FALSE(paths.contains("/api/v1/namespaces/{namespace}/nodes"));
  json leases = OpenApiV3Document(catalog_, Schema::Builtin(),
                                  "coordination.k8s.io", "v1", "1.30.0");
  EXPECT_TRUE(leases["paths"].contains(
      "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}"));
  EXPECT_TRUE(leases["components"]["schemas"].contains(
      "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
}

TEST_F(OpenApiTest, IndexListsEveryGroupVersionWithAStableHash) {
  json index = OpenApiV3Index(catalog_, Schema::Builtin(), "1.30.0");
  ASSERT_EQ(index["paths"].size(), 2u);
  std::string url = index["paths"]["api/v1"]["serverRelativeURL"];
  EXPECT_TRUE(std::regex_match(
      url, std::regex(R"(/openapi/v3/api/v1\?hash=[0-9A-F]{32})")))
      << url;
  EXPECT_EQ(index["paths"]["apis/coordination.k8s.io/v1"]["serverRelativeURL"]
                .get<std::string>()
                .rfind("/openapi/v3/apis/coordination.k8s.io/v1?hash=", 0),
            0u);
  EXPECT_EQ(OpenApiV3Index(catalog_, Schema::Builtin(), "1.30.0"), index);
  EXPECT_NE(OpenApiV3Index(catalog_, Schema::Builtin(), "1.31.0"), index);
}

// The real catalog and the schema must agree: every kind it serves has a
// schema type, and each group/version document is complete.
TEST(OpenApiCatalogTest, RealCatalogKindsHaveSchemas) {
  const Catalog& catalog = testing::BuiltinCatalog();
  for (const ResourceInfo* r : catalog.resources()) {
    EXPECT_NE(Schema::Builtin().Find(r->schema_type), nullptr)
        << r->plural << ": " << r->schema_type;
  }
  json index = OpenApiV3Index(catalog, Schema::Builtin(), "1.30.0");
  for (const ResourceInfo* r : catalog.resources()) {
    std::string path = r->group.empty() ? "api/" + r->version
                                        : "apis/" + r->group + "/" + r->version;
    EXPECT_TRUE(index["paths"].contains(path)) << path;
    json doc = OpenApiV3Document(catalog, Schema::Builtin(), r->group,
                                 r->version, "1.30.0");
    EXPECT_TRUE(doc["components"]["schemas"].contains(r->schema_type))
        << r->plural;
  }
}

TEST_F(OpenApiTest, V2ProtobufIsAGnosticDocument) {
  std::string bytes = OpenApiV2Protobuf(catalog_, Schema::Builtin(), "1.30.0");
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex += kHex[c >> 4];
    hex += kHex[c & 15];
  }
  // Document{swagger: "2.0", info: {title: "Kubernetes", version: "v1.30.0"}}.
  EXPECT_EQ(hex, "0a03322e3012150a0a4b756265726e65746573120776312e33302e30");
}

}  // namespace
}  // namespace kmock::api
