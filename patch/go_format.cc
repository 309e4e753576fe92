#include "patch/go_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

namespace kmock::patch {
namespace {

using json = nlohmann::json;

// Go's %v for a float64: the shortest representation that round-trips, in
// %e form when the exponent is < -4 or >= 21, else in plain decimal.
std::string GoFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char sci[64];
  auto r =
      std::to_chars(sci, sci + sizeof(sci), v, std::chars_format::scientific);
  std::string s(sci, r.ptr);
  size_t e = s.find('e');
  int exp = std::stoi(s.substr(e + 1));
  if (exp < -4 || exp >= 21) {
    std::string mantissa = s.substr(0, e);
    char buf[16];
    std::snprintf(buf, sizeof(buf), "e%c%02d", exp < 0 ? '-' : '+',
                  exp < 0 ? -exp : exp);
    return mantissa + buf;
  }
  char fixed[512];
  auto f =
      std::to_chars(fixed, fixed + sizeof(fixed), v, std::chars_format::fixed);
  return std::string(fixed, f.ptr);
}

std::string GoScalar(const json& v) {
  switch (v.type()) {
    case json::value_t::string:
      return v.get_ref<const std::string&>();
    case json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case json::value_t::number_integer:
      return std::to_string(v.get<int64_t>());
    case json::value_t::number_unsigned:
      return std::to_string(v.get<uint64_t>());
    case json::value_t::number_float:
      return GoFloat(v.get<double>());
    case json::value_t::null:
      return "<nil>";
    default:
      return v.dump();
  }
}

}  // namespace

std::string GoValue(const json& value) {
  if (value.is_object()) {
    std::string out = "map[";
    bool first = true;
    for (const auto& [k, v] : value.items()) {  // std::map: sorted like fmt
      if (!first) out += ' ';
      first = false;
      out += k;
      out += ':';
      out += GoValue(v);
    }
    return out + "]";
  }
  if (value.is_array()) {
    std::string out = "[";
    bool first = true;
    for (const auto& v : value) {
      if (!first) out += ' ';
      first = false;
      out += GoValue(v);
    }
    return out + "]";
  }
  return GoScalar(value);
}

std::string GoStringVerb(const json& value) {
  switch (value.type()) {
    case json::value_t::string:
      return value.get_ref<const std::string&>();
    case json::value_t::null:
      return "%!s(<nil>)";
    case json::value_t::object:
    case json::value_t::array:
      // fmt applies %s element-wise; scalars inside get the %!s form.
      if (value.is_array()) {
        std::string out = "[";
        bool first = true;
        for (const auto& v : value) {
          if (!first) out += ' ';
          first = false;
          out += GoStringVerb(v);
        }
        return out + "]";
      } else {
        std::string out = "map[";
        bool first = true;
        for (const auto& [k, v] : value.items()) {
          if (!first) out += ' ';
          first = false;
          out += k + ":" + GoStringVerb(v);
        }
        return out + "]";
      }
    default:
      return "%!s(" + GoTypeName(value) + "=" + GoScalar(value) + ")";
  }
}

std::string GoTypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::object:
      return "map[string]interface {}";
    case json::value_t::array:
      return "[]interface {}";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "int64";
    case json::value_t::number_float:
      return "float64";
    default:
      return "%!s(<nil>)";
  }
}

std::string GoJsonKind(const json& value) {
  switch (value.type()) {
    case json::value_t::object:
      return "object";
    case json::value_t::array:
      return "array";
    case json::value_t::string:
      return "string";
    case json::value_t::boolean:
      return "bool";
    case json::value_t::null:
      return "null";
    default:
      return "number";
  }
}

}  // namespace kmock::patch
