// Continue tokens for paginated lists, in kube-apiserver's format: the
// unpadded base64url of {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key>"}
// where start is the next store key relative to the resource's key prefix.
//
// Thread safety: pure functions.
#ifndef KMOCK_REGISTRY_CONTINUE_TOKEN_H_
#define KMOCK_REGISTRY_CONTINUE_TOKEN_H_

#include <cstdint>
#include <string>

#include "common/status.h"

namespace kmock::registry {

struct ContinueToken {
  int64_t revision = 0;
  std::string start;  // relative to the key prefix
};

std::string EncodeContinue(const ContinueToken& token);
// 400 BadRequest "invalid continue token: ..." on anything malformed.
Result<ContinueToken> DecodeContinue(const std::string& text);

std::string Base64UrlEncode(const std::string& in);
bool Base64UrlDecode(const std::string& in, std::string* out);

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_CONTINUE_TOKEN_H_
