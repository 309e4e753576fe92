// The pvc-protection and pv-protection controllers: a deleted claim stays
// (Terminating) while a scheduled pod uses it, finished or not, and goes
// once the pod does; unscheduled pods and pods elsewhere do not hold it; a
// claim or volume without its finalizer gets it back; a deleted volume
// goes once it is not Bound.
#include "controllers/storage/pvc_protection_controller.h"

#include <gtest/gtest.h>

#include "common/json_view.h"
#include "controllers/storage/pv_protection_controller.h"
#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;

class ProtectionControllerTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "other").ok());
    pods_ = std::make_unique<Informer>(registry_.get(), res_.pods);
    claims_ = std::make_unique<Informer>(registry_.get(),
                                         res_.persistentvolumeclaims);
    volumes_ =
        std::make_unique<Informer>(registry_.get(), res_.persistentvolumes);
    pvc_ = std::make_unique<PvcProtectionController>(
        registry_.get(), &clock_, res_, pods_.get(), claims_.get());
    pv_ = std::make_unique<PvProtectionController>(registry_.get(), &clock_,
                                                   volumes_.get());
    for (Informer* inf : {pods_.get(), claims_.get(), volumes_.get()}) {
      inf->Start();
    }
    pvc_->Start();
    pv_->Start();
  }
  void TearDown() override {
    pv_->Stop();
    pvc_->Stop();
    for (Informer* inf : {pods_.get(), claims_.get(), volumes_.get()}) {
      inf->Stop();
    }
    ControllerFixture::TearDown();
  }

  void CreateClaim(const std::string& name) {
    json claim = {{"metadata", {{"name", name}}},
                  {"spec",
                   {{"accessModes", {"ReadWriteOnce"}},
                    {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
    auto r =
        registry_->Create(*res_.persistentvolumeclaims, "default", claim, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void CreatePod(const std::string& name, const std::string& claim,
                 const std::string& node, const std::string& ns = "default") {
    json pod = {{"metadata", {{"name", name}}},
                {"spec",
                 {{"containers", {{{"name", "c"}, {"image", "nginx"}}}},
                  {"volumes",
                   {{{"name", "data"},
                     {"persistentVolumeClaim", {{"claimName", claim}}}}}}}}};
    if (!node.empty()) pod["spec"]["nodeName"] = node;
    auto r = registry_->Create(*res_.pods, ns, pod, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void DeletePod(const std::string& name) {
    registry::DeleteOptions now;
    now.grace_period_seconds = 0;
    auto r = registry_->Delete(*res_.pods, "default", name, now);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void SetPodPhase(const std::string& name, const std::string& phase) {
    auto r = registry_->GuaranteedUpdate(*res_.pods, "default", name, "status",
                                         [&phase](json& pod) {
                                           pod["status"]["phase"] = phase;
                                           return Status::Ok();
                                         },
                                         {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void DeleteClaim(const std::string& name) {
    auto r =
        registry_->Delete(*res_.persistentvolumeclaims, "default", name, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  json Claim(const std::string& name) {
    auto r = registry_->Get(*res_.persistentvolumeclaims, "default", name);
    return r.ok() ? *r : json();
  }
  bool Terminating(const std::string& name) {
    return Claim(name)["metadata"].contains("deletionTimestamp");
  }
  bool Gone(const std::string& name) { return Claim(name).is_null(); }

  std::unique_ptr<Informer> pods_;
  std::unique_ptr<Informer> claims_;
  std::unique_ptr<Informer> volumes_;
  std::unique_ptr<PvcProtectionController> pvc_;
  std::unique_ptr<PvProtectionController> pv_;
};

TEST_F(ProtectionControllerTest, AnUnusedClaimGoesAtOnce) {
  CreateClaim("free");
  DeleteClaim("free");
  EXPECT_TRUE(Eventually([&] { return Gone("free"); }));
}

TEST_F(ProtectionControllerTest, AClaimInUseWaitsForItsPod) {
  CreateClaim("data");
  CreatePod("web", "data", "worker-1");
  DeleteClaim("data");
  EXPECT_TRUE(Stays([&] { return Terminating("data"); }));
  DeletePod("web");
  EXPECT_TRUE(Eventually([&] { return Gone("data"); }));
}

TEST_F(ProtectionControllerTest, AFinishedPodHoldsItUntilDeleted) {
  CreateClaim("data");
  CreatePod("job", "data", "worker-1");
  DeleteClaim("data");
  SetPodPhase("job", "Succeeded");
  EXPECT_TRUE(Stays([&] { return Terminating("data"); }));
  DeletePod("job");
  EXPECT_TRUE(Eventually([&] { return Gone("data"); }));
}

TEST_F(ProtectionControllerTest, UnscheduledAndForeignPodsDoNotHoldIt) {
  CreateClaim("data");
  CreatePod("pending", "data", "");
  CreatePod("foreign", "data", "worker-1", "other");
  DeleteClaim("data");
  EXPECT_TRUE(Eventually([&] { return Gone("data"); }));
}

TEST_F(ProtectionControllerTest, AClaimWithoutTheFinalizerGetsIt) {
  CreateClaim("old");
  auto stripped = registry_->GuaranteedUpdate(
      *res_.persistentvolumeclaims, "default", "old", "",
      [](json& c) {
        c["metadata"].erase("finalizers");
        return Status::Ok();
      },
      {});
  ASSERT_TRUE(stripped.ok()) << stripped.status().ToString();
  EXPECT_TRUE(Eventually([&] {
    return Claim("old")["metadata"].value("finalizers", json()) ==
           json({"kubernetes.io/pvc-protection"});
  }));
  json claim = Claim("old");
  const json& fields = claim["metadata"]["managedFields"];
  bool by_controller = false;
  for (const json& f : fields) {
    by_controller |= f.value("manager", "") == "kube-controller-manager";
  }
  EXPECT_TRUE(by_controller) << fields.dump();
}

TEST_F(ProtectionControllerTest, AVolumeGoesOnceNotBound) {
  json pv = {{"metadata", {{"name", "pv1"}}},
             {"spec",
              {{"capacity", {{"storage", "1Gi"}}},
               {"accessModes", {"ReadWriteOnce"}},
               {"hostPath", {{"path", "/data"}}}}}};
  ASSERT_TRUE(registry_->Create(*res_.persistentvolumes, "", pv, {}).ok());
  auto set_phase = [&](const std::string& phase) {
    auto r = registry_->GuaranteedUpdate(*res_.persistentvolumes, "", "pv1",
                                         "status",
                                         [&phase](json& v) {
                                           v["status"]["phase"] = phase;
                                           return Status::Ok();
                                         },
                                         {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  };
  set_phase("Bound");
  ASSERT_TRUE(registry_->Delete(*res_.persistentvolumes, "", "pv1", {}).ok());
  auto volume = [&] {
    auto r = registry_->Get(*res_.persistentvolumes, "", "pv1");
    return r.ok() ? *r : json();
  };
  EXPECT_TRUE(Stays([&] { return !volume().is_null(); }));
  set_phase("Released");
  EXPECT_TRUE(Eventually([&] { return volume().is_null(); }));
}

}  // namespace
}  // namespace kmock::controllers
