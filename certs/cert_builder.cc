#include "certs/cert_builder.h"

#include <arpa/inet.h>
#include <openssl/asn1.h>
#include <openssl/bn.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <set>

namespace kmock::certs {

namespace {

struct GeneralNamesDeleter {
  void operator()(GENERAL_NAMES* p) const { GENERAL_NAMES_free(p); }
};
using UniqueGeneralNames = std::unique_ptr<GENERAL_NAMES, GeneralNamesDeleter>;

// Parses an IPv4 or IPv6 literal into its network-order bytes.
bool ParseIp(const std::string& s, std::string* bytes) {
  unsigned char buf[16];
  if (inet_pton(AF_INET, s.c_str(), buf) == 1) {
    bytes->assign(reinterpret_cast<char*>(buf), 4);
    return true;
  }
  if (inet_pton(AF_INET6, s.c_str(), buf) == 1) {
    bytes->assign(reinterpret_cast<char*>(buf), 16);
    return true;
  }
  return false;
}

std::string IpToText(const std::string& bytes) {
  char buf[INET6_ADDRSTRLEN] = {};
  int family = bytes.size() == 4 ? AF_INET : AF_INET6;
  if (inet_ntop(family, bytes.data(), buf, sizeof(buf)) == nullptr) return "";
  return buf;
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

std::string Lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Splits the requested names into DNS names and IP address bytes.
Status SplitSans(const std::vector<std::string>& dns_names,
                 const std::vector<std::string>& ip_addresses,
                 std::vector<std::string>* dns_out,
                 std::vector<std::string>* ip_out) {
  std::set<std::string> seen;
  auto add = [&](const std::string& name, bool must_be_ip) -> Status {
    if (name.empty()) return Status::Ok();
    std::string bytes;
    if (ParseIp(name, &bytes)) {
      if (seen.insert("IP:" + bytes).second) ip_out->push_back(bytes);
      return Status::Ok();
    }
    if (must_be_ip) return BadRequestError("not an IP address: " + name);
    std::string dns = Lower(name);
    if (seen.insert("DNS:" + dns).second) dns_out->push_back(dns);
    return Status::Ok();
  };
  for (const auto& n : dns_names) KMOCK_RETURN_IF_ERROR(add(n, false));
  for (const auto& n : ip_addresses) KMOCK_RETURN_IF_ERROR(add(n, true));
  return Status::Ok();
}

Status SetRandomSerial(X509* cert, Rng& rng) {
  unsigned char bytes[16];
  for (int i = 0; i < 2; ++i) {
    uint64_t v = rng.Next();
    for (int j = 0; j < 8; ++j)
      bytes[i * 8 + j] = static_cast<unsigned char>(v >> (56 - 8 * j));
  }
  bytes[0] &= 0x7f;  // positive
  bytes[0] |= 0x40;  // never zero, always 16 bytes long
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn(
      BN_bin2bn(bytes, sizeof(bytes), nullptr), BN_free);
  if (!bn ||
      BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert)) == nullptr) {
    return InternalError("setting the serial number: " + OpenSslErrors());
  }
  return Status::Ok();
}

Status SetValidity(X509* cert, TimePoint not_before, TimePoint not_after) {
  auto to_time_t = [](TimePoint t) {
    return std::chrono::system_clock::to_time_t(t);
  };
  if (ASN1_TIME_set(X509_getm_notBefore(cert), to_time_t(not_before)) ==
          nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(cert), to_time_t(not_after)) ==
          nullptr) {
    return InternalError("setting the validity period: " + OpenSslErrors());
  }
  return Status::Ok();
}

Status SetSubject(X509* cert, const CertSpec& spec) {
  if (spec.subject != nullptr) {
    if (X509_set_subject_name(cert, spec.subject) != 1)
      return InternalError("copying the subject: " + OpenSslErrors());
    return Status::Ok();
  }
  X509_NAME* name = X509_get_subject_name(cert);
  auto add = [&](const char* field, const std::string& value) {
    return X509_NAME_add_entry_by_txt(
               name, field, MBSTRING_UTF8,
               reinterpret_cast<const unsigned char*>(value.c_str()),
               static_cast<int>(value.size()), -1, 0) == 1;
  };
  for (const auto& o : spec.organizations) {
    if (!add("O", o))
      return BadRequestError("bad organization \"" + o +
                             "\": " + OpenSslErrors());
  }
  if (!add("CN", spec.common_name)) {
    return BadRequestError("bad common name \"" + spec.common_name +
                           "\": " + OpenSslErrors());
  }
  return Status::Ok();
}

Status AddExtension(X509* cert, X509V3_CTX* ctx, int nid, const char* value) {
  X509_EXTENSION* ext = X509V3_EXT_nconf_nid(nullptr, ctx, nid, value);
  if (ext == nullptr) {
    return InternalError(std::string("building extension ") + OBJ_nid2sn(nid) +
                         ": " + OpenSslErrors());
  }
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (ok != 1) return InternalError("adding an extension: " + OpenSslErrors());
  return Status::Ok();
}

Status AddSans(X509* cert, const std::vector<std::string>& dns,
               const std::vector<std::string>& ips) {
  if (dns.empty() && ips.empty()) return Status::Ok();
  UniqueGeneralNames names(sk_GENERAL_NAME_new_null());
  if (!names) return InternalError("allocating SANs");
  auto push = [&](int type, const std::string& data) -> bool {
    GENERAL_NAME* gn = GENERAL_NAME_new();
    if (gn == nullptr) return false;
    ASN1_STRING* s = ASN1_STRING_type_new(
        type == GEN_DNS ? V_ASN1_IA5STRING : V_ASN1_OCTET_STRING);
    if (s == nullptr ||
        ASN1_STRING_set(s, data.data(), static_cast<int>(data.size())) != 1) {
      ASN1_STRING_free(s);
      GENERAL_NAME_free(gn);
      return false;
    }
    GENERAL_NAME_set0_value(gn, type, s);
    if (sk_GENERAL_NAME_push(names.get(), gn) == 0) {
      GENERAL_NAME_free(gn);
      return false;
    }
    return true;
  };
  for (const auto& d : dns) {
    if (!push(GEN_DNS, d))
      return InternalError("adding a DNS SAN: " + OpenSslErrors());
  }
  for (const auto& ip : ips) {
    if (!push(GEN_IPADD, ip))
      return InternalError("adding an IP SAN: " + OpenSslErrors());
  }
  if (X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0,
                        X509V3_ADD_DEFAULT) != 1) {
    return InternalError("adding the SAN extension: " + OpenSslErrors());
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::string>> CanonicalSans(
    const std::vector<std::string>& dns_names,
    const std::vector<std::string>& ip_addresses) {
  std::vector<std::string> dns, ips;
  KMOCK_RETURN_IF_ERROR(SplitSans(dns_names, ip_addresses, &dns, &ips));
  std::vector<std::string> out;
  for (const auto& d : dns) out.push_back("DNS:" + d);
  for (const auto& ip : ips) out.push_back("IP:" + IpToText(ip));
  std::sort(out.begin(), out.end());
  return out;
}

Result<UniqueX509> IssueCertificate(const CertSpec& spec, EVP_PKEY* subject_key,
                                    X509* issuer_cert, EVP_PKEY* issuer_key,
                                    Rng& rng) {
  if (spec.common_name.empty() && spec.subject == nullptr)
    return BadRequestError("a certificate needs a common name");
  if (spec.not_after <= spec.not_before)
    return BadRequestError("empty validity period");
  std::vector<std::string> dns, ips;
  KMOCK_RETURN_IF_ERROR(
      SplitSans(spec.dns_names, spec.ip_addresses, &dns, &ips));

  UniqueX509 cert(X509_new());
  if (!cert) return InternalError("X509_new: " + OpenSslErrors());
  if (X509_set_version(cert.get(), X509_VERSION_3) != 1) {
    return InternalError("X509_set_version: " + OpenSslErrors());
  }
  KMOCK_RETURN_IF_ERROR(SetRandomSerial(cert.get(), rng));
  KMOCK_RETURN_IF_ERROR(
      SetValidity(cert.get(), spec.not_before, spec.not_after));
  KMOCK_RETURN_IF_ERROR(SetSubject(cert.get(), spec));
  X509* issuer = issuer_cert != nullptr ? issuer_cert : cert.get();
  if (X509_set_issuer_name(cert.get(), X509_get_subject_name(issuer)) != 1 ||
      X509_set_pubkey(cert.get(), subject_key) != 1) {
    return InternalError("setting issuer or key: " + OpenSslErrors());
  }

  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert.get(), nullptr, nullptr, 0);
  switch (spec.role) {
    case CertRole::kCa:
      KMOCK_RETURN_IF_ERROR(AddExtension(
          cert.get(), &ctx, NID_basic_constraints, "critical,CA:TRUE"));
      KMOCK_RETURN_IF_ERROR(
          AddExtension(cert.get(), &ctx, NID_key_usage,
                       "critical,digitalSignature,keyCertSign,cRLSign"));
      break;
    case CertRole::kServer:
    case CertRole::kClient: {
      KMOCK_RETURN_IF_ERROR(AddExtension(
          cert.get(), &ctx, NID_basic_constraints, "critical,CA:FALSE"));
      const bool asked =
          !spec.key_usages.empty() || !spec.extended_key_usages.empty();
      const std::string key_usage =
          asked ? Joined(spec.key_usages) : "digitalSignature";
      const std::string ext_key_usage =
          asked
              ? Joined(spec.extended_key_usages)
              : (spec.role == CertRole::kServer ? "serverAuth" : "clientAuth");
      if (!key_usage.empty()) {
        KMOCK_RETURN_IF_ERROR(AddExtension(cert.get(), &ctx, NID_key_usage,
                                           ("critical," + key_usage).c_str()));
      }
      if (!ext_key_usage.empty()) {
        KMOCK_RETURN_IF_ERROR(AddExtension(cert.get(), &ctx, NID_ext_key_usage,
                                           ext_key_usage.c_str()));
      }
      break;
    }
  }
  KMOCK_RETURN_IF_ERROR(
      AddExtension(cert.get(), &ctx, NID_subject_key_identifier, "hash"));
  if (issuer_cert != nullptr) {
    KMOCK_RETURN_IF_ERROR(AddExtension(
        cert.get(), &ctx, NID_authority_key_identifier, "keyid:always"));
  }
  KMOCK_RETURN_IF_ERROR(AddSans(cert.get(), dns, ips));

  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) == 0) {
    return InternalError("signing the certificate: " + OpenSslErrors());
  }
  return cert;
}

}  // namespace kmock::certs
