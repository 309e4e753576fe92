#include "server/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <stdexcept>

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

// The offset of the first byte of s that does not start a valid UTF-8
// sequence (overlong forms, surrogates and code points past U+10FFFF
// included), or npos. JSON text must be UTF-8: nlohmann::json refuses to
// dump anything else, and go-yaml refuses such documents.
size_t InvalidUtf8At(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t n = 0;
    uint32_t cp = 0, min = 0;
    if ((c & 0xE0) == 0xC0) {
      n = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      n = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      n = 4, cp = c & 0x07, min = 0x10000;
    } else {
      return i;
    }
    if (s.size() - i < n) return i;
    for (size_t k = 1; k < n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n;
  }
  return std::string_view::npos;
}

// A scalar as JSON text needs it; escapes such as "\uD800" can still make
// invalid UTF-8 out of a valid document.
const std::string& CheckedScalar(const std::string& s) {
  if (InvalidUtf8At(s) != std::string_view::npos) {
    throw std::runtime_error(
        "yaml: found invalid Unicode character escape code");
  }
  return s;
}

// The most JSON values a YAML document of n bytes may turn into. Without
// aliases every value takes at least two bytes of text; aliases can repeat
// a subtree without bound ("billion laughs": a few hundred bytes that
// expand to gigabytes), which kube's YAML decoder refuses as "excessive
// aliasing".
size_t ValueBudget(size_t yaml_bytes) { return 4 * yaml_bytes + 10000; }

// REQUIRES: *budget counts the values still allowed; throws when it runs out.
json NodeToJson(const YAML::Node& node, size_t* budget) {
  if (*budget == 0) {
    throw std::runtime_error("yaml: document contains excessive aliasing");
  }
  --*budget;
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // A quoted scalar has the non-specific tag "!"; a plain one "?".
      if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") {
        return CheckedScalar(node.Scalar());
      }
      return PlainScalar(CheckedScalar(node.Scalar()));
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const YAML::Node& item : node)
        out.push_back(NodeToJson(item, budget));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) {
        out[CheckedScalar(kv.first.as<std::string>())] =
            NodeToJson(kv.second, budget);
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
  if (InvalidUtf8At(yaml) != std::string_view::npos) {
    return BadRequestError(
        "error converting YAML to JSON: yaml: invalid leading UTF-8 octet");
  }
  try {
    YAML::Node node = YAML::Load(std::string(yaml));
    size_t budget = ValueBudget(yaml.size());
    return NodeToJson(node, &budget);
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

void AppendYamlSequenceEntry(const json& object,
                             const std::vector<std::string>& without,
                             std::string* out) {
  // Written inside a map under a one-letter key, as JsonToYaml writes a
  // List's items, and the key's line dropped: the entry's indentation is
  // the emitter's own.
  YAML::Emitter em;
  em << YAML::BeginMap << YAML::Key << "x" << YAML::Value << YAML::BeginSeq;
  if (object.is_object()) {
    em << YAML::BeginMap;
    for (const auto& [k, item] : object.items()) {
      bool skip = false;
      for (const std::string& w : without) skip = skip || k == w;
      if (skip) continue;
      em << YAML::Key << k << YAML::Value;
      Emit(em, item);
    }
    em << YAML::EndMap;
  } else {
    Emit(em, object);
  }
  em << YAML::EndSeq << YAML::EndMap;
  std::string_view text(em.c_str(), em.size());
  size_t start = text.find('\n');
  if (start == std::string_view::npos) return;
  out->append(text.substr(start + 1));
  out->push_back('\n');
}

}  // namespace kmock::server
