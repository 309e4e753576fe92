// What kube-apiserver checks of ConfigMaps and Secrets, with its messages:
// keys (letters, digits, '-', '_', '.', not '.', '..' or '..x', at most 253
// characters), the 1 MiB size limit, the keys each Secret type requires,
// `immutable` (neither the data nor the flag may change once set) and a
// Secret's immutable type; and a Secret's write-only stringData, folded
// into data (base64) before anything else, as the server's conversion does.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_API_KINDS_CONFIG_CHECKS_H_
#define KMOCK_API_KINDS_CONFIG_CHECKS_H_

#include <nlohmann/json.hpp>

#include "api/field_errors.h"

namespace kmock::api::kinds {

void ValidateConfigMap(const nlohmann::json& obj, FieldErrors* errs);
void ValidateConfigMapUpdate(const nlohmann::json& obj,
                             const nlohmann::json& old, FieldErrors* errs);

void NormalizeSecret(nlohmann::json& obj);
void ValidateSecret(const nlohmann::json& obj, FieldErrors* errs);
void ValidateSecretUpdate(const nlohmann::json& obj, const nlohmann::json& old,
                          FieldErrors* errs);

}  // namespace kmock::api::kinds

#endif  // KMOCK_API_KINDS_CONFIG_CHECKS_H_
