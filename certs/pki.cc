#include "certs/pki.h"

#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include <algorithm>
#include <iterator>
#include <optional>

#include "certs/cert_builder.h"
#include "certs/cert_inspect.h"
#include "certs/openssl_util.h"
#include "common/file_io.h"

namespace kmock::certs {

namespace {

constexpr mode_t kPublicMode = 0644;
constexpr mode_t kPrivateMode = 0600;
constexpr int kTokenHexDigits = 64;  // 256 bits

struct Issued {
  std::string cert_pem;
  std::string key_pem;
};

// The CA that signs everything else, parsed.
struct Ca {
  UniqueX509 cert;
  UniquePkey key;
  UniqueX509Store trust;
};

bool OnDisk(const PkiOptions& o) { return !o.dir.empty(); }

// The file's contents, or nullopt when it does not exist.
Result<std::optional<std::string>> ReadIfExists(const std::string& path) {
  Result<std::string> r = ReadWholeFile(path);
  if (r.ok()) return std::optional<std::string>(std::move(r).value());
  if (r.status().code() == StatusCode::kNotFound) {
    return std::optional<std::string>();
  }
  return r.status();
}

Status Save(const PkiOptions& o, const std::string& path,
            const std::string& data, mode_t mode) {
  if (!OnDisk(o)) return Status::Ok();
  return WriteFileAtomically(path, data, mode);
}

Result<Issued> Issue(const CertSpec& spec, Ca* ca, Rng& rng) {
  KMOCK_ASSIGN_OR_RETURN(UniquePkey key, GenerateEcKey());
  KMOCK_ASSIGN_OR_RETURN(
      UniqueX509 cert,
      IssueCertificate(spec, key.get(), ca->cert.get(), ca->key.get(), rng));
  return Issued{CertificateToPem(cert.get()), PrivateKeyToPem(key.get())};
}

Result<Ca> ParseCa(const std::string& cert_pem, const std::string& key_pem) {
  Ca ca;
  KMOCK_ASSIGN_OR_RETURN(ca.cert, ParseCertificatePem(cert_pem));
  KMOCK_ASSIGN_OR_RETURN(ca.key, ParsePrivateKeyPem(key_pem));
  if (X509_check_private_key(ca.cert.get(), ca.key.get()) != 1) {
    return InternalError("the CA key does not match the CA certificate");
  }
  KMOCK_ASSIGN_OR_RETURN(ca.trust, MakeTrustStore(cert_pem));
  return ca;
}

Result<Ca> CreateCa(const PkiOptions& o, std::string* cert_pem,
                    std::string* key_pem) {
  TimePoint now = o.clock->Now();
  CertSpec spec;
  spec.role = CertRole::kCa;
  spec.common_name = kCaCommonName;
  spec.not_before = now - kBackdate;
  spec.not_after = now + kCaValidity;
  KMOCK_ASSIGN_OR_RETURN(UniquePkey key, GenerateEcKey());
  KMOCK_ASSIGN_OR_RETURN(
      UniqueX509 cert,
      IssueCertificate(spec, key.get(), nullptr, key.get(), *o.rng));
  *cert_pem = CertificateToPem(cert.get());
  *key_pem = PrivateKeyToPem(key.get());
  return ParseCa(*cert_pem, *key_pem);
}

// Loads the CA from disk, or creates it when neither file exists.
Result<Ca> LoadOrCreateCa(const PkiOptions& o, Pki* pki, bool* created) {
  *created = false;
  std::optional<std::string> cert_pem, key_pem;
  if (OnDisk(o)) {
    KMOCK_ASSIGN_OR_RETURN(cert_pem, ReadIfExists(pki->paths.ca_cert));
    KMOCK_ASSIGN_OR_RETURN(key_pem, ReadIfExists(pki->paths.ca_key));
  }
  if (cert_pem.has_value() != key_pem.has_value()) {
    return InternalError("found only one of " + pki->paths.ca_cert + " and " +
                         pki->paths.ca_key + "; restore the other, or delete " +
                         pki->paths.dir + " to start a new cluster");
  }
  if (!cert_pem.has_value()) {
    KMOCK_ASSIGN_OR_RETURN(Ca ca,
                           CreateCa(o, &pki->ca_cert_pem, &pki->ca_key_pem));
    // The key first: a crash in between leaves "key without cert", which
    // the check above reports instead of silently making a second CA.
    KMOCK_RETURN_IF_ERROR(
        Save(o, pki->paths.ca_key, pki->ca_key_pem, kPrivateMode));
    KMOCK_RETURN_IF_ERROR(
        Save(o, pki->paths.ca_cert, pki->ca_cert_pem, kPublicMode));
    pki->actions.push_back("created CA");
    *created = true;
    return ca;
  }
  pki->ca_cert_pem = *cert_pem;
  pki->ca_key_pem = *key_pem;
  Result<Ca> ca = ParseCa(*cert_pem, *key_pem);
  if (!ca.ok()) {
    return InternalError("loading the CA from " + pki->paths.dir + ": " +
                         ca.status().message());
  }
  if (ExpiredAt(ca->cert.get(), o.clock->Now())) {
    return InternalError("the CA certificate " + pki->paths.ca_cert +
                         " has expired; delete " + pki->paths.dir +
                         " to start a new cluster");
  }
  return ca;
}

// Why a stored leaf certificate cannot be reused, or "" when it can.
std::string ReissueReason(const std::optional<std::string>& cert_pem,
                          const std::optional<std::string>& key_pem, Ca* ca,
                          CertPurpose purpose,
                          const std::vector<std::string>& want_sans,
                          const PkiOptions& o) {
  if (!cert_pem || !key_pem) return "missing";
  auto cert = ParseCertificatePem(*cert_pem);
  auto key = ParsePrivateKeyPem(*key_pem);
  if (!cert.ok() || !key.ok()) return "unreadable";
  if (X509_check_private_key(cert->get(), key->get()) != 1) {
    ERR_clear_error();
    return "key does not match";
  }
  Status verified =
      VerifyCertificate(ca->trust.get(), cert->get(), purpose, *o.clock);
  if (!verified.ok()) return verified.message();
  if (ExpiredAt(cert->get(), o.clock->Now() + kRenewBefore))
    return "expires soon";
  std::vector<std::string> have = SubjectAltNames(cert->get());
  std::vector<std::string> missing;
  std::set_difference(want_sans.begin(), want_sans.end(), have.begin(),
                      have.end(), std::back_inserter(missing));
  if (!missing.empty()) {
    std::string reason = "missing SAN";
    for (const auto& m : missing) reason += " " + m;
    return reason;
  }
  return "";
}

// Reuses or (re)issues one leaf certificate and its key.
Status EnsureLeaf(const PkiOptions& o, Ca* ca, bool force, const CertSpec& spec,
                  const std::vector<std::string>& want_sans, const char* what,
                  const std::string& cert_path, const std::string& key_path,
                  std::string* cert_out, std::string* key_out, Pki* pki) {
  std::optional<std::string> cert_pem, key_pem;
  if (OnDisk(o) && !force) {
    KMOCK_ASSIGN_OR_RETURN(cert_pem, ReadIfExists(cert_path));
    KMOCK_ASSIGN_OR_RETURN(key_pem, ReadIfExists(key_path));
  }
  CertPurpose purpose = spec.role == CertRole::kServer
                            ? CertPurpose::kServerAuth
                            : CertPurpose::kClientAuth;
  std::string reason =
      force ? "new CA"
            : ReissueReason(cert_pem, key_pem, ca, purpose, want_sans, o);
  if (reason.empty()) {
    *cert_out = *cert_pem;
    *key_out = *key_pem;
    return Status::Ok();
  }
  KMOCK_ASSIGN_OR_RETURN(Issued issued, Issue(spec, ca, *o.rng));
  KMOCK_RETURN_IF_ERROR(Save(o, key_path, issued.key_pem, kPrivateMode));
  KMOCK_RETURN_IF_ERROR(Save(o, cert_path, issued.cert_pem, kPublicMode));
  *cert_out = std::move(issued.cert_pem);
  *key_out = std::move(issued.key_pem);
  if (!force && reason != "missing") {
    pki->actions.push_back(std::string("reissued ") + what + ": " + reason);
  } else {
    pki->actions.push_back(std::string("created ") + what);
  }
  return Status::Ok();
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

Status EnsureToken(const PkiOptions& o, bool force, Pki* pki) {
  if (OnDisk(o) && !force) {
    KMOCK_ASSIGN_OR_RETURN(std::optional<std::string> stored,
                           ReadIfExists(pki->paths.admin_token));
    if (stored && !Trim(*stored).empty()) {
      pki->admin_token = Trim(*stored);
      return Status::Ok();
    }
  }
  // A credential, not an identifier: it comes from the system's CSPRNG, not
  // from the seeded Rng, so --seed never makes it predictable.
  unsigned char raw[kTokenHexDigits / 2];
  if (RAND_bytes(raw, sizeof(raw)) != 1)
    return Status(StatusCode::kInternal, "cannot generate the admin token");
  static const char kHex[] = "0123456789abcdef";
  pki->admin_token.clear();
  for (unsigned char b : raw) {
    pki->admin_token.push_back(kHex[b >> 4]);
    pki->admin_token.push_back(kHex[b & 15]);
  }
  KMOCK_RETURN_IF_ERROR(
      Save(o, pki->paths.admin_token, pki->admin_token + "\n", kPrivateMode));
  pki->actions.push_back("created admin token");
  return Status::Ok();
}

Status EnsureServiceAccountKey(const PkiOptions& o, Pki* pki) {
  if (OnDisk(o)) {
    KMOCK_ASSIGN_OR_RETURN(std::optional<std::string> stored,
                           ReadIfExists(pki->paths.sa_key));
    if (stored && ParsePrivateKeyPem(*stored).ok()) {
      pki->sa_key_pem = *stored;
      return Status::Ok();
    }
  }
  KMOCK_ASSIGN_OR_RETURN(UniquePkey key, GenerateEcKey());
  pki->sa_key_pem = PrivateKeyToPem(key.get());
  KMOCK_RETURN_IF_ERROR(
      Save(o, pki->paths.sa_key, pki->sa_key_pem, kPrivateMode));
  pki->actions.push_back("created service account signing key");
  return Status::Ok();
}

}  // namespace

PkiPaths PkiPathsFor(const std::string& dir) {
  PkiPaths p;
  if (dir.empty()) return p;
  std::string base = dir;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  p.dir = base + "/pki";
  p.ca_cert = p.dir + "/ca.crt";
  p.ca_key = p.dir + "/ca.key";
  p.server_cert = p.dir + "/apiserver.crt";
  p.server_key = p.dir + "/apiserver.key";
  p.admin_cert = p.dir + "/admin.crt";
  p.admin_key = p.dir + "/admin.key";
  p.admin_token = p.dir + "/admin.token";
  p.sa_key = p.dir + "/sa.key";
  return p;
}

Result<Pki> LoadOrCreatePki(const PkiOptions& o) {
  if (o.clock == nullptr || o.rng == nullptr) {
    return InternalError("PkiOptions needs a clock and an rng");
  }
  KMOCK_ASSIGN_OR_RETURN(std::vector<std::string> want_sans,
                         CanonicalSans(o.dns_names, o.ip_addresses));
  Pki pki;
  pki.paths = PkiPathsFor(o.dir);
  if (OnDisk(o)) KMOCK_RETURN_IF_ERROR(MakeDirs(pki.paths.dir, 0700));

  bool new_ca = false;
  KMOCK_ASSIGN_OR_RETURN(Ca ca, LoadOrCreateCa(o, &pki, &new_ca));

  TimePoint now = o.clock->Now();
  CertSpec server;
  server.role = CertRole::kServer;
  server.common_name = kServerCommonName;
  server.dns_names = o.dns_names;
  server.ip_addresses = o.ip_addresses;
  server.not_before = now - kBackdate;
  server.not_after = now + kLeafValidity;
  KMOCK_RETURN_IF_ERROR(EnsureLeaf(o, &ca, new_ca, server, want_sans,
                                   "serving certificate", pki.paths.server_cert,
                                   pki.paths.server_key, &pki.server_cert_pem,
                                   &pki.server_key_pem, &pki));

  CertSpec admin;
  admin.role = CertRole::kClient;
  admin.common_name = kAdminCommonName;
  admin.organizations = {kAdminGroup};
  admin.not_before = now - kBackdate;
  admin.not_after = now + kLeafValidity;
  KMOCK_RETURN_IF_ERROR(EnsureLeaf(
      o, &ca, new_ca, admin, {}, "admin certificate", pki.paths.admin_cert,
      pki.paths.admin_key, &pki.admin_cert_pem, &pki.admin_key_pem, &pki));

  KMOCK_RETURN_IF_ERROR(EnsureToken(o, new_ca, &pki));
  KMOCK_RETURN_IF_ERROR(EnsureServiceAccountKey(o, &pki));
  return pki;
}

}  // namespace kmock::certs
