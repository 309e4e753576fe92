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
#include <vector>

#include "common/status.h"

namespace kmock::server {

// kBadRequest with the parser's message on malformed YAML.
Result<nlohmann::json> YamlToJson(std::string_view yaml);

// Block-style YAML of a JSON value (strings always quoted, so they never
// read back as numbers or booleans).
std::string JsonToYaml(const nlohmann::json& value);

// Appends `object` as one entry of a block sequence that is a map's value,
// exactly as JsonToYaml writes each entry of such a sequence ("  - a: 1",
// "    b: 2"), leaving out the object's top-level keys in `without`: the
// items of a YAML List written one at a time.
void AppendYamlSequenceEntry(const nlohmann::json& object,
                             const std::vector<std::string>& without,
                             std::string* out);

}  // namespace kmock::server

#endif  // KMOCK_SERVER_YAML_JSON_H_
