// CertificateSigningRequests through the registry: the requester recorded
// from the user, the request and usages checked with kube-apiserver's
// messages, the spec fixed after create, Approved and Denied only through
// /approval, the certificate only through /status, no condition removed.
#include <gtest/gtest.h>

#include "api/builtin_catalog.h"
#include "certs/certificate_request.h"
#include "common/go_base64.h"
#include "registry/registry.h"
#include "registry/test_registry.h"

namespace kmock::registry {
namespace {

using nlohmann::json;

class CsrTest : public registry::testing::RegistryFixture {
 protected:
  void SetUp() override {
    RegistryFixture::SetUp();
    csrs_ = api::testing::BuiltinCatalog().Find("certificates.k8s.io", "v1",
                                                "certificatesigningrequests");
    ASSERT_NE(csrs_, nullptr);
    auto key = certs::GenerateEcKey();
    ASSERT_TRUE(key.ok());
    auto pem = certs::CreateCertificateRequestPem(key->get(), "jane", {"dev"});
    ASSERT_TRUE(pem.ok());
    request_ = GoBase64Encode(*pem);
  }

  json Csr(const std::string& name) {
    return {{"apiVersion", "certificates.k8s.io/v1"},
            {"kind", "CertificateSigningRequest"},
            {"metadata", {{"name", name}}},
            {"spec",
             {{"request", request_},
              {"signerName", "kubernetes.io/kube-apiserver-client"},
              {"expirationSeconds", 86400},
              {"usages", {"client auth"}}}}};
  }

  WriteOptions As(const std::string& user) {
    WriteOptions wo;
    wo.user.name = user;
    wo.user.groups = {"system:masters", "system:authenticated"};
    return wo;
  }

  // The message of a refused write, or "ok".
  std::string Message(const Result<WriteResult>& r) {
    return r.ok() ? "ok" : r.status().message();
  }
  std::string Create(const json& obj) {
    return Message(registry_->Create(*csrs_, "", obj, As("kubernetes-admin")));
  }
  std::string Write(const std::string& sub, const json& obj) {
    return Message(registry_->Update(*csrs_, "",
                                     obj["metadata"]["name"].get<std::string>(),
                                     sub, obj, As("kubernetes-admin")));
  }
  json Get(const std::string& name) {
    auto r = registry_->Get(*csrs_, "", name);
    return r.ok() ? *r : json();
  }

  const api::ResourceInfo* csrs_ = nullptr;
  std::string request_;
};

json Condition(const std::string& type) {
  return {{"type", type},
          {"status", "True"},
          {"reason", "KubectlApprove"},
          {"message", "This CSR was approved by kubectl certificate approve."}};
}

TEST_F(CsrTest, RecordsTheRequesterAndClearsStatus) {
  json csr = Csr("jane");
  csr["spec"]["username"] = "someone-else";
  csr["status"] = {{"conditions", {Condition("Approved")}}};
  ASSERT_EQ(Create(csr), "ok");
  json stored = Get("jane");
  EXPECT_EQ(stored["spec"]["username"], "kubernetes-admin");
  EXPECT_EQ(stored["spec"]["groups"],
            json({"system:masters", "system:authenticated"}));
  EXPECT_FALSE(stored.contains("status") &&
               stored["status"].contains("conditions"));
}

TEST_F(CsrTest, RefusesABadRequestWithTheBytes) {
  json csr = Csr("bad");
  csr["spec"]["request"] = GoBase64Encode("hi");
  EXPECT_EQ(Create(csr),
            "CertificateSigningRequest.certificates.k8s.io \"bad\" is invalid: "
            "spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type "
            "must be CERTIFICATE REQUEST");
  EXPECT_TRUE(Get("bad").is_null());
}

TEST_F(CsrTest, RefusesBadUsagesSignerAndDuration) {
  json csr = Csr("usages");
  csr["spec"]["usages"] = json::array();
  EXPECT_NE(Create(csr).find("spec.usages: Required value"), std::string::npos);
  csr["spec"]["usages"] = {"client auth", "clientAuth"};
  EXPECT_NE(Create(csr).find("spec.usages[1]: Unsupported value: "
                             "\"clientAuth\": supported values: \"any\""),
            std::string::npos);
  csr = Csr("signer");
  csr["spec"]["signerName"] = "kube-apiserver-client";
  EXPECT_NE(Create(csr).find("must be a fully qualified domain and path of "
                             "the form 'example.com/signer-name'"),
            std::string::npos);
  csr["spec"]["signerName"] = "kubernetes.io/legacy-unknown";
  EXPECT_NE(Create(csr).find("the legacy signerName is not allowed"),
            std::string::npos);
  csr = Csr("short");
  csr["spec"]["expirationSeconds"] = 599;
  EXPECT_NE(Create(csr).find("spec.expirationSeconds: Invalid value: 599: "
                             "may not specify a duration less than 600 "
                             "seconds (10 minutes)"),
            std::string::npos);
}

TEST_F(CsrTest, ApprovalSetsOnlyTheDecision) {
  ASSERT_EQ(Create(Csr("jane")), "ok");
  json csr = Get("jane");
  csr["status"]["conditions"] = {Condition("Approved")};
  csr["status"]["certificate"] = GoBase64Encode("not through approval");
  csr["spec"]["usages"] = {"server auth"};
  ASSERT_EQ(Write("approval", csr), "ok");
  json stored = Get("jane");
  EXPECT_EQ(stored["status"]["conditions"][0]["type"], "Approved");
  EXPECT_FALSE(stored["status"].contains("certificate"));
  EXPECT_EQ(stored["spec"]["usages"], json({"client auth"}));
}

TEST_F(CsrTest, ConditionsGetTheServersTimes) {
  ASSERT_EQ(Create(Csr("jane")), "ok");
  json csr = Get("jane");
  // kubectl certificate approve sends lastUpdateTime only.
  json approved = Condition("Approved");
  approved["lastUpdateTime"] = "2027-01-01T00:00:00Z";
  csr["status"]["conditions"] = {approved};
  clock_.Advance(std::chrono::seconds(5));
  ASSERT_EQ(Write("approval", csr), "ok");
  const std::string approved_at = FormatRfc3339(clock_.Now());
  json c = Get("jane")["status"]["conditions"][0];
  EXPECT_EQ(c["lastUpdateTime"], "2027-01-01T00:00:00Z");
  EXPECT_EQ(c["lastTransitionTime"], approved_at);

  // Sent again without times, a condition of the same type and status
  // keeps its transition time and gets the time of the write.
  clock_.Advance(std::chrono::seconds(60));
  csr = Get("jane");
  csr["status"]["conditions"] = {Condition("Approved")};
  ASSERT_EQ(Write("approval", csr), "ok");
  c = Get("jane")["status"]["conditions"][0];
  EXPECT_EQ(c["lastTransitionTime"], approved_at);
  EXPECT_EQ(c["lastUpdateTime"], FormatRfc3339(clock_.Now()));

  // A new condition through /status gets the time of that write.
  clock_.Advance(std::chrono::seconds(60));
  csr = Get("jane");
  csr["status"]["conditions"].push_back(Condition("Failed"));
  ASSERT_EQ(Write("status", csr), "ok");
  json conditions = Get("jane")["status"]["conditions"];
  ASSERT_EQ(conditions.size(), 2u);
  EXPECT_EQ(conditions[0]["lastTransitionTime"], approved_at);
  EXPECT_EQ(conditions[1]["lastTransitionTime"], FormatRfc3339(clock_.Now()));
  EXPECT_EQ(conditions[1]["lastUpdateTime"], FormatRfc3339(clock_.Now()));
}

TEST_F(CsrTest, ApprovedAndDeniedExcludeEachOther) {
  ASSERT_EQ(Create(Csr("jane")), "ok");
  json csr = Get("jane");
  csr["status"]["conditions"] = {Condition("Approved"), Condition("Denied")};
  EXPECT_NE(Write("approval", csr)
                .find("status.conditions[1].type: Invalid value: \"Denied\": "
                      "Approved and Denied conditions are mutually exclusive"),
            std::string::npos);
}

TEST_F(CsrTest, StatusCannotApproveNorRemoveADecision) {
  ASSERT_EQ(Create(Csr("jane")), "ok");
  json csr = Get("jane");
  csr["status"]["conditions"] = {Condition("Approved")};
  // Through /status the decision is ignored (the stored one stays).
  ASSERT_EQ(Write("status", csr), "ok");
  EXPECT_FALSE(Get("jane")["status"].contains("conditions"));
  csr = Get("jane");
  csr["status"]["conditions"] = {Condition("Approved")};
  ASSERT_EQ(Write("approval", csr), "ok");
  csr = Get("jane");
  csr["status"]["conditions"] = json::array();
  EXPECT_NE(Write("approval", csr)
                .find("updates may not remove a condition of type "
                      "\"Approved\""),
            std::string::npos);
}

TEST_F(CsrTest, CertificateOnlyThroughStatusAndOnlyOnce) {
  ASSERT_EQ(Create(Csr("jane")), "ok");
  json csr = Get("jane");
  csr["status"]["certificate"] = GoBase64Encode("garbage");
  EXPECT_NE(Write("status", csr)
                .find("status.certificate: Invalid value: \"<certificate "
                      "data>\": must contain at least one CERTIFICATE PEM "
                      "block"),
            std::string::npos);
  // A main-resource write keeps the stored status.
  ASSERT_EQ(Write("", csr), "ok");
  EXPECT_FALSE(Get("jane").contains("status") &&
               Get("jane")["status"].contains("certificate"));
}

}  // namespace
}  // namespace kmock::registry
