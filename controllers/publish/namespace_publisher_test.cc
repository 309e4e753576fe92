// The per-namespace publishers: ServiceAccount "default" and ConfigMap
// "kube-root-ca.crt" appear in every namespace, old and new, come back
// when deleted, the CA data is put back when edited (a user's label
// stays), and nothing is made in a terminating namespace.
#include "controllers/publish/namespace_publisher.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr char kCa[] =
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

class NamespacePublisherTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    ASSERT_NE(res_.serviceaccounts, nullptr);
    ASSERT_NE(res_.configmaps, nullptr);
  }
  void TearDown() override {
    for (auto& p : publishers_) p->Stop();
    publishers_.clear();
    ControllerFixture::TearDown();
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
