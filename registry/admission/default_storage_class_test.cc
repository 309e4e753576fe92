// DefaultStorageClass admission: a claim without a class gets the default
// one (the newest of several), a claim that names one (or "") keeps it,
// and without a default nothing is filled in.
#include "registry/admission/default_storage_class.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/registry.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

json Class(const std::string& name, const std::string& created, bool is_default,
           bool beta = false) {
  json sc = {{"metadata", {{"name", name}, {"creationTimestamp", created}}},
             {"provisioner", "ebs.csi.aws.com"}};
  if (is_default) {
    sc["metadata"]["annotations"][beta ? "storageclass.beta.kubernetes.io/"
                                         "is-default-class"
                                       : "storageclass.kubernetes.io/"
                                         "is-default-class"] = "true";
  }
  return sc;
}

TEST(DefaultStorageClassName, PicksTheNewestDefault) {
  EXPECT_EQ(DefaultStorageClassName({}), std::nullopt);
  EXPECT_EQ(
      DefaultStorageClassName({Class("a", "2025-01-01T00:00:00Z", false)}),
      std::nullopt);
  EXPECT_EQ(
      DefaultStorageClassName({Class("old", "2025-01-01T00:00:00Z", true),
                               Class("new", "2025-02-01T00:00:00Z", true, true),
                               Class("plain", "2025-03-01T00:00:00Z", false)}),
      "new");
  EXPECT_EQ(DefaultStorageClassName({Class("b", "2025-01-01T00:00:00Z", true),
                                     Class("a", "2025-01-01T00:00:00Z", true)}),
            "a");
}

class DefaultStorageClassTest : public registry::testing::RegistryFixture {
 protected:
  void SetUp() override {
    RegistryFixture::SetUp();
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
    claims_ =
        api::testing::BuiltinCatalog().Find("", "v1", "persistentvolumeclaims");
    classes_ = api::testing::BuiltinCatalog().Find("storage.k8s.io", "v1",
                                                   "storageclasses");
  }
  void AddClass(const std::string& name, bool is_default) {
    json sc = Class(name, "", is_default);
    sc["metadata"].erase("creationTimestamp");
    ASSERT_TRUE(registry_->Create(*classes_, "", sc, {}).ok());
  }
  json CreateClaim(const std::string& name, json spec) {
    spec["accessModes"] = {"ReadWriteOnce"};
    spec["resources"] = {{"requests", {{"storage", "1Gi"}}}};
    auto r =
        registry_->Create(*claims_, "default",
                          {{"metadata", {{"name", name}}}, {"spec", spec}}, {});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->object["spec"] : json();
  }

  const api::ResourceInfo* claims_ = nullptr;
  const api::ResourceInfo* classes_ = nullptr;
};

TEST_F(DefaultStorageClassTest, FillsInOnlyAnAbsentClass) {
  EXPECT_FALSE(
      CreateClaim("none", json::object()).contains("storageClassName"));
  AddClass("standard", false);
  AddClass("gp2", true);
  EXPECT_EQ(CreateClaim("plain", json::object())["storageClassName"], "gp2");
  EXPECT_EQ(CreateClaim("named",
                        {{"storageClassName", "standard"}})["storageClassName"],
            "standard");
  EXPECT_EQ(
      CreateClaim("empty", {{"storageClassName", ""}})["storageClassName"], "");
}

}  // namespace
}  // namespace kmock::registry
