#include "certs/identity.h"

#include "certs/cert_inspect.h"
#include "certs/openssl_util.h"

namespace kmock::certs {

Result<Identity> IdentityFromCertificate(X509* cert) {
  if (cert == nullptr)
    return Status(StatusCode::kUnauthorized, "no client certificate");
  Identity id;
  id.user = SubjectCommonName(cert);
  if (id.user.empty()) {
    return Status(StatusCode::kUnauthorized,
                  "client certificate has no common name");
  }
  id.groups = SubjectOrganizations(cert);
  return id;
}

Result<Identity> VerifyClientCertificate(X509* peer, const std::string& ca_pem,
                                         const Clock& clock) {
  if (peer == nullptr)
    return Status(StatusCode::kUnauthorized, "no client certificate");
  KMOCK_ASSIGN_OR_RETURN(UniqueX509Store trust, MakeTrustStore(ca_pem));
  KMOCK_RETURN_IF_ERROR(
      VerifyCertificate(trust.get(), peer, CertPurpose::kClientAuth, clock));
  return IdentityFromCertificate(peer);
}

Result<Identity> IdentityFromSsl(const SSL* ssl) {
  if (ssl == nullptr) return NotFoundError("not a TLS connection");
  UniqueX509 peer(SSL_get1_peer_certificate(ssl));
  if (!peer) return NotFoundError("no client certificate");
  long verify = SSL_get_verify_result(ssl);
  if (verify != X509_V_OK) {
    return Status(StatusCode::kUnauthorized,
                  std::string("client certificate rejected: ") +
                      X509_verify_cert_error_string(verify));
  }
  return IdentityFromCertificate(peer.get());
}

}  // namespace kmock::certs
