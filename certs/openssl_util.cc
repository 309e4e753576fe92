#include "certs/openssl_util.h"

#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/pem.h>

namespace kmock::certs {

namespace {

std::string BioContents(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  return len > 0 ? std::string(data, static_cast<size_t>(len)) : std::string();
}

UniqueBio ReadOnlyBio(const std::string& s) {
  return UniqueBio(BIO_new_mem_buf(s.data(), static_cast<int>(s.size())));
}

}  // namespace

std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

Result<UniquePkey> GenerateEcKey() {
  UniquePkey key(EVP_EC_gen(SN_X9_62_prime256v1));
  if (!key) return InternalError("generating a P-256 key: " + OpenSslErrors());
  return key;
}

std::string CertificateToPem(X509* cert) {
  UniqueBio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return "";
  return BioContents(bio.get());
}

std::string PrivateKeyToPem(EVP_PKEY* key) {
  UniqueBio bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0,
                                       nullptr, nullptr) != 1) {
    return "";
  }
  return BioContents(bio.get());
}

Result<UniqueX509> ParseCertificatePem(const std::string& pem) {
  UniqueBio bio = ReadOnlyBio(pem);
  UniqueX509 cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)
                      : nullptr);
  if (!cert) {
    return BadRequestError("not a PEM certificate: " + OpenSslErrors());
  }
  return cert;
}

Result<UniquePkey> ParsePrivateKeyPem(const std::string& pem) {
  UniqueBio bio = ReadOnlyBio(pem);
  UniquePkey key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr)
          : nullptr);
  if (!key) {
    return BadRequestError("not a PEM private key: " + OpenSslErrors());
  }
  return key;
}

Result<UniqueX509Store> MakeTrustStore(const std::string& ca_pem) {
  UniqueX509Store store(X509_STORE_new());
  if (!store) return InternalError("X509_STORE_new: " + OpenSslErrors());
  UniqueBio bio = ReadOnlyBio(ca_pem);
  int added = 0;
  while (bio) {
    UniqueX509 cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert) break;
    if (X509_STORE_add_cert(store.get(), cert.get()) != 1) {
      return InternalError("adding a CA certificate: " + OpenSslErrors());
    }
    ++added;
  }
  ERR_clear_error();  // the loop ends on a "no start line" error
  if (added == 0) return BadRequestError("no CA certificate in PEM input");
  return store;
}

}  // namespace kmock::certs
