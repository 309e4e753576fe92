// Standard base64 (RFC 4648, with padding), as kubeconfig's *-data fields
// hold certificates and keys.
//
// Thread safety: pure functions.
#ifndef KMOCK_KUBECONFIG_BASE64_H_
#define KMOCK_KUBECONFIG_BASE64_H_

#include <optional>
#include <string>

namespace kmock::kubeconfig {

std::string Base64Encode(const std::string& data);
// nullopt on a character outside the alphabet or bad padding.
std::optional<std::string> Base64Decode(const std::string& text);

}  // namespace kmock::kubeconfig

#endif  // KMOCK_KUBECONFIG_BASE64_H_
