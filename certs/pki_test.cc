#include "certs/pki.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>

#include "certs/cert_inspect.h"
#include "certs/openssl_util.h"
#include "certs/test_util.h"

namespace kmock::certs {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::IsSupersetOf;
using ::testing::Not;

TimePoint Jan2026() {
  return std::chrono::system_clock::from_time_t(1767225600);
}

class PkiTest : public ::testing::Test {
 protected:
  PkiOptions Options(const std::string& dir) {
    PkiOptions o;
    o.dir = dir;
    o.dns_names = {"localhost",
                   "myhost",
                   "kubernetes",
                   "kubernetes.default",
                   "kubernetes.default.svc",
                   "kubernetes.default.svc.cluster.local"};
    o.ip_addresses = {"127.0.0.1", "::1"};
    o.clock = &clock_;
    o.rng = &rng_;
    return o;
  }

  static mode_t Mode(const std::string& path) {
    struct stat st;
    EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
    return st.st_mode & 07777;
  }

  static UniqueX509 Cert(const std::string& pem) {
    auto r = ParseCertificatePem(pem);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  FakeClock clock_{Jan2026()};
  Rng rng_{42};
  ScratchDir dir_;
};

TEST_F(PkiTest, CreatesEverythingOnFirstStart) {
  auto pki = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_TRUE(pki.ok()) << pki.status().ToString();
  EXPECT_EQ(pki->actions,
            (std::vector<std::string>{
                "created CA", "created serving certificate",
                "created admin certificate", "created admin token",
                "created service account signing key"}));

  UniqueX509 ca = Cert(pki->ca_cert_pem);
  EXPECT_EQ(SubjectCommonName(ca.get()), kCaCommonName);
  EXPECT_EQ(X509_check_ca(ca.get()), 1);
  EXPECT_TRUE(X509_get_extension_flags(ca.get()) & EXFLAG_CA);
  int crit = -1;
  auto* bc = static_cast<BASIC_CONSTRAINTS*>(
      X509_get_ext_d2i(ca.get(), NID_basic_constraints, &crit, nullptr));
  ASSERT_NE(bc, nullptr);
  EXPECT_TRUE(bc->ca);
  EXPECT_EQ(crit, 1);
  BASIC_CONSTRAINTS_free(bc);
  EXPECT_EQ(X509_get_key_usage(ca.get()) &
                (KU_KEY_CERT_SIGN | KU_CRL_SIGN | KU_DIGITAL_SIGNATURE),
            static_cast<uint32_t>(KU_KEY_CERT_SIGN | KU_CRL_SIGN |
                                  KU_DIGITAL_SIGNATURE));
  EXPECT_FALSE(
      ExpiredAt(ca.get(), Jan2026() + std::chrono::hours(24 * 365 * 9)));
  EXPECT_TRUE(
      ExpiredAt(ca.get(), Jan2026() + std::chrono::hours(24 * 365 * 11)));
  EXPECT_EQ(EVP_PKEY_get_base_id(X509_get0_pubkey(ca.get())), EVP_PKEY_EC);
  EXPECT_EQ(EVP_PKEY_get_bits(X509_get0_pubkey(ca.get())), 256);

  UniqueX509 server = Cert(pki->server_cert_pem);
  EXPECT_EQ(SubjectCommonName(server.get()), kServerCommonName);
  EXPECT_EQ(X509_check_ca(server.get()), 0);
  EXPECT_TRUE(X509_get_extended_key_usage(server.get()) & XKU_SSL_SERVER);
  EXPECT_EQ(SubjectAltNames(server.get()),
            (std::vector<std::string>{
                "DNS:kubernetes", "DNS:kubernetes.default",
                "DNS:kubernetes.default.svc",
                "DNS:kubernetes.default.svc.cluster.local", "DNS:localhost",
                "DNS:myhost", "IP:127.0.0.1", "IP:::1"}));
  EXPECT_FALSE(
      ExpiredAt(server.get(), Jan2026() + std::chrono::hours(24 * 364)));

  UniqueX509 admin = Cert(pki->admin_cert_pem);
  EXPECT_EQ(SubjectCommonName(admin.get()), kAdminCommonName);
  EXPECT_EQ(SubjectOrganizations(admin.get()),
            std::vector<std::string>{kAdminGroup});
  EXPECT_TRUE(X509_get_extended_key_usage(admin.get()) & XKU_SSL_CLIENT);
  EXPECT_FALSE(X509_get_extended_key_usage(admin.get()) & XKU_SSL_SERVER);

  EXPECT_GE(pki->admin_token.size(), 32u);
  EXPECT_EQ(pki->admin_token.find_first_not_of("0123456789abcdef"),
            std::string::npos);
}

TEST_F(PkiTest, FilesHaveExpectedPathsAndModes) {
  auto pki = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_TRUE(pki.ok()) << pki.status().ToString();
  const PkiPaths& p = pki->paths;
  EXPECT_EQ(p.dir, dir_.path() + "/pki");
  EXPECT_EQ(p.ca_key, dir_.path() + "/pki/ca.key");
  EXPECT_EQ(Mode(p.dir), 0700u);
  for (const auto& f :
       {p.ca_key, p.server_key, p.admin_key, p.admin_token, p.sa_key}) {
    EXPECT_EQ(Mode(f), 0600u) << f;
  }
  for (const auto& f : {p.ca_cert, p.server_cert, p.admin_cert}) {
    EXPECT_EQ(Mode(f), 0644u) << f;
  }
  // No temporary files left behind.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(p.dir)) {
    EXPECT_THAT(e.path().string(), Not(HasSubstr(".tmp"))) << e.path();
    ++entries;
  }
  EXPECT_EQ(entries, 8);
}

TEST_F(PkiTest, ReusesEverythingOnRestart) {
  auto first = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  clock_.Advance(std::chrono::hours(24 * 100));
  auto second = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_THAT(second->actions, IsEmpty());
  EXPECT_EQ(second->ca_cert_pem, first->ca_cert_pem);
  EXPECT_EQ(second->ca_key_pem, first->ca_key_pem);
  EXPECT_EQ(second->server_cert_pem, first->server_cert_pem);
  EXPECT_EQ(second->server_key_pem, first->server_key_pem);
  EXPECT_EQ(second->admin_cert_pem, first->admin_cert_pem);
  EXPECT_EQ(second->admin_token, first->admin_token);
  EXPECT_EQ(second->sa_key_pem, first->sa_key_pem);
}

TEST_F(PkiTest, ReissuesOnlyTheServingCertificateWhenASanIsAdded) {
  auto first = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  PkiOptions o = Options(dir_.path());
  o.ip_addresses.push_back("10.1.2.3");
  o.dns_names.push_back("Other.Example");
  auto second = LoadOrCreatePki(o);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->actions,
            std::vector<std::string>{"reissued serving certificate: missing "
                                     "SAN DNS:other.example IP:10.1.2.3"});
  EXPECT_EQ(second->ca_cert_pem, first->ca_cert_pem);
  EXPECT_EQ(second->admin_cert_pem, first->admin_cert_pem);
  EXPECT_NE(second->server_cert_pem, first->server_cert_pem);
  EXPECT_NE(second->server_key_pem, first->server_key_pem);
  UniqueX509 server = Cert(second->server_cert_pem);
  EXPECT_THAT(
      SubjectAltNames(server.get()),
      IsSupersetOf({"IP:10.1.2.3", "DNS:other.example", "IP:127.0.0.1"}));
  EXPECT_TRUE(VerifyCertificatePem(second->ca_cert_pem, second->server_cert_pem,
                                   CertPurpose::kServerAuth, clock_)
                  .ok());
  // The new files are what a third start loads.
  auto third = LoadOrCreatePki(o);
  ASSERT_TRUE(third.ok());
  EXPECT_THAT(third->actions, IsEmpty());
  EXPECT_EQ(third->server_cert_pem, second->server_cert_pem);
}

TEST_F(PkiTest, FewerSansThanTheCertificateHasKeepsIt) {
  ASSERT_TRUE(LoadOrCreatePki(Options(dir_.path())).ok());
  PkiOptions o = Options(dir_.path());
  o.dns_names.pop_back();
  auto again = LoadOrCreatePki(o);
  ASSERT_TRUE(again.ok());
  EXPECT_THAT(again->actions, IsEmpty());
}

TEST_F(PkiTest, ReissuesLeafCertificatesThatExpireSoon) {
  auto first = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_TRUE(first.ok());
  clock_.Advance(std::chrono::hours(24 * 340));
  auto second = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->actions, (std::vector<std::string>{
                                 "reissued serving certificate: expires soon",
                                 "reissued admin certificate: expires soon"}));
  EXPECT_EQ(second->ca_cert_pem, first->ca_cert_pem);
  EXPECT_EQ(second->admin_token, first->admin_token);
  UniqueX509 server = Cert(second->server_cert_pem);
  EXPECT_FALSE(
      ExpiredAt(server.get(), clock_.Now() + std::chrono::hours(24 * 300)));
}

TEST_F(PkiTest, ReplacesACorruptLeafButNotACorruptCa) {
  auto first = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_TRUE(first.ok());
  std::filesystem::remove(first->paths.admin_cert);
  { std::ofstream(first->paths.server_key) << "garbage"; }
  auto second = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_THAT(second->actions,
              Contains("reissued serving certificate: unreadable"));
  EXPECT_THAT(second->actions, Contains("created admin certificate"));
  EXPECT_EQ(second->ca_cert_pem, first->ca_cert_pem);

  { std::ofstream(first->paths.ca_key) << "garbage"; }
  auto third = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_FALSE(third.ok());
  EXPECT_THAT(third.status().message(), HasSubstr("loading the CA"));
}

TEST_F(PkiTest, RefusesHalfACa) {
  auto first = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_TRUE(first.ok());
  std::filesystem::remove(first->paths.ca_key);
  auto second = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(), HasSubstr("found only one of"));
  // The certificate is left for the user to deal with.
  EXPECT_TRUE(std::filesystem::exists(first->paths.ca_cert));
}

TEST_F(PkiTest, InMemoryWritesNothing) {
  auto pki = LoadOrCreatePki(Options(""));
  ASSERT_TRUE(pki.ok()) << pki.status().ToString();
  EXPECT_TRUE(pki->paths.dir.empty());
  EXPECT_TRUE(pki->paths.ca_cert.empty());
  EXPECT_FALSE(pki->server_key_pem.empty());
  EXPECT_FALSE(pki->admin_key_pem.empty());
  EXPECT_GE(pki->admin_token.size(), 32u);
  EXPECT_TRUE(std::filesystem::is_empty(dir_.path()));
  EXPECT_TRUE(VerifyCertificatePem(pki->ca_cert_pem, pki->admin_cert_pem,
                                   CertPurpose::kClientAuth, clock_)
                  .ok());
}

TEST_F(PkiTest, RejectsABadIpAndMissingDependencies) {
  PkiOptions o = Options("");
  o.ip_addresses.push_back("not-an-ip");
  auto r = LoadOrCreatePki(o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("not-an-ip"));

  PkiOptions no_clock = Options("");
  no_clock.clock = nullptr;
  EXPECT_FALSE(LoadOrCreatePki(no_clock).ok());
}

TEST_F(PkiTest, IpLiteralInDnsNamesBecomesAnIpSan) {
  PkiOptions o = Options("");
  o.dns_names = {"192.168.1.7", "localhost", "LOCALHOST"};
  o.ip_addresses = {"0:0::1"};
  auto pki = LoadOrCreatePki(o);
  ASSERT_TRUE(pki.ok()) << pki.status().ToString();
  UniqueX509 server = Cert(pki->server_cert_pem);
  EXPECT_EQ(
      SubjectAltNames(server.get()),
      (std::vector<std::string>{"DNS:localhost", "IP:192.168.1.7", "IP:::1"}));
}

TEST_F(PkiTest, CertificatesVerifyOnlyForTheirPurposeAndCa) {
  auto pki = LoadOrCreatePki(Options(dir_.path()));
  ASSERT_TRUE(pki.ok());
  auto other = LoadOrCreatePki(Options(""));
  ASSERT_TRUE(other.ok());
  const auto& ca = pki->ca_cert_pem;
  EXPECT_TRUE(VerifyCertificatePem(ca, pki->server_cert_pem,
                                   CertPurpose::kServerAuth, clock_)
                  .ok());
  EXPECT_TRUE(VerifyCertificatePem(ca, pki->admin_cert_pem,
                                   CertPurpose::kClientAuth, clock_)
                  .ok());
  // Wrong purpose.
  Status s = VerifyCertificatePem(ca, pki->admin_cert_pem,
                                  CertPurpose::kServerAuth, clock_);
  EXPECT_EQ(s.code(), StatusCode::kUnauthorized);
  EXPECT_THAT(s.message(), HasSubstr("unsuitable certificate purpose"));
  // Another cluster's CA.
  s = VerifyCertificatePem(ca, other->admin_cert_pem, CertPurpose::kClientAuth,
                           clock_);
  EXPECT_EQ(s.code(), StatusCode::kUnauthorized);
  EXPECT_THAT(s.message(), HasSubstr("unable to get local issuer certificate"));
  // Too late.
  FakeClock later(Jan2026() + std::chrono::hours(24 * 400));
  s = VerifyCertificatePem(ca, pki->admin_cert_pem, CertPurpose::kClientAuth,
                           later);
  EXPECT_THAT(s.message(), HasSubstr("certificate has expired"));
  // Too early (before the backdated notBefore).
  FakeClock earlier(Jan2026() - std::chrono::hours(2));
  s = VerifyCertificatePem(ca, pki->admin_cert_pem, CertPurpose::kClientAuth,
                           earlier);
  EXPECT_THAT(s.message(), HasSubstr("not yet valid"));
}

TEST_F(PkiTest, KeysMatchTheirCertificates) {
  auto pki = LoadOrCreatePki(Options(""));
  ASSERT_TRUE(pki.ok());
  auto check = [](const std::string& cert_pem, const std::string& key_pem) {
    auto cert = ParseCertificatePem(cert_pem);
    auto key = ParsePrivateKeyPem(key_pem);
    return cert.ok() && key.ok() &&
           X509_check_private_key(cert->get(), key->get()) == 1;
  };
  EXPECT_TRUE(check(pki->ca_cert_pem, pki->ca_key_pem));
  EXPECT_TRUE(check(pki->server_cert_pem, pki->server_key_pem));
  EXPECT_TRUE(check(pki->admin_cert_pem, pki->admin_key_pem));
  EXPECT_FALSE(check(pki->admin_cert_pem, pki->server_key_pem));
  EXPECT_THAT(pki->server_key_pem, HasSubstr("-----BEGIN PRIVATE KEY-----"));
}

}  // namespace
}  // namespace kmock::certs
