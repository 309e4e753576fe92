#include "common/json_view.h"

#include <gtest/gtest.h>

namespace kmock {
namespace {

using nlohmann::json;

TEST(JsonViewTest, ReturnsMembersByReference) {
  json pod = {{"metadata", {{"name", "a"}}}, {"spec", {{"containers", {1}}}}};
  EXPECT_EQ(&ObjectAt(pod, "metadata"), &pod["metadata"]);
  EXPECT_EQ(&ArrayAt(pod["spec"], "containers"), &pod["spec"]["containers"]);
  EXPECT_EQ(&StringAt(pod["metadata"], "name"),
            &pod["metadata"]["name"].get_ref<const std::string&>());
  EXPECT_EQ(&ValueAt(pod, "spec"), &pod["spec"]);
}

TEST(JsonViewTest, MissingOrMistypedMembersReadAsEmpty) {
  json obj = {{"metadata", "not an object"}, {"items", {{"a", 1}}}, {"n", 3}};
  EXPECT_EQ(ObjectAt(obj, "metadata"), json::object());
  EXPECT_EQ(ObjectAt(obj, "absent"), json::object());
  EXPECT_EQ(ArrayAt(obj, "items"), json::array());
  EXPECT_EQ(StringAt(obj, "n"), "");
  EXPECT_TRUE(ValueAt(obj, "absent").is_null());
  EXPECT_EQ(ValueAt(obj, "n"), 3);
  // Not an object at all.
  json arr = json::array();
  EXPECT_EQ(ObjectAt(arr, "x"), json::object());
  EXPECT_EQ(StringAt(json(), "x"), "");
}

TEST(JsonViewTest, CopyWithoutManagedFieldsKeepsEverythingElse) {
  json rs = {{"kind", "ReplicaSet"},
             {"metadata",
              {{"name", "web"},
               {"labels", {{"app", "web"}}},
               {"managedFields", {{{"manager", "kubectl"}}}}}},
             {"spec", {{"replicas", 3}}},
             {"status", {{"managedFields", "not metadata: kept"}}}};
  json copy = CopyWithoutManagedFields(rs);
  json want = rs;
  want["metadata"].erase("managedFields");
  EXPECT_EQ(copy, want);
  // Objects without metadata, or not objects, come back as they are.
  EXPECT_EQ(CopyWithoutManagedFields(json{{"a", 1}}), json({{"a", 1}}));
  EXPECT_EQ(CopyWithoutManagedFields(json::array({1})), json::array({1}));
  json odd = {{"metadata", "text"}};
  EXPECT_EQ(CopyWithoutManagedFields(odd), odd);
}

}  // namespace
}  // namespace kmock
