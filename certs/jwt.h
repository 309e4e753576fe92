// Signed JSON Web Tokens (RFC 7519, compact form) with ES256, as
// kube-apiserver issues service account tokens: a header naming the
// algorithm and the key ("kid": the unpadded base64url SHA-256 of the
// public key's DER, as kube-apiserver derives it), the claims, and the
// P-256 signature as r||s.
//
// Thread safety: a JwtSigner is immutable after construction; Sign and
// Verify may run on many threads at once.
#ifndef KMOCK_CERTS_JWT_H_
#define KMOCK_CERTS_JWT_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "certs/openssl_util.h"
#include "common/status.h"

namespace kmock::certs {

// Unpadded base64url (RFC 4648 section 5) of `bytes`, and back (nullopt
// when malformed).
std::string Base64UrlEncode(std::string_view bytes);
std::optional<std::string> Base64UrlDecode(std::string_view text);

class JwtSigner {
 public:
  // From an EC P-256 private key (PEM).
  static Result<std::shared_ptr<const JwtSigner>> FromPrivateKeyPem(
      const std::string& pem);

  // header.claims.signature.
  Result<std::string> Sign(const nlohmann::json& claims) const;
  // The claims of a token this signer made; kUnauthorized for anything
  // else (malformed, another algorithm or key, a bad signature). Times
  // are not checked here.
  Result<nlohmann::json> Verify(std::string_view token) const;

  const std::string& key_id() const { return key_id_; }

 private:
  UniquePkey key_;
  std::string key_id_;
};

}  // namespace kmock::certs

#endif  // KMOCK_CERTS_JWT_H_
