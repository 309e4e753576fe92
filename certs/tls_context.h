// Configures a server SSL_CTX the way kube-apiserver serves: TLS 1.2 or
// newer, the PKI's serving certificate, and client certificates requested
// and verified against the CA but optional (bearer tokens still work).
// Pass it to httplib::SSLServer's SSL_CTX-callback constructor; after the
// handshake, IdentityFromSsl (identity.h) reads the caller.
//
// Thread safety: call once per SSL_CTX before the server accepts.
#ifndef KMOCK_CERTS_TLS_CONTEXT_H_
#define KMOCK_CERTS_TLS_CONTEXT_H_

#include <openssl/ssl.h>

#include "certs/pki.h"
#include "common/status.h"

namespace kmock::certs {

Status ConfigureServerTls(SSL_CTX* ctx, const Pki& pki);

}  // namespace kmock::certs

#endif  // KMOCK_CERTS_TLS_CONTEXT_H_
