// StorageObjectInUseProtection admission: claims and volumes get their
// protection finalizer on create (after their own, never twice), not on
// update, and a deleted one then waits for it.
#include "registry/admission/storage_object_in_use_protection.h"

#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "registry/registry.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

class StorageObjectInUseProtectionTest
    : public registry::testing::RegistryFixture {
 protected:
  void SetUp() override {
    RegistryFixture::SetUp();
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
    claims_ =
        api::testing::BuiltinCatalog().Find("", "v1", "persistentvolumeclaims");
    volumes_ =
        api::testing::BuiltinCatalog().Find("", "v1", "persistentvolumes");
    ASSERT_NE(claims_, nullptr);
    ASSERT_NE(volumes_, nullptr);
  }
  static json Claim(const std::string& name, json finalizers = nullptr) {
    json c = {{"metadata", {{"name", name}}},
              {"spec",
               {{"accessModes", {"ReadWriteOnce"}},
                {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
    if (!finalizers.is_null()) c["metadata"]["finalizers"] = finalizers;
    return c;
  }
  static json Volume(const std::string& name) {
    return {{"metadata", {{"name", name}}},
            {"spec",
             {{"capacity", {{"storage", "1Gi"}}},
              {"accessModes", {"ReadWriteOnce"}},
              {"hostPath", {{"path", "/data"}}}}}};
  }
  json CreateClaim(json claim, WriteOptions wo = {}) {
    auto r = registry_->Create(*claims_, "default", std::move(claim), wo);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->object["metadata"] : json();
  }

  const api::ResourceInfo* claims_ = nullptr;
  const api::ResourceInfo* volumes_ = nullptr;
};

TEST_F(StorageObjectInUseProtectionTest, ClaimsGetTheirFinalizerLast) {
  EXPECT_EQ(CreateClaim(Claim("plain"))["finalizers"],
            json({"kubernetes.io/pvc-protection"}));
  EXPECT_EQ(CreateClaim(Claim("own", {"example.com/keep"}))["finalizers"],
            json({"example.com/keep", "kubernetes.io/pvc-protection"}));
  EXPECT_EQ(CreateClaim(Claim("twice", {"kubernetes.io/pvc-protection",
                                        "example.com/keep"}))["finalizers"],
            json({"kubernetes.io/pvc-protection", "example.com/keep"}));
  WriteOptions dry;
  dry.dry_run = true;
  EXPECT_EQ(CreateClaim(Claim("dry"), dry)["finalizers"],
            json({"kubernetes.io/pvc-protection"}));
}

TEST_F(StorageObjectInUseProtectionTest, VolumesGetTheirs) {
  auto r = registry_->Create(*volumes_, "", Volume("pv1"), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->object["metadata"]["finalizers"],
            json({"kubernetes.io/pv-protection"}));
}

TEST_F(StorageObjectInUseProtectionTest, TheWriterDoesNotOwnTheFinalizer) {
  WriteOptions wo;
  wo.field_manager = "kubectl-create";
  json meta = CreateClaim(Claim("c"), wo);
  ASSERT_EQ(meta["managedFields"].size(), 1u);
  EXPECT_FALSE(meta["managedFields"][0]["fieldsV1"]["f:metadata"].contains(
      "f:finalizers"));
}

TEST_F(StorageObjectInUseProtectionTest, NotAddedOnUpdate) {
  CreateClaim(Claim("c"));
  auto updated =
      registry_->GuaranteedUpdate(*claims_, "default", "c", "",
                                  [](json& live) {
                                    live["metadata"].erase("finalizers");
                                    return Status::Ok();
                                  },
                                  {});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_FALSE((*updated)["metadata"].contains("finalizers"));
}

TEST_F(StorageObjectInUseProtectionTest, ADeletedClaimWaitsForTheFinalizer) {
  CreateClaim(Claim("c"));
  auto deleted = registry_->Delete(*claims_, "default", "c", {});
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  auto live = registry_->Get(*claims_, "default", "c");
  ASSERT_TRUE(live.ok()) << live.status().ToString();
  EXPECT_TRUE((*live)["metadata"].contains("deletionTimestamp"));
  auto released = registry_->GuaranteedUpdate(*claims_, "default", "c", "",
                                              [](json& obj) {
                                                obj["metadata"]["finalizers"] =
                                                    json::array();
                                                return Status::Ok();
                                              },
                                              {});
  ASSERT_TRUE(released.ok()) << released.status().ToString();
  EXPECT_EQ(registry_->Get(*claims_, "default", "c").status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace kmock::registry
