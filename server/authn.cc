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

Authenticator::Authenticator(std::vector<TokenUser> tokens,
                             const ServiceAccountTokens* service_accounts)
    : tokens_(std::move(tokens)), service_accounts_(service_accounts) {}

std::optional<std::string_view> BearerToken(std::string_view authorization) {
  // Go's strings.TrimSpace of the whole header, then SplitN(" ", 3).
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  size_t first = authorization.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return std::nullopt;
  authorization = authorization.substr(
      first, authorization.find_last_not_of(kSpace) - first + 1);
  size_t space = authorization.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  std::string_view scheme = authorization.substr(0, space);
  if (scheme.size() != 6 ||
      !std::equal(scheme.begin(), scheme.end(), "bearer",
                  [](char a, char b) { return std::tolower(a) == b; }))
    return std::nullopt;
  std::string_view rest = authorization.substr(space + 1);
  std::string_view token = rest.substr(0, rest.find(' '));
  // "Bearer  x": the token between the two spaces is empty, which
  // kube-apiserver treats as no token at all.
  if (token.empty()) return std::nullopt;
  return token;
}

Result<std::optional<registry::UserInfo>> Authenticator::Authenticate(
    const SSL* ssl, std::string_view authorization) const {
  // kube-apiserver asks its authenticators in turn, client certificates
  // before tokens; the first that knows the request wins, and a failure is
  // reported only when none does.
  bool failed = false;
  if (ssl != nullptr) {
    X509* cert = SSL_get1_peer_certificate(ssl);
    if (cert != nullptr) {
      // The handshake accepts any certificate, as kube-apiserver's does;
      // one that does not verify against the client CA (another CA,
      // expired) is a failed login unless a token succeeds.
      if (SSL_get_verify_result(ssl) != X509_V_OK) {
        failed = true;
      } else {
        registry::UserInfo user = UserFromCertificate(cert);
        if (!user.name.empty()) {
          X509_free(cert);
          return std::optional<registry::UserInfo>(std::move(user));
        }
      }
      X509_free(cert);
    }
  }
  if (std::optional<std::string_view> token = BearerToken(authorization)) {
    for (const TokenUser& t : tokens_) {
      if (SameToken(t.token, *token)) {
        registry::UserInfo user = t.user;
        AddAuthenticatedGroup(user);
        return std::optional<registry::UserInfo>(std::move(user));
      }
    }
    if (service_accounts_ != nullptr) {
      auto user = service_accounts_->Authenticate(*token);
      if (user.ok()) return std::optional<registry::UserInfo>(*user);
    }
    failed = true;
  }
  if (failed) return UnauthorizedError();
  // Other schemes (e.g. Basic) are not served: the request is anonymous.
  return std::optional<registry::UserInfo>();
}

}  // namespace kmock::server
