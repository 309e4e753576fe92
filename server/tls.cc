#include "server/tls.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace kmock::server {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using UniqueBio = std::unique_ptr<BIO, BioFree>;

UniqueBio MemBio(const std::string& pem) {
  return UniqueBio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

std::string LastError() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

Status TlsError(const std::string& what) {
  return InternalError("TLS setup: " + what + ": " + LastError());
}

}  // namespace

Status ConfigureTls(SSL_CTX* ctx, const std::string& cert_pem,
                    const std::string& key_pem,
                    const std::string& client_ca_pem) {
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION |
                               SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION);

  // Serving certificate, then any chain certificates that follow it.
  UniqueBio bio = MemBio(cert_pem);
  X509* leaf = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
  if (leaf == nullptr) return TlsError("reading the serving certificate");
  int ok = SSL_CTX_use_certificate(ctx, leaf);
  X509_free(leaf);
  if (ok != 1) return TlsError("using the serving certificate");
  while (X509* extra =
             PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add0_chain_cert(ctx, extra) != 1) {
      X509_free(extra);
      return TlsError("adding a chain certificate");
    }
  }
  ERR_clear_error();  // the loop above ends on a "no start line" error

  UniqueBio key_bio = MemBio(key_pem);
  EVP_PKEY* key =
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
  if (key == nullptr) return TlsError("reading the serving key");
  ok = SSL_CTX_use_PrivateKey(ctx, key);
  EVP_PKEY_free(key);
  if (ok != 1) return TlsError("using the serving key");
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return TlsError("the serving key does not match the certificate");
  }

  if (!client_ca_pem.empty()) {
    X509_STORE* store = SSL_CTX_get_cert_store(ctx);
    STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
    UniqueBio ca_bio = MemBio(client_ca_pem);
    int count = 0;
    while (X509* ca =
               PEM_read_bio_X509(ca_bio.get(), nullptr, nullptr, nullptr)) {
      X509_STORE_add_cert(store, ca);
      sk_X509_NAME_push(names, X509_NAME_dup(X509_get_subject_name(ca)));
      X509_free(ca);
      ++count;
    }
    ERR_clear_error();
    if (count == 0) {
      sk_X509_NAME_pop_free(names, X509_NAME_free);
      return InternalError("TLS setup: no certificate in the client CA");
    }
    SSL_CTX_set_client_CA_list(ctx, names);
    // Ask for a certificate but neither require it nor fail the handshake
    // when it does not verify: like kube-apiserver, the handshake succeeds
    // and authentication (authn.cc) answers 401 from the recorded
    // verification result.
    SSL_CTX_set_verify(
        ctx, SSL_VERIFY_PEER,
        [](int /*preverify_ok*/, X509_STORE_CTX* /*store*/) { return 1; });
    static const unsigned char kSessionContext[] = "kubemock";
    SSL_CTX_set_session_id_context(ctx, kSessionContext,
                                   sizeof(kSessionContext) - 1);
  }
  return Status::Ok();
}

}  // namespace kmock::server
