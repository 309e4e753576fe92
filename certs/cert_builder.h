// Builds and signs X.509 v3 certificates: the CA, serving and client
// certificates of the PKI all come from IssueCertificate with a CertSpec.
//
// Thread safety: free functions; `rng` is internally locked, so concurrent
// calls are safe.
#ifndef KMOCK_CERTS_CERT_BUILDER_H_
#define KMOCK_CERTS_CERT_BUILDER_H_

#include <string>
#include <vector>

#include "certs/openssl_util.h"
#include "common/clock.h"
#include "common/rng.h"
#include "common/status.h"

namespace kmock::certs {

enum class CertRole {
  kCa,      // CA:TRUE (critical); keyCertSign, cRLSign, digitalSignature
  kServer,  // digitalSignature; extendedKeyUsage serverAuth
  kClient,  // digitalSignature; extendedKeyUsage clientAuth
};

struct CertSpec {
  CertRole role = CertRole::kClient;
  std::string common_name;
  std::vector<std::string> organizations;  // subject O, in order
  // Subject alternative names. An entry of either list that parses as an IP
  // address becomes an IP SAN, anything else a DNS SAN; duplicates are
  // dropped. An unparsable entry of ip_addresses is an error.
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;
  TimePoint not_before;
  TimePoint not_after;
  // For a leaf (kServer, kClient) issued as a signing request asked: the
  // keyUsage and extendedKeyUsage names as OpenSSL spells them
  // ("digitalSignature", "clientAuth"). Either non-empty replaces the
  // role's usages; an empty list then leaves its extension out.
  std::vector<std::string> key_usages;
  std::vector<std::string> extended_key_usages;
  // When set, the subject is a copy of this name (a signing request's, in
  // full) and common_name and organizations are not used.
  const X509_NAME* subject = nullptr;
};

// Signs a certificate for `subject_key` described by `spec`. With a null
// `issuer_cert` the certificate is self-signed by `issuer_key` (which must
// then be `subject_key`). The serial number is 127 random bits from `rng`.
// A certificate needs a common name unless `spec.subject` is set.
Result<UniqueX509> IssueCertificate(const CertSpec& spec, EVP_PKEY* subject_key,
                                    X509* issuer_cert, EVP_PKEY* issuer_key,
                                    Rng& rng);

// Canonical SAN strings for a request: "DNS:<lower-case name>" and
// "IP:<address as inet_ntop prints it>", sorted and de-duplicated.
Result<std::vector<std::string>> CanonicalSans(
    const std::vector<std::string>& dns_names,
    const std::vector<std::string>& ip_addresses);

}  // namespace kmock::certs

#endif  // KMOCK_CERTS_CERT_BUILDER_H_
