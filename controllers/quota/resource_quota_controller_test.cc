// The resource quota controller: a new quota's usage is counted from the
// namespace's objects, and a deleted pod's share comes back.
#include "controllers/quota/resource_quota_controller.h"

#include <gtest/gtest.h>

#include "controllers/replicaset_controller.h"
#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;

class ResourceQuotaControllerTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    pods_ = std::make_unique<Informer>(registry_.get(), res_.pods);
    ctl_ = std::make_unique<ResourceQuotaController>(
        registry_.get(), &clock_, res_.resourcequotas, pods_.get());
    pods_->Start();
    ctl_->Start();
  }
  void TearDown() override {
    ctl_->Stop();
    pods_->Stop();
    ControllerFixture::TearDown();
  }
  void CreatePod(const std::string& name, const char* cpu) {
    json pod = {{"metadata", {{"name", name}}},
                {"spec",
                 {{"containers",
                   {{{"name", "c"},
                     {"image", "nginx"},
                     {"resources", {{"requests", {{"cpu", cpu}}}}}}}}}}};
    auto r = registry_->Create(*res_.pods, "default", pod, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  json Status() {
    auto q = registry_->Get(*res_.resourcequotas, "default", "small");
    return q.ok() ? (*q).value("status", json::object()) : json();
  }

  std::unique_ptr<Informer> pods_;
  std::unique_ptr<ResourceQuotaController> ctl_;
};

TEST_F(ResourceQuotaControllerTest, CountsAndGivesBack) {
  CreatePod("a", "250m");
  CreatePod("b", "1");
  ASSERT_TRUE(registry_
                  ->Create(*res_.configmaps, "default",
                           {{"metadata", {{"name", "cm"}}}}, {})
                  .ok());
  json quota = {
      {"metadata", {{"name", "small"}}},
      {"spec",
       {{"hard",
         {{"pods", "10"}, {"requests.cpu", "4"}, {"configmaps", "5"}}}}}};
  ASSERT_TRUE(
      registry_->Create(*res_.resourcequotas, "default", quota, {}).ok());
  json want = {
      {"hard", quota["spec"]["hard"]},
      {"used",
       {{"pods", "2"}, {"requests.cpu", "1250m"}, {"configmaps", "1"}}}};
  ASSERT_TRUE(Eventually([&] { return Status() == want; })) << Status();

  ASSERT_TRUE(registry_->Delete(*res_.pods, "default", "b", {}).ok());
  EXPECT_TRUE(Eventually([&] {
    return Status()["used"]["pods"] == "1" &&
           Status()["used"]["requests.cpu"] == "250m";
  })) << Status();
}

}  // namespace
}  // namespace kmock::controllers
