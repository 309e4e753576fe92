#include "api/kinds/quantity.h"

#include <cmath>
#include <cstdlib>

namespace kmock::api::kinds {

bool ParseQuantity(const nlohmann::json& value, long double* out) {
  if (value.is_number()) {
    *out = value.get<long double>();
    return true;
  }
  if (!value.is_string()) return false;
  const std::string s = value.get<std::string>();
  if (s.empty()) return false;
  size_t i = 0;
  if (s[i] == '+' || s[i] == '-') ++i;
  size_t digits_start = i;
  while (i < s.size() &&
         (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
    ++i;
  }
  if (i == digits_start) return false;
  long double number = std::strtold(s.substr(0, i).c_str(), nullptr);
  std::string suffix = s.substr(i);
  long double mult = 1;
  if (suffix.empty()) {
  } else if (suffix == "Ki") {
    mult = 1024.0L;
  } else if (suffix == "Mi") {
    mult = std::pow(1024.0L, 2);
  } else if (suffix == "Gi") {
    mult = std::pow(1024.0L, 3);
  } else if (suffix == "Ti") {
    mult = std::pow(1024.0L, 4);
  } else if (suffix == "Pi") {
    mult = std::pow(1024.0L, 5);
  } else if (suffix == "Ei") {
    mult = std::pow(1024.0L, 6);
  } else if (suffix == "n") {
    mult = 1e-9L;
  } else if (suffix == "u") {
    mult = 1e-6L;
  } else if (suffix == "m") {
    mult = 1e-3L;
  } else if (suffix == "k") {
    mult = 1e3L;
  } else if (suffix == "M") {
    mult = 1e6L;
  } else if (suffix == "G") {
    mult = 1e9L;
  } else if (suffix == "T") {
    mult = 1e12L;
  } else if (suffix == "P") {
    mult = 1e15L;
  } else if (suffix == "E") {
    mult = 1e18L;
  } else if (suffix[0] == 'e' || suffix[0] == 'E') {
    char* end = nullptr;
    long exp = std::strtol(suffix.c_str() + 1, &end, 10);
    if (end == suffix.c_str() + 1 || *end != '\0') return false;
    mult = std::pow(10.0L, exp);
  } else {
    return false;
  }
  *out = number * mult;
  return true;
}

}  // namespace kmock::api::kinds
