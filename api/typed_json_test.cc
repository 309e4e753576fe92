#include "api/typed_json.h"

#include <gtest/gtest.h>

namespace kmock::api {
namespace {

using nlohmann::json;

TEST(TypedJsonTest, FindsTypesByApiVersionAndKind) {
  const Type* pod = TypeOfObject({{"apiVersion", "v1"}, {"kind", "Pod"}});
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(pod->name, "io.k8s.api.core.v1.Pod");
  const Type* list =
      TypeOfObject({{"apiVersion", "apps/v1"}, {"kind", "DeploymentList"}});
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(list->name, "io.k8s.api.apps.v1.DeploymentList");
  const Type* status = TypeOfObject({{"apiVersion", "v1"}, {"kind", "Status"}});
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(status->name, "io.k8s.apimachinery.pkg.apis.meta.v1.Status");
  EXPECT_EQ(TypeOfObject({{"apiVersion", "v9"}, {"kind", "Pod"}}), nullptr);
  EXPECT_EQ(TypeOfObject({{"kind", "Pod"}}), nullptr);
  EXPECT_EQ(TypeOfObject(json::array()), nullptr);
}

TEST(TypedJsonTest, WritesKnownKindsInGoOrderAndOthersSorted) {
  json pod = json::parse(
      R"({"status":{"phase":"Running"},"spec":{"nodeName":"n"},
          "metadata":{"uid":"u","name":"p","namespace":"d"},
          "apiVersion":"v1","kind":"Pod"})");
  EXPECT_EQ(EncodeTypedJson(pod),
            R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p",)"
            R"("namespace":"d","uid":"u"},"spec":{"nodeName":"n"},)"
            R"("status":{"phase":"Running"}})");
  json unknown = {{"b", 1}, {"a", "<x>"}};
  EXPECT_EQ(EncodeTypedJson(unknown), R"({"a":"\u003cx\u003e","b":1})");
}

}  // namespace
}  // namespace kmock::api
