#include "certs/identity.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "certs/client_cert.h"
#include "certs/openssl_util.h"
#include "certs/pki.h"

namespace kmock::certs {
namespace {

using ::testing::HasSubstr;

class IdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PkiOptions o;
    o.dns_names = {"localhost"};
    o.clock = &clock_;
    o.rng = &rng_;
    auto p = LoadOrCreatePki(o);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    pki_ = std::move(p).value();
    auto q = LoadOrCreatePki(o);
    ASSERT_TRUE(q.ok());
    other_ = std::move(q).value();
  }

  FakeClock clock_{std::chrono::system_clock::from_time_t(1767225600)};
  Rng rng_{7};
  Pki pki_, other_;
};

TEST_F(IdentityTest, AdminCertificateIsSystemMasters) {
  auto cert = ParseCertificatePem(pki_.admin_cert_pem);
  ASSERT_TRUE(cert.ok());
  auto id = VerifyClientCertificate(cert->get(), pki_.ca_cert_pem, clock_);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, (Identity{"kubernetes-admin", {"system:masters"}}));
}

TEST_F(IdentityTest, IssuedClientCertificateCarriesUserAndGroups) {
  auto cc = IssueClientCertificate(pki_, "alice", {"dev", "ops"}, clock_, rng_);
  ASSERT_TRUE(cc.ok()) << cc.status().ToString();
  auto cert = ParseCertificatePem(cc->cert_pem);
  auto key = ParsePrivateKeyPem(cc->key_pem);
  ASSERT_TRUE(cert.ok() && key.ok());
  EXPECT_EQ(X509_check_private_key(cert->get(), key->get()), 1);
  auto id = VerifyClientCertificate(cert->get(), pki_.ca_cert_pem, clock_);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, (Identity{"alice", {"dev", "ops"}}));
}

TEST_F(IdentityTest, CertificateFromAnotherCaIsRejected) {
  auto cc = IssueClientCertificate(other_, "mallory", {"system:masters"},
                                   clock_, rng_);
  ASSERT_TRUE(cc.ok());
  auto cert = ParseCertificatePem(cc->cert_pem);
  ASSERT_TRUE(cert.ok());
  auto id = VerifyClientCertificate(cert->get(), pki_.ca_cert_pem, clock_);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), StatusCode::kUnauthorized);
  // Identity extraction alone does not verify: it trusts its caller.
  auto unchecked = IdentityFromCertificate(cert->get());
  ASSERT_TRUE(unchecked.ok());
  EXPECT_EQ(unchecked->user, "mallory");
}

TEST_F(IdentityTest, ShortLivedCertificateExpires) {
  auto cc = IssueClientCertificate(pki_, "bob", {}, clock_, rng_,
                                   std::chrono::hours(1));
  ASSERT_TRUE(cc.ok());
  auto cert = ParseCertificatePem(cc->cert_pem);
  ASSERT_TRUE(cert.ok());
  EXPECT_TRUE(
      VerifyClientCertificate(cert->get(), pki_.ca_cert_pem, clock_).ok());
  clock_.Advance(std::chrono::hours(2));
  auto id = VerifyClientCertificate(cert->get(), pki_.ca_cert_pem, clock_);
  ASSERT_FALSE(id.ok());
  EXPECT_THAT(id.status().message(), HasSubstr("expired"));
}

TEST_F(IdentityTest, EmptyCommonNameIsRefused) {
  EXPECT_FALSE(IssueClientCertificate(pki_, "", {"g"}, clock_, rng_).ok());
  EXPECT_EQ(IdentityFromCertificate(nullptr).status().code(),
            StatusCode::kUnauthorized);
}

}  // namespace
}  // namespace kmock::certs
