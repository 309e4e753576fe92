// Owning handles for OpenSSL objects and small conversions shared by the
// certs module: PEM in and out, key generation, the last OpenSSL error.
//
// Thread safety: free functions over caller-owned objects; safe to call
// from many threads on distinct objects.
#ifndef KMOCK_CERTS_OPENSSL_UTIL_H_
#define KMOCK_CERTS_OPENSSL_UTIL_H_

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

#include "common/status.h"

namespace kmock::certs {

struct X509Deleter {
  void operator()(X509* p) const { X509_free(p); }
};
struct PkeyDeleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct BioDeleter {
  void operator()(BIO* p) const { BIO_free_all(p); }
};
struct X509StoreDeleter {
  void operator()(X509_STORE* p) const { X509_STORE_free(p); }
};

using UniqueX509 = std::unique_ptr<X509, X509Deleter>;
using UniquePkey = std::unique_ptr<EVP_PKEY, PkeyDeleter>;
using UniqueBio = std::unique_ptr<BIO, BioDeleter>;
using UniqueX509Store = std::unique_ptr<X509_STORE, X509StoreDeleter>;

// Drains OpenSSL's thread-local error queue into one line (for messages).
std::string OpenSslErrors();

// A fresh ECDSA P-256 key pair.
Result<UniquePkey> GenerateEcKey();

std::string CertificateToPem(X509* cert);
// The private key as unencrypted PKCS#8 PEM ("BEGIN PRIVATE KEY").
std::string PrivateKeyToPem(EVP_PKEY* key);

// Parse the first certificate / private key in `pem`.
Result<UniqueX509> ParseCertificatePem(const std::string& pem);
Result<UniquePkey> ParsePrivateKeyPem(const std::string& pem);

// A trust store holding the certificate(s) in `ca_pem`.
Result<UniqueX509Store> MakeTrustStore(const std::string& ca_pem);

}  // namespace kmock::certs

#endif  // KMOCK_CERTS_OPENSSL_UTIL_H_
