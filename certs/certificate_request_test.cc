#include "certs/certificate_request.h"

#include <gtest/gtest.h>

#include "certs/cert_builder.h"
#include "certs/cert_inspect.h"
#include "certs/identity.h"

namespace kmock::certs {
namespace {

class CertificateRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto key = GenerateEcKey();
    ASSERT_TRUE(key.ok());
    ca_key_ = std::move(key).value();
    CertSpec spec;
    spec.role = CertRole::kCa;
    spec.common_name = "kubernetes";
    spec.not_before = clock_.Now() - std::chrono::hours(1);
    spec.not_after = clock_.Now() + std::chrono::hours(24 * 365);
    auto ca =
        IssueCertificate(spec, ca_key_.get(), nullptr, ca_key_.get(), rng_);
    ASSERT_TRUE(ca.ok()) << ca.status().message();
    ca_ = std::move(ca).value();
    auto user_key = GenerateEcKey();
    ASSERT_TRUE(user_key.ok());
    user_key_ = std::move(user_key).value();
  }

  std::string Request(const std::string& cn,
                      const std::vector<std::string>& orgs) {
    auto pem = CreateCertificateRequestPem(user_key_.get(), cn, orgs);
    EXPECT_TRUE(pem.ok()) << pem.status().message();
    return pem.ok() ? *pem : "";
  }

  FakeClock clock_{std::chrono::system_clock::from_time_t(1767225600)};
  Rng rng_{7};
  UniquePkey ca_key_;
  UniqueX509 ca_;
  UniquePkey user_key_;
};

TEST_F(CertificateRequestTest, ReadsSubjectAndKey) {
  auto req = ParseCertificateRequest(Request("jane", {"dev", "qa"}));
  ASSERT_TRUE(req.ok()) << req.status().message();
  EXPECT_EQ(req->common_name, "jane");
  EXPECT_EQ(req->organizations, (std::vector<std::string>{"dev", "qa"}));
  EXPECT_EQ(req->key_algorithm, "ECDSA");
}

TEST_F(CertificateRequestTest, RefusesWhatIsNotARequest) {
  auto none = ParseCertificateRequest("hello");
  EXPECT_EQ(none.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(none.status().message(),
            "PEM block type must be CERTIFICATE REQUEST");
  auto cert = ParseCertificateRequest(CertificateToPem(ca_.get()));
  EXPECT_EQ(cert.status().message(),
            "PEM block type must be CERTIFICATE REQUEST");
  auto garbage = ParseCertificateRequest(
      "-----BEGIN CERTIFICATE REQUEST-----\naGVsbG8=\n"
      "-----END CERTIFICATE REQUEST-----\n");
  EXPECT_EQ(garbage.status().message(), "x509: malformed certificate request");
}

TEST_F(CertificateRequestTest, RefusesABrokenSignature) {
  std::string pem = Request("jane", {});
  // Flip a bit of the signature, the last bytes before the footer.
  const size_t footer = pem.find("-----END");
  size_t at = footer - 6;
  pem[at] = pem[at] == 'A' ? 'B' : 'A';
  auto req = ParseCertificateRequest(pem);
  ASSERT_FALSE(req.ok());
  EXPECT_EQ(req.status().message(), "x509: ECDSA verification failure");
}

TEST_F(CertificateRequestTest, SignsAClientCertificateTheCaVerifies) {
  auto req = ParseCertificateRequest(Request("jane", {"dev"}));
  ASSERT_TRUE(req.ok());
  auto pem = SignCertificateRequest(
      *req, {"digital signature", "key encipherment", "client auth"},
      clock_.Now() - std::chrono::minutes(5),
      clock_.Now() + std::chrono::hours(24), ca_.get(), ca_key_.get(), rng_);
  ASSERT_TRUE(pem.ok()) << pem.status().message();
  EXPECT_TRUE(VerifyCertificatePem(CertificateToPem(ca_.get()), *pem,
                                   CertPurpose::kClientAuth, clock_)
                  .ok());
  EXPECT_FALSE(VerifyCertificatePem(CertificateToPem(ca_.get()), *pem,
                                    CertPurpose::kServerAuth, clock_)
                   .ok());
  auto cert = ParseCertificatePem(*pem);
  ASSERT_TRUE(cert.ok());
  auto id = IdentityFromCertificate(cert->get());
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->user, "jane");
  EXPECT_EQ(id->groups, (std::vector<std::string>{"dev"}));
}

TEST_F(CertificateRequestTest, NeverOutlivesTheCa) {
  auto req = ParseCertificateRequest(Request("jane", {}));
  ASSERT_TRUE(req.ok());
  auto pem = SignCertificateRequest(*req, {"client auth"}, clock_.Now(),
                                    clock_.Now() + std::chrono::hours(24 * 800),
                                    ca_.get(), ca_key_.get(), rng_);
  ASSERT_TRUE(pem.ok());
  auto cert = ParseCertificatePem(*pem);
  ASSERT_TRUE(cert.ok());
  EXPECT_EQ(ASN1_TIME_compare(X509_get0_notAfter(cert->get()),
                              X509_get0_notAfter(ca_.get())),
            0);
}

TEST(KeyUsagesTest, KnowsKubernetesNames) {
  EXPECT_TRUE(IsKnownKeyUsage("client auth"));
  EXPECT_TRUE(IsKnownKeyUsage("s/mime"));
  EXPECT_FALSE(IsKnownKeyUsage("clientAuth"));
  EXPECT_EQ(KnownKeyUsages().size(), 23u);
}

}  // namespace
}  // namespace kmock::certs
