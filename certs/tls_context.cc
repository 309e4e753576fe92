#include "certs/tls_context.h"

#include "certs/openssl_util.h"

namespace kmock::certs {

Status ConfigureServerTls(SSL_CTX* ctx, const Pki& pki) {
  if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
    return InternalError("setting the minimum TLS version: " + OpenSslErrors());
  }
  KMOCK_ASSIGN_OR_RETURN(UniqueX509 cert,
                         ParseCertificatePem(pki.server_cert_pem));
  KMOCK_ASSIGN_OR_RETURN(UniquePkey key,
                         ParsePrivateKeyPem(pki.server_key_pem));
  KMOCK_ASSIGN_OR_RETURN(UniqueX509 ca, ParseCertificatePem(pki.ca_cert_pem));
  if (SSL_CTX_use_certificate(ctx, cert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 ||
      SSL_CTX_check_private_key(ctx) != 1) {
    return InternalError("loading the serving certificate: " + OpenSslErrors());
  }
  if (X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), ca.get()) != 1) {
    return InternalError("trusting the CA for client certificates: " +
                         OpenSslErrors());
  }
  // The CA names the CertificateRequest advertises; Go clients pick their
  // certificate by them.
  if (SSL_CTX_add_client_CA(ctx, ca.get()) != 1) {
    return InternalError("advertising the client CA: " + OpenSslErrors());
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  return Status::Ok();
}

}  // namespace kmock::certs
