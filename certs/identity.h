// Who a client certificate says the caller is: the user is the subject CN,
// the groups are the subject O values (kube-apiserver's x509 authenticator
// rule). The authenticator adds "system:authenticated" itself.
//
// Thread safety: free functions; safe from many threads on distinct objects.
#ifndef KMOCK_CERTS_IDENTITY_H_
#define KMOCK_CERTS_IDENTITY_H_

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"

namespace kmock::certs {

struct Identity {
  std::string user;
  std::vector<std::string> groups;
  bool operator==(const Identity&) const = default;
};

// Reads user and groups from a certificate whose chain the caller has
// already verified. kUnauthorized when the CN is empty.
Result<Identity> IdentityFromCertificate(X509* cert);

// Verifies `peer` against the CA in `ca_pem` for client authentication at
// clock.Now(), then reads its identity.
Result<Identity> VerifyClientCertificate(X509* peer, const std::string& ca_pem,
                                         const Clock& clock);

// After a TLS handshake: the identity in the peer certificate when the
// client sent one and the handshake verified it (SSL_get_verify_result is
// X509_V_OK). kNotFound when no certificate was sent (fall back to a
// bearer token), kUnauthorized when it did not verify.
Result<Identity> IdentityFromSsl(const SSL* ssl);

}  // namespace kmock::certs

#endif  // KMOCK_CERTS_IDENTITY_H_
