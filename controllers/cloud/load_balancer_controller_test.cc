// The cloud's load balancers: a LoadBalancer Service gets an ELB-style
// hostname in status (and keeps it), loses it when it changes type; other
// Services are left alone.
#include "controllers/cloud/load_balancer_controller.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

TEST(LoadBalancerHostname, FollowsTheClassicElbForm) {
  EXPECT_EQ(LoadBalancerHostname("0f8fad5b-d9cb-469f-a165-70867728950e",
                                 "1234567890", "us-east-1"),
            "a0f8fad5bd9cb469fa16570867728950-1234567890.us-east-1.elb."
            "amazonaws.com");
}

class LoadBalancerControllerTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    ctl_ = std::make_unique<LoadBalancerController>(registry_.get(), &clock_,
                                                    &rng_, res_);
    ctl_->Start();
  }
  void TearDown() override {
    ctl_->Stop();
    ControllerFixture::TearDown();
  }

  void CreateService(const std::string& name, const std::string& type) {
    json svc = {{"metadata", {{"name", name}}},
                {"spec", {{"type", type}, {"ports", {{{"port", 80}}}}}}};
    auto r = registry_->Create(*res_.services, "default", svc, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  json Ingress(const std::string& name) {
    auto r = registry_->Get(*res_.services, "default", name);
    if (!r.ok()) return json();
    return (*r)["status"]["loadBalancer"].value("ingress", json::array());
  }
  std::unique_ptr<LoadBalancerController> ctl_;
};

TEST_F(LoadBalancerControllerTest, GivesAnAddressAndTakesItBack) {
  CreateService("lb", "LoadBalancer");
  CreateService("plain", "ClusterIP");
  ASSERT_TRUE(Eventually([&] { return Ingress("lb").size() == 1; }));
  std::string host = Ingress("lb")[0]["hostname"];
  EXPECT_NE(host.find(".us-east-1.elb.amazonaws.com"), std::string::npos);
  EXPECT_EQ(Ingress("plain"), json::array());

  auto changed =
      registry_->GuaranteedUpdate(*res_.services, "default", "lb", "",
                                  [](json& svc) {
                                    svc["spec"]["type"] = "ClusterIP";
                                    svc["spec"]["ports"][0].erase("nodePort");
                                    return Status::Ok();
                                  },
                                  {});
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_TRUE(Eventually([&] { return Ingress("lb").empty(); }));
}

}  // namespace
}  // namespace kmock::controllers
