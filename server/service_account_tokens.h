// Service account tokens, as kube-apiserver issues and checks them: the
// serviceaccounts/<name>/token subresource (TokenRequest) signs a JWT
// (certs/jwt.h) naming the account, its uid, the audiences, the expiry and
// an optional bound Pod, Secret or Node; a bearer token that is one of
// these authenticates as system:serviceaccount:<ns>:<name> while it has
// not expired, names one of the API's audiences, and the account (and the
// bound object) still exist with the uids it names; TokenReview answers
// the same question for any audience list.
//
// Thread safety: immutable after construction; every method may run on
// many threads at once.
#ifndef KMOCK_SERVER_SERVICE_ACCOUNT_TOKENS_H_
#define KMOCK_SERVER_SERVICE_ACCOUNT_TOKENS_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "certs/jwt.h"
#include "common/clock.h"
#include "common/rng.h"
#include "common/status.h"
#include "registry/registry.h"

namespace kmock::server {

struct ServiceAccountTokenOptions {
  // kubeadm's --service-account-issuer, also the API's audience.
  std::string issuer = "https://kubernetes.default.svc.cluster.local";
};

class ServiceAccountTokens {
 public:
  ServiceAccountTokens(registry::Registry* registry, const Clock* clock,
                       Rng* rng, std::shared_ptr<const certs::JwtSigner> signer,
                       ServiceAccountTokenOptions options = {});

  // Answers POST serviceaccounts/<name>/token with the TokenRequest and its
  // status (token, expirationTimestamp); 404 without the account, 422 for
  // a bad request.
  Result<nlohmann::json> Issue(const std::string& ns, const std::string& name,
                               const nlohmann::json& request) const;

  // The user a token stands for when one of `audiences` (empty: the API's)
  // is among the token's; kUnauthorized otherwise. `token_audiences`, if
  // given, receives the audiences the token and `audiences` share.
  Result<registry::UserInfo> Authenticate(
      std::string_view token, const std::vector<std::string>& audiences = {},
      std::vector<std::string>* token_audiences = nullptr) const;

  // Fills in a TokenReview's status.
  nlohmann::json Review(const nlohmann::json& review) const;

 private:
  registry::Registry* registry_;
  const Clock* clock_;
  Rng* rng_;
  std::shared_ptr<const certs::JwtSigner> signer_;
  ServiceAccountTokenOptions options_;
};

}  // namespace kmock::server

#endif  // KMOCK_SERVER_SERVICE_ACCOUNT_TOKENS_H_
