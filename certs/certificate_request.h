// PKCS#10 certificate signing requests as Kubernetes reads and signs them:
// the parse and signature check kube-apiserver runs on a
// CertificateSigningRequest's spec.request (with Go's error messages,
// which clients print), and the signing kube-controller-manager's signers
// do once a request is approved.
//
// Thread safety: free functions; safe from any thread (`rng` is locked).
#ifndef KMOCK_CERTS_CERTIFICATE_REQUEST_H_
#define KMOCK_CERTS_CERTIFICATE_REQUEST_H_

#include <openssl/x509.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "certs/openssl_util.h"
#include "common/clock.h"
#include "common/rng.h"
#include "common/status.h"

namespace kmock::certs {

struct X509ReqDeleter {
  void operator()(X509_REQ* p) const { X509_REQ_free(p); }
};
using UniqueX509Req = std::unique_ptr<X509_REQ, X509ReqDeleter>;

struct CertificateRequest {
  UniqueX509Req request;
  std::string common_name;
  std::vector<std::string> organizations;
  // Subject alternative names asked for.
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;
  std::vector<std::string> email_addresses;
  std::vector<std::string> uris;
  // "RSA", "ECDSA", "Ed25519" or "" (another algorithm).
  std::string key_algorithm;
};

// The first PEM block of `pem` as a signed request. Errors (kInvalid) carry
// the text kube-apiserver puts in its field error: "PEM block type must be
// CERTIFICATE REQUEST", "x509: malformed certificate request",
// "x509: ECDSA verification failure", "crypto/rsa: verification error".
Result<CertificateRequest> ParseCertificateRequest(std::string_view pem);

// A request for `key` with subject CN=common_name and an O per
// organization, signed by `key`: PEM, as `openssl req -new` writes it.
Result<std::string> CreateCertificateRequestPem(
    EVP_PKEY* key, const std::string& common_name,
    const std::vector<std::string>& organizations);

// Whether `usage` is one of the key usages a CertificateSigningRequest may
// name ("client auth", "digital signature", ...).
bool IsKnownKeyUsage(std::string_view usage);
// Every such usage, sorted as kube-apiserver lists them.
const std::vector<std::string>& KnownKeyUsages();

// A certificate for the request's key and subject, with the asked usages
// (Kubernetes names), valid [not_before, not_after] capped to the CA's own
// validity, signed by the CA: PEM.
Result<std::string> SignCertificateRequest(
    const CertificateRequest& request, const std::vector<std::string>& usages,
    TimePoint not_before, TimePoint not_after, X509* ca_cert, EVP_PKEY* ca_key,
    Rng& rng);

}  // namespace kmock::certs

#endif  // KMOCK_CERTS_CERTIFICATE_REQUEST_H_
