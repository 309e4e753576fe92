#include "certs/certificate_request.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <map>

#include "certs/cert_builder.h"

namespace kmock::certs {

namespace {

Status Invalid(std::string message) {
  return Status(StatusCode::kInvalid, std::move(message));
}

std::string AsnText(const ASN1_STRING* s) {
  if (s == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                     static_cast<size_t>(ASN1_STRING_length(s)));
}

std::vector<std::string> NameEntries(const X509_NAME* name, int nid) {
  std::vector<std::string> out;
  int i = -1;
  while ((i = X509_NAME_get_index_by_NID(name, nid, i)) >= 0) {
    out.push_back(
        AsnText(X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i))));
  }
  return out;
}

std::string IpText(const ASN1_OCTET_STRING* ip) {
  char buf[64] = {};
  const unsigned char* b = ASN1_STRING_get0_data(ip);
  const int n = ASN1_STRING_length(ip);
  if (n == 4) {
    std::snprintf(buf, sizeof buf, "%d.%d.%d.%d", b[0], b[1], b[2], b[3]);
    return buf;
  }
  std::string out;
  for (int i = 0; i + 1 < n; i += 2) {
    std::snprintf(buf, sizeof buf, "%s%x", i == 0 ? "" : ":",
                  (b[i] << 8) | b[i + 1]);
    out += buf;
  }
  return out;
}

void ReadAltNames(X509_REQ* req, CertificateRequest* out) {
  STACK_OF(X509_EXTENSION)* exts = X509_REQ_get_extensions(req);
  if (exts == nullptr) return;
  auto* names = static_cast<GENERAL_NAMES*>(
      X509V3_get_d2i(exts, NID_subject_alt_name, nullptr, nullptr));
  sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
  if (names == nullptr) return;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* gn = sk_GENERAL_NAME_value(names, i);
    switch (gn->type) {
      case GEN_DNS:
        out->dns_names.push_back(AsnText(gn->d.dNSName));
        break;
      case GEN_IPADD:
        out->ip_addresses.push_back(IpText(gn->d.iPAddress));
        break;
      case GEN_EMAIL:
        out->email_addresses.push_back(AsnText(gn->d.rfc822Name));
        break;
      case GEN_URI:
        out->uris.push_back(AsnText(gn->d.uniformResourceIdentifier));
        break;
      default:
        break;
    }
  }
  GENERAL_NAMES_free(names);
}

// Kubernetes usage names and how OpenSSL spells them; `extended` for the
// extendedKeyUsage extension.
struct UsageName {
  const char* openssl;
  bool extended;
};

const std::map<std::string, UsageName, std::less<>>& UsageTable() {
  static const auto* table = new std::map<std::string, UsageName, std::less<>>{
      {"signing", {"digitalSignature", false}},
      {"digital signature", {"digitalSignature", false}},
      {"content commitment", {"nonRepudiation", false}},
      {"key encipherment", {"keyEncipherment", false}},
      {"key agreement", {"keyAgreement", false}},
      {"data encipherment", {"dataEncipherment", false}},
      {"cert sign", {"keyCertSign", false}},
      {"crl sign", {"cRLSign", false}},
      {"encipher only", {"encipherOnly", false}},
      {"decipher only", {"decipherOnly", false}},
      {"any", {"anyExtendedKeyUsage", true}},
      {"server auth", {"serverAuth", true}},
      {"client auth", {"clientAuth", true}},
      {"code signing", {"codeSigning", true}},
      {"email protection", {"emailProtection", true}},
      {"s/mime", {"emailProtection", true}},
      {"ipsec end system", {"ipsecEndSystem", true}},
      {"ipsec tunnel", {"ipsecTunnel", true}},
      {"ipsec user", {"ipsecUser", true}},
      {"timestamping", {"timeStamping", true}},
      {"ocsp signing", {"OCSPSigning", true}},
      {"microsoft sgc", {"msSGC", true}},
      {"netscape sgc", {"nsSGC", true}},
  };
  return *table;
}

void AddOnce(std::vector<std::string>* names, const std::string& name) {
  if (std::find(names->begin(), names->end(), name) == names->end())
    names->push_back(name);
}

}  // namespace

Result<CertificateRequest> ParseCertificateRequest(std::string_view pem) {
  UniqueBio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return InternalError("BIO_new_mem_buf: " + OpenSslErrors());
  char* name = nullptr;
  char* header = nullptr;
  unsigned char* data = nullptr;
  long len = 0;
  const bool found = PEM_read_bio(bio.get(), &name, &header, &data, &len) == 1;
  ERR_clear_error();
  const std::string type = found ? name : "";
  std::string der = found ? std::string(reinterpret_cast<char*>(data),
                                        static_cast<size_t>(len))
                          : "";
  OPENSSL_free(name);
  OPENSSL_free(header);
  OPENSSL_free(data);
  if (!found || type != "CERTIFICATE REQUEST")
    return Invalid("PEM block type must be CERTIFICATE REQUEST");

  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  UniqueX509Req req(d2i_X509_REQ(nullptr, &p, static_cast<long>(der.size())));
  if (!req ||
      p != reinterpret_cast<const unsigned char*>(der.data()) + der.size()) {
    ERR_clear_error();
    return Invalid("x509: malformed certificate request");
  }
  CertificateRequest out;
  EVP_PKEY* key = X509_REQ_get0_pubkey(req.get());
  switch (key == nullptr ? 0 : EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA:
      out.key_algorithm = "RSA";
      break;
    case EVP_PKEY_EC:
      out.key_algorithm = "ECDSA";
      break;
    case EVP_PKEY_ED25519:
      out.key_algorithm = "Ed25519";
      break;
    default:
      break;
  }
  if (key == nullptr || X509_REQ_verify(req.get(), key) != 1) {
    ERR_clear_error();
    if (out.key_algorithm == "RSA")
      return Invalid("crypto/rsa: verification error");
    if (out.key_algorithm == "ECDSA")
      return Invalid("x509: ECDSA verification failure");
    if (out.key_algorithm == "Ed25519")
      return Invalid("x509: Ed25519 verification failure");
    return Invalid("x509: cannot verify signature: algorithm unimplemented");
  }
  const X509_NAME* subject = X509_REQ_get_subject_name(req.get());
  std::vector<std::string> cns = NameEntries(subject, NID_commonName);
  if (!cns.empty()) out.common_name = cns.back();
  out.organizations = NameEntries(subject, NID_organizationName);
  ReadAltNames(req.get(), &out);
  out.request = std::move(req);
  return out;
}

Result<std::string> CreateCertificateRequestPem(
    EVP_PKEY* key, const std::string& common_name,
    const std::vector<std::string>& organizations) {
  UniqueX509Req req(X509_REQ_new());
  if (!req) return InternalError("X509_REQ_new: " + OpenSslErrors());
  X509_NAME* name = X509_REQ_get_subject_name(req.get());
  auto add = [&](const char* field, const std::string& value) {
    return X509_NAME_add_entry_by_txt(
               name, field, MBSTRING_UTF8,
               reinterpret_cast<const unsigned char*>(value.c_str()),
               static_cast<int>(value.size()), -1, 0) == 1;
  };
  for (const auto& o : organizations) {
    if (!add("O", o)) return BadRequestError("bad organization: " + o);
  }
  if (!add("CN", common_name))
    return BadRequestError("bad common name: " + common_name);
  if (X509_REQ_set_pubkey(req.get(), key) != 1 ||
      X509_REQ_sign(req.get(), key, EVP_sha256()) == 0) {
    return InternalError("signing the request: " + OpenSslErrors());
  }
  UniqueBio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509_REQ(bio.get(), req.get()) != 1)
    return InternalError("writing the request: " + OpenSslErrors());
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(len));
}

bool IsKnownKeyUsage(std::string_view usage) {
  return UsageTable().count(usage) > 0;
}

const std::vector<std::string>& KnownKeyUsages() {
  static const auto* all = [] {
    auto* v = new std::vector<std::string>();
    for (const auto& [name, _] : UsageTable()) v->push_back(name);
    return v;
  }();
  return *all;
}

Result<std::string> SignCertificateRequest(
    const CertificateRequest& request, const std::vector<std::string>& usages,
    TimePoint not_before, TimePoint not_after, X509* ca_cert, EVP_PKEY* ca_key,
    Rng& rng) {
  CertSpec spec;
  spec.role = CertRole::kClient;
  spec.subject = X509_REQ_get_subject_name(request.request.get());
  spec.dns_names = request.dns_names;
  spec.ip_addresses = request.ip_addresses;
  for (const std::string& usage : usages) {
    auto it = UsageTable().find(usage);
    if (it == UsageTable().end())
      return BadRequestError("unknown key usage: " + usage);
    AddOnce(it->second.extended ? &spec.extended_key_usages : &spec.key_usages,
            it->second.openssl);
  }
  spec.not_before = not_before;
  spec.not_after = not_after;
  const ASN1_TIME* ca_end = X509_get0_notAfter(ca_cert);
  struct tm end_tm = {};
  if (ca_end != nullptr && ASN1_TIME_to_tm(ca_end, &end_tm) == 1) {
    const TimePoint ca_not_after =
        std::chrono::system_clock::from_time_t(timegm(&end_tm));
    spec.not_after = std::min(spec.not_after, ca_not_after);
  }
  KMOCK_ASSIGN_OR_RETURN(
      UniqueX509 cert,
      IssueCertificate(spec, X509_REQ_get0_pubkey(request.request.get()),
                       ca_cert, ca_key, rng));
  return CertificateToPem(cert.get());
}

}  // namespace kmock::certs
