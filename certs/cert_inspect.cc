#include "certs/cert_inspect.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <chrono>

#include "certs/openssl_util.h"

namespace kmock::certs {

namespace {

std::string EntryText(X509_NAME_ENTRY* entry) {
  unsigned char* utf8 = nullptr;
  int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
  if (len < 0) return "";
  std::string out(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
  OPENSSL_free(utf8);
  return out;
}

std::vector<std::string> SubjectValues(X509* cert, int nid) {
  std::vector<std::string> out;
  X509_NAME* name = X509_get_subject_name(cert);
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, nid, i)) {
    out.push_back(EntryText(X509_NAME_get_entry(name, i)));
  }
  return out;
}

}  // namespace

std::string SubjectCommonName(X509* cert) {
  auto cns = SubjectValues(cert, NID_commonName);
  return cns.empty() ? "" : cns.front();
}

std::vector<std::string> SubjectOrganizations(X509* cert) {
  return SubjectValues(cert, NID_organizationName);
}

std::vector<std::string> SubjectAltNames(X509* cert) {
  std::vector<std::string> out;
  auto* names = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (names == nullptr) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* gn = sk_GENERAL_NAME_value(names, i);
    if (gn->type == GEN_DNS) {
      const ASN1_IA5STRING* s = gn->d.dNSName;
      std::string dns(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                      static_cast<size_t>(ASN1_STRING_length(s)));
      for (char& c : dns)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out.push_back("DNS:" + dns);
    } else if (gn->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* s = gn->d.iPAddress;
      int len = ASN1_STRING_length(s);
      char buf[INET6_ADDRSTRLEN] = {};
      if ((len == 4 || len == 16) &&
          inet_ntop(len == 4 ? AF_INET : AF_INET6, ASN1_STRING_get0_data(s),
                    buf, sizeof(buf)) != nullptr) {
        out.push_back(std::string("IP:") + buf);
      }
    }
  }
  GENERAL_NAMES_free(names);
  std::sort(out.begin(), out.end());
  return out;
}

bool ExpiredAt(X509* cert, TimePoint t) {
  // ASN1_TIME_cmp_time_t: -1 if notAfter < t, 0 if equal, 1 if after; -2 on
  // error.
  int cmp = ASN1_TIME_cmp_time_t(X509_get0_notAfter(cert),
                                 std::chrono::system_clock::to_time_t(t));
  return cmp != 1;
}

Status VerifyCertificate(X509_STORE* trust, X509* cert, CertPurpose purpose,
                         const Clock& clock) {
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(
      X509_STORE_CTX_new(), X509_STORE_CTX_free);
  if (!ctx || X509_STORE_CTX_init(ctx.get(), trust, cert, nullptr) != 1) {
    return InternalError("X509_STORE_CTX_init: " + OpenSslErrors());
  }
  X509_STORE_CTX_set_time(ctx.get(), 0,
                          std::chrono::system_clock::to_time_t(clock.Now()));
  if (purpose != CertPurpose::kAny) {
    int p = purpose == CertPurpose::kServerAuth ? X509_PURPOSE_SSL_SERVER
                                                : X509_PURPOSE_SSL_CLIENT;
    if (X509_STORE_CTX_set_purpose(ctx.get(), p) != 1) {
      return InternalError("X509_STORE_CTX_set_purpose: " + OpenSslErrors());
    }
  }
  if (X509_verify_cert(ctx.get()) != 1) {
    int err = X509_STORE_CTX_get_error(ctx.get());
    ERR_clear_error();
    return Status(StatusCode::kUnauthorized,
                  std::string("certificate verification failed: ") +
                      X509_verify_cert_error_string(err));
  }
  return Status::Ok();
}

Status VerifyCertificatePem(const std::string& ca_pem,
                            const std::string& cert_pem, CertPurpose purpose,
                            const Clock& clock) {
  KMOCK_ASSIGN_OR_RETURN(UniqueX509Store trust, MakeTrustStore(ca_pem));
  KMOCK_ASSIGN_OR_RETURN(UniqueX509 cert, ParseCertificatePem(cert_pem));
  return VerifyCertificate(trust.get(), cert.get(), purpose, clock);
}

}  // namespace kmock::certs
