#include "server/authn.h"

#include <openssl/crypto.h>

#include <algorithm>

#include "certs/cert_inspect.h"
#include "server/errors.h"

namespace kmock::server {
namespace {

constexpr char kAuthenticatedGroup[] = "system:authenticated";

void AddAuthenticatedGroup(registry::UserInfo& user) {
  if (std::find(user.groups.begin(), user.groups.end(), kAuthenticatedGroup) ==
      user.groups.end()) {
    user.groups.push_back(kAuthenticatedGroup);
  }
}

bool SameToken(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

registry::UserInfo UserFromCertificate(X509* cert) {
  registry::UserInfo user;
  user.name = certs::SubjectCommonName(cert);
  user.groups = certs::SubjectOrganizations(cert);
  AddAuthenticatedGroup(user);
  return user;
}

bool IsPublicPath(std::string_view path) {
  if (path == "/version" || path == "/version/") return true;
  for (std::string_view p : {"/healthz", "/livez", "/readyz"}) {
    if (path == p) return true;
    if (path.size() > p.size() && path.substr(0, p.size()) == p &&
        path[p.size()] == '/') {
      return true;
    }
  }
  return false;
}

Authenticator::Authenticator(std::vector<TokenUser> tokens)
    : tokens_(std::move(tokens)) {}

Result<std::optional<registry::UserInfo>> Authenticator::Authenticate(
    const SSL* ssl, std::string_view authorization) const {
  if (!authorization.empty()) {
    constexpr std::string_view kBearer = "Bearer ";
    if (authorization.size() > kBearer.size() &&
        std::equal(kBearer.begin(), kBearer.end(), authorization.begin(),
                   [](char a, char b) {
                     return std::tolower(a) == std::tolower(b);
                   })) {
      std::string_view token = authorization.substr(kBearer.size());
      while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
      while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
      for (const TokenUser& t : tokens_) {
        if (SameToken(t.token, token)) {
          registry::UserInfo user = t.user;
          AddAuthenticatedGroup(user);
          return std::optional<registry::UserInfo>(std::move(user));
        }
      }
      return UnauthorizedError();
    }
  }
  if (ssl != nullptr) {
    X509* cert = SSL_get1_peer_certificate(ssl);
    if (cert != nullptr) {
      // The handshake accepts any certificate, as kube-apiserver's does;
      // one that does not verify against the client CA (another CA,
      // expired) is a failed login: 401, on every path.
      if (SSL_get_verify_result(ssl) != X509_V_OK) {
        X509_free(cert);
        return UnauthorizedError();
      }
      registry::UserInfo user = UserFromCertificate(cert);
      X509_free(cert);
      if (!user.name.empty())
        return std::optional<registry::UserInfo>(std::move(user));
    }
  }
  // Other schemes (e.g. Basic) are not served: the request is anonymous.
  return std::optional<registry::UserInfo>();
}

}  // namespace kmock::server
