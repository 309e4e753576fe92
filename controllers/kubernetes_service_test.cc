// The default/kubernetes Service loop: made again a pass after it is
// deleted (passes every 10 s of the FakeClock), with the same spec and
// address and a new uid; left alone while it exists.
#include "controllers/kubernetes_service.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "api/kinds/service.h"
#include "registry/test_registry.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

class KubernetesServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ =
        std::make_unique<registry::Registry>(storage_.get(), &clock_, &rng_);
    auto res = CoreResources::Lookup(registry_->catalog());
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    res_ = *res;
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
  }
  void TearDown() override {
    if (ctl_) ctl_->Stop();
    ctl_.reset();
    registry_.reset();
    if (storage_) storage_->Close();
  }

  void StartController(KubernetesServiceOptions options = {}) {
    ctl_ = std::make_unique<KubernetesServiceController>(
        registry_.get(), &clock_, res_, options);
    ctl_->Start();
  }

  // The Service, or null.
  json Service() {
    auto r = registry_->Get(*res_.services, "default", "kubernetes");
    return r.ok() ? *r : json();
  }

  bool Eventually(const std::function<bool()>& pred) {
    auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return pred();
  }

  // pred holds for `d` of real time while the fake clock stands still.
  bool Stays(const std::function<bool()>& pred,
             milliseconds d = milliseconds(300)) {
    auto deadline = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!pred()) return false;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return pred();
  }

  FakeClock clock_{std::chrono::system_clock::from_time_t(1735725600)};
  Rng rng_{42};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<registry::Registry> registry_;
  CoreResources res_;
  std::unique_ptr<KubernetesServiceController> ctl_;
};

TEST_F(KubernetesServiceTest, MadeOnTheFirstPass) {
  StartController();
  ASSERT_TRUE(Eventually([&] { return !Service().is_null(); }));
  json svc = Service();
  EXPECT_EQ(svc["metadata"]["labels"],
            json({{"component", "apiserver"}, {"provider", "kubernetes"}}));
  EXPECT_EQ(svc["spec"]["clusterIP"], api::kinds::kKubernetesServiceIp);
  EXPECT_EQ(svc["spec"]["ports"], json::parse(R"([{"name": "https", "port": 443,
                             "protocol": "TCP", "targetPort": 6443}])"));
  EXPECT_EQ(svc["metadata"]["managedFields"][0]["manager"], "kube-apiserver");
}

TEST_F(KubernetesServiceTest, DeletedServiceComesBackOnTheNextPass) {
  StartController();
  ASSERT_TRUE(Eventually([&] { return !Service().is_null(); }));
  json before = Service();
  auto del = registry_->Delete(*res_.services, "default", "kubernetes",
                               registry::DeleteOptions{});
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  ASSERT_TRUE(del->deleted);

  // Not on the delete itself: the loop runs every 10 s.
  EXPECT_TRUE(Stays([&] { return Service().is_null(); }));
  clock_.Advance(seconds(9));
  EXPECT_TRUE(Stays([&] { return Service().is_null(); }));
  clock_.Advance(seconds(1));
  ASSERT_TRUE(Eventually([&] { return !Service().is_null(); }));

  json after = Service();
  EXPECT_NE(after["metadata"]["uid"], before["metadata"]["uid"]);
  EXPECT_NE(after["metadata"]["resourceVersion"],
            before["metadata"]["resourceVersion"]);
  // The first address of the service range, always.
  EXPECT_EQ(after["spec"]["clusterIP"], api::kinds::kKubernetesServiceIp);
  EXPECT_EQ(after["spec"], before["spec"]);
  EXPECT_EQ(after["metadata"]["labels"], before["metadata"]["labels"]);
  EXPECT_EQ(after["metadata"]["creationTimestamp"],
            FormatRfc3339(clock_.Now()));
}

TEST_F(KubernetesServiceTest, AnExistingServiceIsLeftAlone) {
  StartController();
  ASSERT_TRUE(Eventually([&] { return !Service().is_null(); }));
  auto r = registry_->GuaranteedUpdate(
      *res_.services, "default", "kubernetes", "",
      [](json& svc) {
        svc["metadata"]["labels"]["extra"] = "yes";
        return Status::Ok();
      },
      registry::WriteOptions{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::string rv = Service()["metadata"]["resourceVersion"];
  clock_.Advance(seconds(10));
  EXPECT_TRUE(
      Stays([&] { return Service()["metadata"]["resourceVersion"] == rv; }));
  EXPECT_EQ(Service()["metadata"]["labels"]["extra"], "yes");
}

TEST_F(KubernetesServiceTest, EndpointsNameTheAdvertisedAddress) {
  KubernetesServiceOptions options;
  options.advertise_address = "10.0.0.11";
  StartController(options);
  auto get = [&](const api::ResourceInfo* res) {
    auto r = registry_->Get(*res, "default", "kubernetes");
    return r.ok() ? *r : json();
  };
  ASSERT_TRUE(Eventually([&] {
    return !get(res_.endpoints).is_null() &&
           !get(res_.endpointslices).is_null();
  }));
  EXPECT_EQ(get(res_.endpoints)["subsets"], json::parse(R"([{
      "addresses": [{"ip": "10.0.0.11"}],
      "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}])"));
  json slice = get(res_.endpointslices);
  EXPECT_EQ(slice["metadata"]["labels"],
            json({{"kubernetes.io/service-name", "kubernetes"}}));
  EXPECT_EQ(slice["endpoints"][0]["addresses"], json({"10.0.0.11"}));

  // Deleted, they return on the next pass.
  ASSERT_TRUE(
      registry_->Delete(*res_.endpoints, "default", "kubernetes", {}).ok());
  clock_.Advance(seconds(10));
  EXPECT_TRUE(Eventually([&] { return !get(res_.endpoints).is_null(); }));
}

}  // namespace
}  // namespace kmock::controllers
