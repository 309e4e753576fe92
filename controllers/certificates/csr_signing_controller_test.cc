// The CSR signer: an approved request for a built-in signer gets a
// certificate from the CA for the requested subject and usages, valid for
// the asked duration; a pending or denied one, or one for another signer,
// gets none; one the signer refuses gets a Failed condition.
#include "controllers/certificates/csr_signing_controller.h"

#include <gtest/gtest.h>

#include "certs/cert_builder.h"
#include "certs/cert_inspect.h"
#include "certs/certificate_request.h"
#include "certs/identity.h"
#include "common/go_base64.h"
#include "controllers/certificates/signers.h"
#include "controllers/tests/controller_fixture.h"

namespace kmock::controllers {
namespace {

using nlohmann::json;

class CsrSigningControllerTest : public testing::ControllerFixture {
 protected:
  void SetUp() override {
    ControllerFixture::SetUp();
    auto key = certs::GenerateEcKey();
    ASSERT_TRUE(key.ok());
    certs::CertSpec spec;
    spec.role = certs::CertRole::kCa;
    spec.common_name = "kubernetes";
    spec.not_before = clock_.Now() - std::chrono::hours(1);
    spec.not_after = clock_.Now() + std::chrono::hours(24 * 3650);
    auto ca =
        certs::IssueCertificate(spec, key->get(), nullptr, key->get(), rng_);
    ASSERT_TRUE(ca.ok());
    ca_pem_ = certs::CertificateToPem(ca->get());
    CsrSigningOptions o;
    o.ca_cert_pem = ca_pem_;
    o.ca_key_pem = certs::PrivateKeyToPem(key->get());
    auto ctl = CsrSigningController::Create(registry_.get(), &clock_, &rng_,
                                            res_.certificatesigningrequests, o);
    ASSERT_TRUE(ctl.ok()) << ctl.status().ToString();
    ctl_ = std::move(ctl).value();
    ctl_->Start();
  }
  void TearDown() override {
    if (ctl_) ctl_->Stop();
    ControllerFixture::TearDown();
  }

  void Submit(const std::string& name, const std::string& cn,
              const std::vector<std::string>& orgs, const std::string& signer,
              json usages, const char* decision = "Approved") {
    auto key = certs::GenerateEcKey();
    ASSERT_TRUE(key.ok());
    auto pem = certs::CreateCertificateRequestPem(key->get(), cn, orgs);
    ASSERT_TRUE(pem.ok());
    json csr = {{"metadata", {{"name", name}}},
                {"spec",
                 {{"request", GoBase64Encode(*pem)},
                  {"signerName", signer},
                  {"expirationSeconds", 3600},
                  {"usages", usages}}}};
    auto created =
        registry_->Create(*res_.certificatesigningrequests, "", csr, {});
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    if (decision == nullptr) return;
    json obj = created->object;
    obj["status"]["conditions"] = {
        {{"type", decision}, {"status", "True"}, {"reason", "Test"}}};
    auto decided = registry_->Update(*res_.certificatesigningrequests, "", name,
                                     "approval", obj, {});
    ASSERT_TRUE(decided.ok()) << decided.status().ToString();
  }
  json Status(const std::string& name) {
    auto r = registry_->Get(*res_.certificatesigningrequests, "", name);
    return r.ok() ? (*r).value("status", json::object()) : json();
  }
  std::string Certificate(const std::string& name) {
    json st = Status(name);
    if (!st.contains("certificate")) return "";
    size_t bad_at = 0;
    return GoBase64Decode(st["certificate"].get<std::string>(), &bad_at)
        .value_or("");
  }

  std::string ca_pem_;
  std::unique_ptr<CsrSigningController> ctl_;
};

TEST_F(CsrSigningControllerTest, IssuesAClientCertificateForTheUser) {
  Submit("jane", "jane", {"dev"}, certificates::kKubeApiServerClientSigner,
         {"digital signature", "key encipherment", "client auth"});
  ASSERT_TRUE(Eventually([&] { return !Certificate("jane").empty(); }));
  const std::string pem = Certificate("jane");
  EXPECT_TRUE(certs::VerifyCertificatePem(
                  ca_pem_, pem, certs::CertPurpose::kClientAuth, clock_)
                  .ok());
  auto cert = certs::ParseCertificatePem(pem);
  ASSERT_TRUE(cert.ok());
  auto id = certs::IdentityFromCertificate(cert->get());
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->user, "jane");
  EXPECT_EQ(id->groups, std::vector<std::string>{"dev"});
  // An hour asked, an hour (and the five minutes of backdating) given.
  EXPECT_TRUE(
      certs::ExpiredAt(cert->get(), clock_.Now() + std::chrono::minutes(61)));
  EXPECT_FALSE(
      certs::ExpiredAt(cert->get(), clock_.Now() + std::chrono::minutes(59)));
}

TEST_F(CsrSigningControllerTest, LeavesUndecidedDeniedAndForeignRequests) {
  Submit("pending", "a", {}, certificates::kKubeApiServerClientSigner,
         {"client auth"}, nullptr);
  Submit("denied", "b", {}, certificates::kKubeApiServerClientSigner,
         {"client auth"}, "Denied");
  Submit("foreign", "c", {}, "example.com/signer", {"client auth"});
  EXPECT_TRUE(Stays([&] {
    return Certificate("pending").empty() && Certificate("denied").empty() &&
           Certificate("foreign").empty();
  }));
}

TEST_F(CsrSigningControllerTest, FailsWhatTheSignerRefuses) {
  Submit("server", "jane", {}, certificates::kKubeApiServerClientSigner,
         {"server auth"});
  ASSERT_TRUE(
      Eventually([&] { return Status("server")["conditions"].size() == 2; }));
  json failed = Status("server")["conditions"][1];
  EXPECT_EQ(failed["type"], "Failed");
  EXPECT_EQ(failed["reason"], "SignerValidationFailure");
  EXPECT_EQ(failed["message"],
            "invalid usage for client certificate: server auth");
  EXPECT_TRUE(Certificate("server").empty());

  Submit("node", "jane", {"dev"}, certificates::kKubeletClientSigner,
         {"digital signature", "client auth"});
  ASSERT_TRUE(
      Eventually([&] { return Status("node")["conditions"].size() == 2; }));
  EXPECT_EQ(Status("node")["conditions"][1]["message"],
            "subject organization is not system:nodes");
}

TEST_F(CsrSigningControllerTest, SignsANodeClientCertificate) {
  Submit("node", "system:node:worker-1", {"system:nodes"},
         certificates::kKubeletClientSigner,
         {"digital signature", "client auth"});
  ASSERT_TRUE(Eventually([&] { return !Certificate("node").empty(); }));
}

}  // namespace
}  // namespace kmock::controllers
