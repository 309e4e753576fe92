// TLS configuration of the serving socket, as kube-apiserver has it: the
// serving certificate (plus any chain certificates in the same PEM) and key,
// client certificates requested and verified against the client CA but not
// required (tokens are allowed), TLS 1.2 or newer, HTTP/1.1 only (no ALPN
// selection).
//
// Thread safety: ConfigureTls runs once on a fresh SSL_CTX before it is
// shared.
#ifndef KMOCK_SERVER_TLS_H_
#define KMOCK_SERVER_TLS_H_

#include <openssl/ssl.h>

#include <string>

#include "common/status.h"

namespace kmock::server {

// Loads cert/key/CA from PEM strings into ctx. `client_ca_pem` may be empty
// (then no client certificate is asked for).
Status ConfigureTls(SSL_CTX* ctx, const std::string& cert_pem,
                    const std::string& key_pem,
                    const std::string& client_ca_pem);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_TLS_H_
