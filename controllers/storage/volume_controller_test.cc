// The persistent volume controller: claims bind to fitting volumes, the
// cloud's classes provision (Immediate at once, WaitForFirstConsumer once a
// node is picked, in that node's zone), released volumes are deleted or
// kept as their reclaim policy says; with the protection controllers
// beside it, as in a cluster, deleted claims and volumes still go.
#include "controllers/storage/volume_controller.h"

#include <gtest/gtest.h>

#include "common/json_view.h"
#include "controllers/storage/pv_protection_controller.h"
#include "controllers/storage/pvc_protection_controller.h"
#include "controllers/storage/volume_binding.h"
#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;

class VolumeControllerTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    for (const auto& [name, zone] :
         std::vector<std::pair<std::string, std::string>>{
             {"worker-1", "us-east-1a"}, {"worker-2", "us-east-1b"}}) {
      json node = {{"metadata",
                    {{"name", name},
                     {"labels", {{"topology.kubernetes.io/zone", zone}}}}}};
      ASSERT_TRUE(registry_->Create(*res_.nodes, "", node, {}).ok());
    }
    for (const auto& [name, mode] :
         std::vector<std::pair<std::string, std::string>>{
             {"gp2", "WaitForFirstConsumer"}, {"io", "Immediate"}}) {
      json sc = {{"metadata", {{"name", name}}},
                 {"provisioner", "kubernetes.io/aws-ebs"},
                 {"volumeBindingMode", mode}};
      ASSERT_TRUE(registry_->Create(*res_.storageclasses, "", sc, {}).ok());
    }
    claims_ = std::make_unique<Informer>(registry_.get(),
                                         res_.persistentvolumeclaims);
    volumes_ =
        std::make_unique<Informer>(registry_.get(), res_.persistentvolumes);
    nodes_ = std::make_unique<Informer>(registry_.get(), res_.nodes);
    pods_ = std::make_unique<Informer>(registry_.get(), res_.pods);
    ctl_ = std::make_unique<VolumeController>(registry_.get(), &clock_, &rng_,
                                              res_, claims_.get(),
                                              volumes_.get(), nodes_.get());
    pvc_protection_ = std::make_unique<PvcProtectionController>(
        registry_.get(), &clock_, res_, pods_.get(), claims_.get());
    pv_protection_ = std::make_unique<PvProtectionController>(
        registry_.get(), &clock_, volumes_.get());
    for (Informer* inf :
         {claims_.get(), volumes_.get(), nodes_.get(), pods_.get()}) {
      inf->Start();
    }
    ctl_->Start();
    pvc_protection_->Start();
    pv_protection_->Start();
  }
  void TearDown() override {
    pv_protection_->Stop();
    pvc_protection_->Stop();
    ctl_->Stop();
    for (Informer* inf :
         {claims_.get(), volumes_.get(), nodes_.get(), pods_.get()}) {
      inf->Stop();
    }
    ControllerFixture::TearDown();
  }

  void CreateClaim(const std::string& name, const std::string& cls,
                   json annotations = json::object()) {
    json claim = {{"metadata", {{"name", name}, {"annotations", annotations}}},
                  {"spec",
                   {{"accessModes", {"ReadWriteOnce"}},
                    {"storageClassName", cls},
                    {"resources", {{"requests", {{"storage", "2Gi"}}}}}}}};
    auto r =
        registry_->Create(*res_.persistentvolumeclaims, "default", claim, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  json Claim(const std::string& name) {
    auto r = registry_->Get(*res_.persistentvolumeclaims, "default", name);
    return r.ok() ? *r : json();
  }
  json Volume(const std::string& name) {
    auto r = registry_->Get(*res_.persistentvolumes, "", name);
    return r.ok() ? *r : json();
  }
  std::string Phase(const json& obj) {
    return StringAt(ObjectAt(obj, "status"), "phase");
  }

  std::unique_ptr<Informer> claims_;
  std::unique_ptr<Informer> volumes_;
  std::unique_ptr<Informer> nodes_;
  std::unique_ptr<Informer> pods_;
  std::unique_ptr<VolumeController> ctl_;
  std::unique_ptr<PvcProtectionController> pvc_protection_;
  std::unique_ptr<PvProtectionController> pv_protection_;
};

TEST_F(VolumeControllerTest, ImmediateClassProvisionsAndBindsAtOnce) {
  CreateClaim("data", "io");
  ASSERT_TRUE(Eventually([&] { return Phase(Claim("data")) == "Bound"; }));
  json claim = Claim("data");
  const std::string volume_name = claim["spec"]["volumeName"];
  EXPECT_EQ(volume_name, "pvc-" + claim["metadata"]["uid"].get<std::string>());
  EXPECT_EQ(claim["status"]["capacity"]["storage"], "2Gi");
  EXPECT_EQ(
      claim["metadata"]["annotations"][storage::kStorageProvisionerAnnotation],
      storage::kEbsCsiDriver);
  json volume = Volume(volume_name);
  EXPECT_EQ(Phase(volume), "Bound");
  EXPECT_EQ(volume["spec"]["claimRef"]["name"], "data");
  EXPECT_EQ(claim["metadata"]["finalizers"],
            json({"kubernetes.io/pvc-protection"}));
  EXPECT_EQ(volume["metadata"]["finalizers"],
            json({"kubernetes.io/pv-protection"}));

  // The claim goes (no pod uses it): the provisioned volume (reclaim
  // Delete) is Released, deleted, and loses its finalizer.
  ASSERT_TRUE(
      registry_->Delete(*res_.persistentvolumeclaims, "default", "data", {})
          .ok());
  EXPECT_TRUE(Eventually([&] { return Claim("data").is_null(); }));
  EXPECT_TRUE(Eventually([&] { return Volume(volume_name).is_null(); }));
}

TEST_F(VolumeControllerTest, ABoundVolumeDeletedWaitsForItsClaim) {
  CreateClaim("held", "io");
  ASSERT_TRUE(Eventually([&] { return Phase(Claim("held")) == "Bound"; }));
  const std::string volume_name = Claim("held")["spec"]["volumeName"];
  ASSERT_TRUE(
      registry_->Delete(*res_.persistentvolumes, "", volume_name, {}).ok());
  EXPECT_TRUE(Stays([&] {
    json v = Volume(volume_name);
    return Phase(v) == "Bound" && v["metadata"].contains("deletionTimestamp");
  }));
  ASSERT_TRUE(
      registry_->Delete(*res_.persistentvolumeclaims, "default", "held", {})
          .ok());
  EXPECT_TRUE(Eventually([&] { return Volume(volume_name).is_null(); }));
}

TEST_F(VolumeControllerTest, WaitForFirstConsumerWaitsForTheNode) {
  CreateClaim("later", "gp2");
  EXPECT_TRUE(Stays([&] { return Phase(Claim("later")) == "Pending"; }));
  auto annotated = registry_->GuaranteedUpdate(
      *res_.persistentvolumeclaims, "default", "later", "",
      [](json& c) {
        c["metadata"]["annotations"][storage::kSelectedNodeAnnotation] =
            "worker-2";
        return Status::Ok();
      },
      {});
  ASSERT_TRUE(annotated.ok());
  ASSERT_TRUE(Eventually([&] { return Phase(Claim("later")) == "Bound"; }));
  json volume = Volume(Claim("later")["spec"]["volumeName"]);
  EXPECT_EQ(volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]
                  ["matchExpressions"][0]["values"],
            json({"us-east-1b"}));
}

TEST_F(VolumeControllerTest, StaticVolumeBindsAndIsKeptOnRelease) {
  json pv = {{"metadata", {{"name", "manual"}}},
             {"spec",
              {{"accessModes", {"ReadWriteOnce", "ReadOnlyMany"}},
               {"capacity", {{"storage", "10Gi"}}},
               {"storageClassName", ""},
               {"hostPath", {{"path", "/data"}}}}}};
  ASSERT_TRUE(registry_->Create(*res_.persistentvolumes, "", pv, {}).ok());
  ASSERT_TRUE(
      Eventually([&] { return Phase(Volume("manual")) == "Available"; }));
  CreateClaim("static", "");
  ASSERT_TRUE(Eventually([&] { return Phase(Claim("static")) == "Bound"; }));
  EXPECT_EQ(Claim("static")["spec"]["volumeName"], "manual");
  EXPECT_EQ(Claim("static")["status"]["capacity"]["storage"], "10Gi");
  ASSERT_TRUE(
      registry_->Delete(*res_.persistentvolumeclaims, "default", "static", {})
          .ok());
  ASSERT_TRUE(
      Eventually([&] { return Phase(Volume("manual")) == "Released"; }));
  EXPECT_TRUE(Stays([&] { return Phase(Volume("manual")) == "Released"; }));
  // Retain keeps it until an administrator deletes it, and then it goes.
  ASSERT_TRUE(
      registry_->Delete(*res_.persistentvolumes, "", "manual", {}).ok());
  EXPECT_TRUE(Eventually([&] { return Volume("manual").is_null(); }));
}

}  // namespace
}  // namespace kmock::controllers
