// Emits a yaml-cpp node tree without changing what its scalars mean.
//
// yaml-cpp's own emitter drops the quotes of a quoted scalar ("123" comes
// back as the number 123). Here a scalar that was quoted in the input, or
// built in code, is written as a string: quoted when it would otherwise read
// as null, a boolean or a number; plain scalars from the input stay plain.
//
// Thread safety: pure functions.
#ifndef KMOCK_KUBECONFIG_YAML_EMIT_H_
#define KMOCK_KUBECONFIG_YAML_EMIT_H_

#include <yaml-cpp/yaml.h>

#include <string>

namespace kmock::kubeconfig {

std::string EmitYaml(const YAML::Node& node);

// True when `s` written plain would not read back as a string (YAML 1.1
// or 1.2: null, booleans, numbers), so it must be quoted.
bool NeedsQuotesAsString(const std::string& s);

}  // namespace kmock::kubeconfig

#endif  // KMOCK_KUBECONFIG_YAML_EMIT_H_
