// Continue tokens for paginated lists, in kube-apiserver's format: the
// unpadded base64url of {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key>"}
// where start is the next store key relative to the resource's key prefix.
//
// Thread safety: pure functions.
#ifndef KMOCK_REGISTRY_CONTINUE_TOKEN_H_
#define KMOCK_REGISTRY_CONTINUE_TOKEN_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace kmock::registry {

struct ContinueToken {
  int64_t revision = 0;
  std::string start;  // relative to the key prefix
};

std::string EncodeContinue(const ContinueToken& token);
// 400 BadRequest "invalid continue token: continue key is not valid: ..."
// on anything malformed, with kube-apiserver's cause text (Go's base64 and
// encoding/json errors) for garbage.
Result<ContinueToken> DecodeContinue(const std::string& text);

std::string Base64UrlEncode(const std::string& in);
// Unpadded base64url, as strict as Go's RawURLEncoding ('=', '+', '/' and a
// lone final character are errors; CR and LF are skipped). On failure sets
// *bad_at (if given) to the offending input byte.
bool Base64UrlDecode(const std::string& in, std::string* out,
                     size_t* bad_at = nullptr);

}  // namespace kmock::registry

#endif  // KMOCK_REGISTRY_CONTINUE_TOKEN_H_
