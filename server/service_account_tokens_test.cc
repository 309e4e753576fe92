// Service account tokens: issued for an existing account with the real
// defaults and limits, accepted until they expire or their account or
// bound pod goes, only for their audiences, and reviewed.
#include "server/service_account_tokens.h"

#include <gtest/gtest.h>

#include "certs/openssl_util.h"
#include "registry/test_registry.h"

namespace kmock::server {
namespace {

using nlohmann::json;

class ServiceAccountTokensTest : public ::testing::Test {
 protected:
  void SetUp() override {
    storage_ = registry::testing::OpenMemoryStore();
    ASSERT_NE(storage_, nullptr);
    registry_ =
        std::make_unique<registry::Registry>(storage_.get(), &clock_, &rng_);
    ASSERT_TRUE(
        registry::testing::CreateNamespace(registry_.get(), "default").ok());
    accounts_ = registry_->catalog().Find("", "v1", "serviceaccounts");
    pods_ = registry_->catalog().Find("", "v1", "pods");
    ASSERT_TRUE(registry_
                    ->Create(*accounts_, "default",
                             {{"metadata", {{"name", "robot"}}}}, {})
                    .ok());
    auto key = certs::GenerateEcKey();
    ASSERT_TRUE(key.ok());
    auto signer =
        certs::JwtSigner::FromPrivateKeyPem(certs::PrivateKeyToPem(key->get()));
    ASSERT_TRUE(signer.ok());
    tokens_ = std::make_unique<ServiceAccountTokens>(registry_.get(), &clock_,
                                                     &rng_, *signer);
  }
  void TearDown() override {
    tokens_.reset();
    registry_.reset();
    if (storage_) storage_->Close();
  }

  std::string Issue(json spec = json::object()) {
    auto r = tokens_->Issue("default", "robot", {{"spec", spec}});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? (*r)["status"]["token"].get<std::string>() : "";
  }

  FakeClock clock_{TimePoint(std::chrono::seconds(1'800'000'000))};
  Rng rng_{1};
  std::unique_ptr<store::Storage> storage_;
  std::unique_ptr<registry::Registry> registry_;
  const api::ResourceInfo* accounts_ = nullptr;
  const api::ResourceInfo* pods_ = nullptr;
  std::unique_ptr<ServiceAccountTokens> tokens_;
};

TEST_F(ServiceAccountTokensTest, IssuedWithDefaultsAndAccepted) {
  auto r = tokens_->Issue("default", "robot", json::object());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["kind"], "TokenRequest");
  EXPECT_EQ((*r)["spec"]["expirationSeconds"], 3600);
  EXPECT_EQ((*r)["spec"]["audiences"],
            json({"https://kubernetes.default.svc.cluster.local"}));
  EXPECT_EQ((*r)["status"]["expirationTimestamp"],
            FormatRfc3339(clock_.Now() + std::chrono::hours(1)));
  auto user = tokens_->Authenticate((*r)["status"]["token"].get<std::string>());
  ASSERT_TRUE(user.ok()) << user.status().ToString();
  EXPECT_EQ(user->name, "system:serviceaccount:default:robot");
  EXPECT_EQ(user->groups,
            (std::vector<std::string>{"system:serviceaccounts",
                                      "system:serviceaccounts:default",
                                      "system:authenticated"}));
}

TEST_F(ServiceAccountTokensTest, RefusedAfterExpiryOrWithoutTheAccount) {
  std::string token = Issue({{"expirationSeconds", 600}});
  clock_.Advance(std::chrono::seconds(599));
  EXPECT_TRUE(tokens_->Authenticate(token).ok());
  clock_.Advance(std::chrono::seconds(1));
  EXPECT_EQ(tokens_->Authenticate(token).status().code(),
            StatusCode::kUnauthorized);

  std::string fresh = Issue();
  ASSERT_TRUE(registry_->Delete(*accounts_, "default", "robot", {}).ok());
  EXPECT_FALSE(tokens_->Authenticate(fresh).ok());
  // An account made again under the same name is another account.
  ASSERT_TRUE(registry_
                  ->Create(*accounts_, "default",
                           {{"metadata", {{"name", "robot"}}}}, {})
                  .ok());
  EXPECT_FALSE(tokens_->Authenticate(fresh).ok());
}

TEST_F(ServiceAccountTokensTest, OnlyForItsAudiences) {
  std::string token = Issue({{"audiences", {"vault"}}});
  EXPECT_FALSE(tokens_->Authenticate(token).ok());
  std::vector<std::string> shared;
  ASSERT_TRUE(tokens_->Authenticate(token, {"vault", "other"}, &shared).ok());
  EXPECT_EQ(shared, std::vector<std::string>{"vault"});
}

TEST_F(ServiceAccountTokensTest, BoundToAPodThatMustStillExist) {
  json pod = {
      {"metadata", {{"name", "web"}}},
      {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}};
  auto made = registry_->Create(*pods_, "default", pod, {});
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  std::string token =
      Issue({{"boundObjectRef",
              {{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", "web"}}}});
  EXPECT_TRUE(tokens_->Authenticate(token).ok());
  registry::DeleteOptions now;
  now.grace_period_seconds = 0;
  ASSERT_TRUE(registry_->Delete(*pods_, "default", "web", now).ok());
  EXPECT_FALSE(tokens_->Authenticate(token).ok());
}

// The kubelet's pod token (3607 s, for the API) is extended to a year, as
// kube-apiserver's --service-account-extend-token-expiration does; the
// status still says 3607 s.
TEST_F(ServiceAccountTokensTest, KubeletPodTokensLiveAYear) {
  json pod = {
      {"metadata", {{"name", "web"}}},
      {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}};
  ASSERT_TRUE(registry_->Create(*pods_, "default", pod, {}).ok());
  json bound = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", "web"}};
  auto r = tokens_->Issue(
      "default", "robot",
      {{"spec", {{"expirationSeconds", 3607}, {"boundObjectRef", bound}}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)["status"]["expirationTimestamp"],
            FormatRfc3339(clock_.Now() + std::chrono::seconds(3607)));
  std::string extended = (*r)["status"]["token"];
  std::string plain = Issue({{"expirationSeconds", 3607}});  // no pod
  std::string other =
      Issue({{"expirationSeconds", 3608}, {"boundObjectRef", bound}});
  clock_.Advance(std::chrono::hours(24 * 300));
  EXPECT_TRUE(tokens_->Authenticate(extended).ok());
  EXPECT_FALSE(tokens_->Authenticate(plain).ok());
  EXPECT_FALSE(tokens_->Authenticate(other).ok());
  clock_.Advance(std::chrono::hours(24 * 65));
  EXPECT_FALSE(tokens_->Authenticate(extended).ok());
}

TEST_F(ServiceAccountTokensTest, BadRequestsAndJunk) {
  auto short_lived = tokens_->Issue("default", "robot",
                                    {{"spec", {{"expirationSeconds", 10}}}});
  ASSERT_FALSE(short_lived.ok());
  EXPECT_EQ(short_lived.status().message(),
            "TokenRequest.authentication.k8s.io \"robot\" is invalid: "
            "spec.expirationSeconds: Invalid value: 10: may not specify a "
            "duration less than 10 minutes");
  auto missing = tokens_->Issue("default", "nobody", json::object());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(tokens_->Authenticate("not-a-token").status().code(),
            StatusCode::kUnauthorized);

  json review = tokens_->Review({{"spec", {{"token", "junk"}}}});
  EXPECT_EQ(review["kind"], "TokenReview");
  EXPECT_FALSE(review["status"].value("authenticated", false));
  EXPECT_TRUE(review["status"].contains("error"));
  review = tokens_->Review({{"spec", {{"token", Issue()}}}});
  EXPECT_EQ(review["status"]["authenticated"], true);
  EXPECT_EQ(review["status"]["user"]["username"],
            "system:serviceaccount:default:robot");
}

}  // namespace
}  // namespace kmock::server
