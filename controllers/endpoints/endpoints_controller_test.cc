// The endpoints controller against a registry: a Service gets Endpoints
// and one managed EndpointSlice naming its ready pods; a pod that stops
// being ready moves to notReadyAddresses and the slice is rewritten in
// place; a Service without a selector keeps its user's Endpoints; a deleted
// Service loses its Endpoints; Endpoints written before their Service stay,
// and an edit to a managed Endpoints is put right.
#include "controllers/endpoints/endpoints_controller.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "controllers/replicaset_controller.h"
#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

class EndpointsControllerTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    pods_ = std::make_unique<Informer>(registry_.get(), res_.pods);
    pods_->AddIndex(kByNamespaceIndex, NamespaceIndex);
    nodes_ = std::make_unique<Informer>(registry_.get(), res_.nodes);
    ctl_ = std::make_unique<EndpointsController>(registry_.get(), &clock_, res_,
                                                 pods_.get(), nodes_.get());
    pods_->Start();
    nodes_->Start();
    ctl_->Start();
  }
  void TearDown() override {
    ctl_->Stop();
    pods_->Stop();
    nodes_->Stop();
    ControllerFixture::TearDown();
  }

  void CreatePod(const std::string& name, const std::string& ip, bool ready) {
    json pod = {
        {"apiVersion", "v1"},
        {"kind", "Pod"},
        {"metadata", {{"name", name}, {"labels", {{"app", "web"}}}}},
        {"spec",
         {{"containers",
           {{{"name", "app"},
             {"image", "nginx"},
             {"ports", {{{"name", "http"}, {"containerPort", 8080}}}}}}}}}};
    auto created = registry_->Create(*res_.pods, "default", pod, {});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    SetReady(name, ip, ready);
  }

  void SetReady(const std::string& name, const std::string& ip, bool ready) {
    auto live = registry_->Get(*res_.pods, "default", name);
    ASSERT_TRUE(live.ok());
    json pod = *live;
    pod["status"]["phase"] = "Running";
    pod["status"]["podIP"] = ip;
    pod["status"]["podIPs"] = {{{"ip", ip}}};
    pod["status"]["conditions"] = {
        {{"type", "Ready"}, {"status", ready ? "True" : "False"}}};
    auto updated =
        registry_->Update(*res_.pods, "default", name, "status", pod, {});
    ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  }

  void CreateService(const std::string& name, json selector) {
    json svc = {
        {"apiVersion", "v1"},
        {"kind", "Service"},
        {"metadata", {{"name", name}}},
        {"spec", {{"ports", {{{"port", 80}, {"targetPort", "http"}}}}}}};
    if (!selector.is_null()) svc["spec"]["selector"] = selector;
    auto created = registry_->Create(*res_.services, "default", svc, {});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
  }

  json Endpoints(const std::string& name) {
    auto r = registry_->Get(*res_.endpoints, "default", name);
    return r.ok() ? *r : json();
  }
  json Slices() {
    auto r = registry_->List(*res_.endpointslices, "default", {});
    return r.ok() ? (*r)["items"] : json::array();
  }

  std::unique_ptr<Informer> pods_;
  std::unique_ptr<Informer> nodes_;
  std::unique_ptr<EndpointsController> ctl_;
};

int Count(const json& subsets, const char* key) {
  int n = 0;
  for (const json& s : subsets) n += s.contains(key) ? int(s[key].size()) : 0;
  return n;
}

TEST_F(EndpointsControllerTest, FollowsThePodsTheSelectorPicks) {
  CreatePod("a", "10.244.1.2", true);
  CreatePod("b", "10.244.2.2", true);
  CreateService("web", {{"app", "web"}});
  ASSERT_TRUE(Eventually([&] {
    return Count(Endpoints("web")["subsets"], "addresses") == 2 &&
           Slices().size() == 1 && Slices()[0]["endpoints"].size() == 2;
  })) << Endpoints("web").dump()
      << Slices().dump();
  json ep = Endpoints("web");
  EXPECT_EQ(ep["subsets"][0]["ports"][0]["port"], 8080);
  json slice = Slices()[0];
  std::string slice_name = slice["metadata"]["name"];
  EXPECT_EQ(slice_name.rfind("web-", 0), 0u);
  EXPECT_EQ(slice["metadata"]["labels"]["kubernetes.io/service-name"], "web");
  EXPECT_EQ(slice["metadata"]["ownerReferences"][0]["kind"], "Service");

  SetReady("b", "10.244.2.2", false);
  ASSERT_TRUE(Eventually([&] {
    json s = Slices();
    return Count(Endpoints("web")["subsets"], "notReadyAddresses") == 1 &&
           s.size() == 1 &&
           s[0]["endpoints"][1]["conditions"]["ready"] == false;
  })) << Endpoints("web").dump()
      << Slices().dump();
  // Rewritten in place, not replaced.
  EXPECT_EQ(Slices()[0]["metadata"]["name"], slice_name);

  ASSERT_TRUE(registry_->Delete(*res_.services, "default", "web", {}).ok());
  EXPECT_TRUE(Eventually([&] { return Endpoints("web").is_null(); }));
}

TEST_F(EndpointsControllerTest, ServiceWithoutSelectorKeepsUserEndpoints) {
  CreateService("external", json());
  json ep = {{"apiVersion", "v1"},
             {"kind", "Endpoints"},
             {"metadata", {{"name", "external"}}},
             {"subsets",
              {{{"addresses", {{{"ip", "192.0.2.10"}}}},
                {"ports", {{{"port", 5432}}}}}}}};
  ASSERT_TRUE(registry_->Create(*res_.endpoints, "default", ep, {}).ok());
  CreatePod("a", "10.244.1.2", true);
  std::this_thread::sleep_for(milliseconds(200));
  json live = Endpoints("external");
  EXPECT_EQ(live["subsets"][0]["addresses"][0]["ip"], "192.0.2.10");
  EXPECT_EQ(Slices().size(), 0u);
}

TEST_F(EndpointsControllerTest, EndpointsWrittenBeforeTheirServiceStay) {
  json ep = {{"apiVersion", "v1"},
             {"kind", "Endpoints"},
             {"metadata", {{"name", "db"}}},
             {"subsets",
              {{{"addresses", {{{"ip", "192.0.2.20"}}}},
                {"ports", {{{"port", 5432}}}}}}}};
  ASSERT_TRUE(registry_->Create(*res_.endpoints, "default", ep, {}).ok());
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(Endpoints("db")["subsets"][0]["addresses"][0]["ip"], "192.0.2.20");
  CreateService("db", json());
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(Endpoints("db")["subsets"][0]["addresses"][0]["ip"], "192.0.2.20");
}

TEST_F(EndpointsControllerTest, AnEditedEndpointsIsPutRight) {
  CreatePod("a", "10.244.1.2", true);
  CreateService("web", {{"app", "web"}});
  ASSERT_TRUE(Eventually([&] {
    return Count(Endpoints("web")["subsets"], "addresses") == 1;
  })) << Endpoints("web").dump();
  json edited = Endpoints("web");
  edited["subsets"][0]["addresses"][0]["ip"] = "192.0.2.99";
  ASSERT_TRUE(
      registry_->Update(*res_.endpoints, "default", "web", "", edited, {})
          .ok());
  EXPECT_TRUE(Eventually([&] {
    return Endpoints("web")["subsets"][0]["addresses"][0]["ip"] == "10.244.1.2";
  })) << Endpoints("web").dump();
}

}  // namespace
}  // namespace kmock::controllers
