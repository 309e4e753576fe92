// The per-namespace publishers: ServiceAccount "default" and ConfigMap
// "kube-root-ca.crt" appear in every namespace, old and new, come back
// when deleted, the CA data is put back when edited (a user's label
// stays), and nothing is made in a terminating namespace.
#include "controllers/publish/namespace_publisher.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "controllers/resources_lookup.h"
#include "registry/test_registry.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr char kCa[] =
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

class NamespacePublisherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ =
        std::make_unique<registry::Registry>(storage_.get(), &clock_, &rng_);
    auto res = CoreResources::Lookup(registry_->catalog());
    ASSERT_TRUE(res.ok()) << res.status().ToString();
    res_ = *res;
    ASSERT_NE(res_.serviceaccounts, nullptr);
    ASSERT_NE(res_.configmaps, nullptr);
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
  }
  void TearDown() override {
    for (auto& p : publishers_) p->Stop();
    publishers_.clear();
    registry_.reset();
    if (storage_) storage_->Close();
  }

  void Start(PublishedObject published) {
    publishers_.push_back(std::make_unique<NamespacePublisher>(
        registry_.get(), &clock_, res_.namespaces, std::move(published)));
    publishers_.back()->Start();
  }

  json Get(const api::ResourceInfo* res, const std::string& ns,
           const std::string& name) {
    auto r = registry_->Get(*res, ns, name);
    return r.ok() ? *r : json();
  }

  bool Eventually(const std::function<bool()>& pred) {
    auto deadline = std::chrono::steady_clock::now() + milliseconds(10000);
    while (std::chrono::steady_clock::now() < deadline) {
      if (pred()) return true;
      std::this_thread::sleep_for(milliseconds(5));
    }
    return pred();
  }

  bool Stays(const std::function<bool()>& pred) {
    auto deadline = std::chrono::steady_clock::now() + milliseconds(300);
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
  std::vector<std::unique_ptr<NamespacePublisher>> publishers_;
};

TEST_F(NamespacePublisherTest, DefaultServiceAccountInOldAndNewNamespaces) {
  Start(DefaultServiceAccount(res_.serviceaccounts));
  ASSERT_TRUE(Eventually([&] {
    return !Get(res_.serviceaccounts, "default", "default").is_null();
  }));
  json sa = Get(res_.serviceaccounts, "default", "default");
  EXPECT_EQ(sa["kind"], "ServiceAccount");
  EXPECT_FALSE(sa.contains("secrets"));

  ASSERT_TRUE(
      registry::testing::CreateNamespace(registry_.get(), "team-a").ok());
  EXPECT_TRUE(Eventually([&] {
    return !Get(res_.serviceaccounts, "team-a", "default").is_null();
  }));
}

TEST_F(NamespacePublisherTest, DeletedServiceAccountComesBackWithNewUid) {
  Start(DefaultServiceAccount(res_.serviceaccounts));
  ASSERT_TRUE(Eventually([&] {
    return !Get(res_.serviceaccounts, "default", "default").is_null();
  }));
  std::string uid =
      Get(res_.serviceaccounts, "default", "default")["metadata"]["uid"];
  ASSERT_TRUE(
      registry_->Delete(*res_.serviceaccounts, "default", "default", {}).ok());
  ASSERT_TRUE(Eventually([&] {
    json sa = Get(res_.serviceaccounts, "default", "default");
    return !sa.is_null() && sa["metadata"]["uid"] != uid;
  }));
}

TEST_F(NamespacePublisherTest, RootCaIsPublishedAndRepaired) {
  Start(RootCaConfigMap(res_.configmaps, kCa));
  ASSERT_TRUE(Eventually([&] {
    return !Get(res_.configmaps, "default", "kube-root-ca.crt").is_null();
  }));
  json cm = Get(res_.configmaps, "default", "kube-root-ca.crt");
  EXPECT_EQ(cm["data"], json({{"ca.crt", kCa}}));
  EXPECT_NE(cm["metadata"]["annotations"]["kubernetes.io/description"]
                .get<std::string>()
                .find("kubernetes.default.svc"),
            std::string::npos);

  cm["data"]["ca.crt"] = "tampered";
  cm["metadata"]["labels"] = {{"team", "a"}};
  ASSERT_TRUE(
      registry_
          ->Update(*res_.configmaps, "default", "kube-root-ca.crt", "", cm, {})
          .ok());
  ASSERT_TRUE(Eventually([&] {
    json now = Get(res_.configmaps, "default", "kube-root-ca.crt");
    return now["data"]["ca.crt"] == kCa;
  }));
  json now = Get(res_.configmaps, "default", "kube-root-ca.crt");
  EXPECT_EQ(now["metadata"]["labels"], json({{"team", "a"}}));
}

TEST_F(NamespacePublisherTest, NothingIsMadeInATerminatingNamespace) {
  ASSERT_TRUE(
      registry::testing::CreateNamespace(registry_.get(), "leaving").ok());
  Start(DefaultServiceAccount(res_.serviceaccounts));
  ASSERT_TRUE(Eventually([&] {
    return !Get(res_.serviceaccounts, "leaving", "default").is_null();
  }));
  // The namespace keeps its "kubernetes" finalizer: it stays Terminating.
  ASSERT_TRUE(registry_->Delete(*res_.namespaces, "", "leaving", {}).ok());
  ASSERT_TRUE(
      registry_->Delete(*res_.serviceaccounts, "leaving", "default", {}).ok());
  EXPECT_TRUE(Stays([&] {
    return Get(res_.serviceaccounts, "leaving", "default").is_null();
  }));
}

}  // namespace
}  // namespace kmock::controllers
