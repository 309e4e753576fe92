// Conversion between YAML and JSON for request and response bodies.
//
// YamlToJson follows what Kubernetes' YAML decoding gives: plain scalars
// that read as integers become numbers, true/false become booleans,
// null/~/empty become null; quoted scalars stay strings. Only the first
// document of a multi-document stream is read.
//
// Thread safety: pure functions; safe from any thread.
#ifndef KMOCK_SERVER_YAML_JSON_H_
#define KMOCK_SERVER_YAML_JSON_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"

namespace kmock::server {

// kBadRequest with the parser's message on malformed YAML.
Result<nlohmann::json> YamlToJson(std::string_view yaml);

// Block-style YAML of a JSON value (strings always quoted, so they never
// read back as numbers or booleans).
std::string JsonToYaml(const nlohmann::json& value);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_YAML_JSON_H_
