// The declared ingress controller: its install objects, the class an
// Ingress asks for, and the loop that gives the Ingresses of its class the
// published Service's address (following it when it changes) while other
// classes' Ingresses are left alone; a second install writes nothing.
#include "controllers/ingress/ingress_controller.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/json_view.h"
#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;

TEST(IngressControllerObjects, AreWhatTheInstallManifestHolds) {
  IngressControllerSpec spec;
  spec.default_class = true;
  std::vector<json> objs = IngressControllerObjects(spec);
  ASSERT_EQ(objs.size(), 5u);
  EXPECT_EQ(objs[0]["kind"], "Namespace");
  EXPECT_EQ(objs[0]["metadata"]["name"], "ingress-nginx");
  EXPECT_EQ(objs[1]["kind"], "ServiceAccount");
  const json& cls = objs[2];
  EXPECT_EQ(cls["kind"], "IngressClass");
  EXPECT_EQ(cls["metadata"]["name"], "nginx");
  EXPECT_EQ(cls["spec"]["controller"], "k8s.io/ingress-nginx");
  EXPECT_EQ(cls["metadata"]["annotations"]["ingressclass.kubernetes.io/"
                                           "is-default-class"],
            "true");
  const json& svc = objs[3];
  EXPECT_EQ(svc["metadata"]["name"], "ingress-nginx-controller");
  EXPECT_EQ(svc["spec"]["type"], "LoadBalancer");
  const json& deploy = objs[4];
  EXPECT_EQ(deploy["kind"], "Deployment");
  EXPECT_EQ(deploy["spec"]["selector"]["matchLabels"], svc["spec"]["selector"]);
  const json& args =
      deploy["spec"]["template"]["spec"]["containers"][0]["args"];
  EXPECT_NE(std::find(args.begin(), args.end(),
                      "--publish-service=$(POD_NAMESPACE)/"
                      "ingress-nginx-controller"),
            args.end());
  EXPECT_EQ(deploy["metadata"]["labels"]["app.kubernetes.io/version"],
            "v1.12.1");
  spec.default_class = false;
  EXPECT_FALSE(
      IngressControllerObjects(spec)[2]["metadata"].contains("annotations"));
}

TEST(IngressClassOf, PrefersTheFieldToTheAnnotation) {
  EXPECT_EQ(IngressClassOf(json::object()), "");
  json ing = {{"metadata",
               {{"annotations", {{"kubernetes.io/ingress.class", "old"}}}}}};
  EXPECT_EQ(IngressClassOf(ing), "old");
  ing["spec"]["ingressClassName"] = "nginx";
  EXPECT_EQ(IngressClassOf(ing), "nginx");
}

TEST(IngressAddresses, CopiesIpsAndHostnames) {
  json svc = {{"status",
               {{"loadBalancer",
                 {{"ingress",
                   {{{"hostname", "a.elb.amazonaws.com"}},
                    {{"ip", "192.0.2.7"}, {"ipMode", "VIP"}}}}}}}}};
  EXPECT_EQ(IngressAddresses(svc),
            json::parse(R"([{"hostname":"a.elb.amazonaws.com"},
                            {"ip":"192.0.2.7"}])"));
  EXPECT_EQ(IngressAddresses(json::object()), json::array());
}

class IngressControllerTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    ingresses_ =
        registry_->catalog().Find("networking.k8s.io", "v1", "ingresses");
    classes_ =
        registry_->catalog().Find("networking.k8s.io", "v1", "ingressclasses");
    IngressControllerOptions o;
    o.controllers.push_back(IngressControllerSpec{});
    controller_ =
        std::make_unique<IngressController>(registry_.get(), &clock_, o);
  }
  void TearDown() override {
    controller_.reset();
    ControllerFixture::TearDown();
  }
  void SetServiceAddress(const std::string& hostname) {
    auto r = registry_->GuaranteedUpdate(
        *res_.services, "ingress-nginx", "ingress-nginx-controller", "status",
        [&](json& obj) {
          obj["status"]["loadBalancer"]["ingress"] = {{{"hostname", hostname}}};
          return Status::Ok();
        },
        {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void CreateIngress(const std::string& name, const std::string& cls) {
    json obj = {
        {"metadata", {{"name", name}}},
        {"spec",
         {{"ingressClassName", cls},
          {"defaultBackend",
           {{"service", {{"name", "web"}, {"port", {{"number", 80}}}}}}}}}};
    auto r = registry_->Create(*ingresses_, "default", obj, {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  std::string AddressOf(const std::string& name) {
    auto r = registry_->Get(*ingresses_, "default", name);
    if (!r.ok()) return "";
    const json& in =
        ArrayAt(ObjectAt(ObjectAt(*r, "status"), "loadBalancer"), "ingress");
    return in.empty() ? "" : in[0].value("hostname", "");
  }

  const api::ResourceInfo* ingresses_ = nullptr;
  const api::ResourceInfo* classes_ = nullptr;
  std::unique_ptr<IngressController> controller_;
};

TEST_F(IngressControllerTest, IngressesOfItsClassGetThePublishedAddress) {
  controller_->Start();
  ASSERT_TRUE(Eventually([&] {
    return registry_
        ->Get(*res_.deployments, "ingress-nginx", "ingress-nginx-controller")
        .ok();
  }));
  EXPECT_TRUE(registry_->Get(*classes_, "", "nginx").ok());
  CreateIngress("web", "nginx");
  CreateIngress("elsewhere", "traefik");
  // No address until the load balancer has one.
  EXPECT_TRUE(Stays([&] { return AddressOf("web").empty(); }));
  SetServiceAddress("a1.us-east-1.elb.amazonaws.com");
  EXPECT_TRUE(Eventually(
      [&] { return AddressOf("web") == "a1.us-east-1.elb.amazonaws.com"; }));
  SetServiceAddress("a2.us-east-1.elb.amazonaws.com");
  EXPECT_TRUE(Eventually(
      [&] { return AddressOf("web") == "a2.us-east-1.elb.amazonaws.com"; }));
  EXPECT_EQ(AddressOf("elsewhere"), "");
  CreateIngress("late", "nginx");
  EXPECT_TRUE(Eventually(
      [&] { return AddressOf("late") == "a2.us-east-1.elb.amazonaws.com"; }));
}

TEST_F(IngressControllerTest, ASecondInstallWritesNothing) {
  ASSERT_TRUE(controller_->Sync(IngressController::kInstallKey).ok());
  const int64_t before = registry_->storage()->CurrentRevision();
  ASSERT_TRUE(controller_->Sync(IngressController::kInstallKey).ok());
  EXPECT_EQ(registry_->storage()->CurrentRevision(), before);
}

}  // namespace
}  // namespace kmock::controllers
