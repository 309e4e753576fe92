#include "server/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <regex>

namespace kmock::server {
namespace {

using nlohmann::json;

bool IsInteger(const std::string& s) {
  static const std::regex kInt("[-+]?(0|[1-9][0-9]*)");
  return std::regex_match(s, kInt);
}

bool IsFloat(const std::string& s) {
  static const std::regex kFloat(
      "[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  return std::regex_match(s, kFloat);
}

json PlainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") {
    return nullptr;
  }
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (IsInteger(s)) {
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno == 0) return static_cast<int64_t>(v);
    return std::strtod(s.c_str(), nullptr);
  }
  if (IsFloat(s)) return std::strtod(s.c_str(), nullptr);
  return s;
}

json NodeToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // A quoted scalar has the non-specific tag "!"; a plain one "?".
      if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") {
        return node.Scalar();
      }
      return PlainScalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const YAML::Node& item : node) out.push_back(NodeToJson(item));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) {
        out[kv.first.as<std::string>()] = NodeToJson(kv.second);
      }
      return out;
    }
  }
  return nullptr;
}

void Emit(YAML::Emitter& out, const json& v) {
  switch (v.type()) {
    case json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [k, item] : v.items()) {
        out << YAML::Key << k << YAML::Value;
        Emit(out, item);
      }
      out << YAML::EndMap;
      break;
    case json::value_t::array:
      out << YAML::BeginSeq;
      for (const json& item : v) Emit(out, item);
      out << YAML::EndSeq;
      break;
    case json::value_t::string:
      out << YAML::DoubleQuoted << v.get<std::string>();
      break;
    case json::value_t::boolean:
      out << (v.get<bool>() ? "true" : "false");
      break;
    case json::value_t::null:
      out << YAML::Null;
      break;
    default:  // numbers
      out << v.dump();
      break;
  }
}

}  // namespace

Result<json> YamlToJson(std::string_view yaml) {
  try {
    YAML::Node node = YAML::Load(std::string(yaml));
    return NodeToJson(node);
  } catch (const std::exception& e) {
    return BadRequestError(std::string("error converting YAML to JSON: ") +
                           e.what());
  }
}

std::string JsonToYaml(const json& value) {
  YAML::Emitter out;
  Emit(out, value);
  std::string s = out.c_str();
  s += "\n";
  return s;
}

}  // namespace kmock::server
