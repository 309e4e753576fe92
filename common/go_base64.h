// Standard base64 (RFC 4648 with padding) as Go's encoding/base64
// StdEncoding decodes it, which is how kube-apiserver reads []byte fields
// (Secret data, ConfigMap binaryData, a CSR's request): line breaks are
// skipped, and a malformed input fails at the byte offset Go reports in
// "illegal base64 data at input byte N".
//
// Thread safety: pure functions.
#ifndef KMOCK_COMMON_GO_BASE64_H_
#define KMOCK_COMMON_GO_BASE64_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kmock {

// The decoded bytes, or nullopt with *error_offset set to the offset Go
// reports.
std::optional<std::string> GoBase64Decode(std::string_view text,
                                          size_t* error_offset);

// Standard base64 with padding of `bytes`.
std::string GoBase64Encode(std::string_view bytes);

// Go's error text for a failed decode: "illegal base64 data at input byte
// N".
std::string GoBase64ErrorText(size_t error_offset);

}  // namespace kmock

#endif  // KMOCK_COMMON_GO_BASE64_H_
