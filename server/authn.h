// Authentication: who sent a request.
//
// A verified client certificate names the user (subject CN) and groups
// (subject O values); a bearer token from the configured list names the
// user given for it; any other bearer token is tried as a service account
// token (service_account_tokens.h). Authenticated users also get the group
// system:authenticated. Without credentials a request is anonymous, which
// only the public paths (/version, /healthz, /livez, /readyz) allow; every
// other request, and any request with an unknown token, gets 401.
//
// Thread safety: an Authenticator is immutable after construction; safe
// from any thread.
#ifndef KMOCK_SERVER_AUTHN_H_
#define KMOCK_SERVER_AUTHN_H_

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "registry/registry.h"
#include "server/service_account_tokens.h"

namespace kmock::server {

// A bearer token and the user it stands for.
struct TokenUser {
  std::string token;
  registry::UserInfo user;
};

// The user a client certificate names (CN, O values + system:authenticated).
registry::UserInfo UserFromCertificate(X509* cert);

// The token of an Authorization header as kube-apiserver reads it: the
// header trimmed, split at single spaces, "Bearer" in any case, then the
// next part; nullopt when there is none or it is empty ("Bearer  x").
std::optional<std::string_view> BearerToken(std::string_view authorization);

// Paths anyone may read without credentials.
bool IsPublicPath(std::string_view path);

class Authenticator {
 public:
  // `service_accounts` may be null (no service account tokens); not owned.
  explicit Authenticator(
      std::vector<TokenUser> tokens,
      const ServiceAccountTokens* service_accounts = nullptr);

  // The user, or nullopt for an anonymous request, or kUnauthorized for bad
  // credentials. `ssl` may be null (no TLS). `authorization` is the
  // Authorization header ("" if absent).
  Result<std::optional<registry::UserInfo>> Authenticate(
      const SSL* ssl, std::string_view authorization) const;

 private:
  std::vector<TokenUser> tokens_;
  const ServiceAccountTokens* service_accounts_;
};

}  // namespace kmock::server

#endif  // KMOCK_SERVER_AUTHN_H_
