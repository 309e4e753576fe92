#include "controllers/quantity.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace kmock::controllers {

namespace {

// Parses the quantity into a long double of its value.
Result<long double> ParseNumber(const nlohmann::json& q) {
  if (q.is_number()) return q.get<long double>();
  if (!q.is_string()) {
    return Status(StatusCode::kInvalid, "quantity must be a string or number");
  }
  const std::string s = q.get<std::string>();
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  bool digits = false;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    ++i;
    digits = true;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      ++i;
      digits = true;
    }
  }
  if (!digits) {
    return Status(StatusCode::kInvalid,
                  "quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  }
  long double number = std::strtold(s.substr(0, i).c_str(), nullptr);
  std::string suffix = s.substr(i);
  long double mult = 1;
  static const struct {
    const char* suffix;
    long double mult;
  } kSuffixes[] = {
      {"", 1},
      {"n", 1e-9L},
      {"u", 1e-6L},
      {"m", 1e-3L},
      {"k", 1e3L},
      {"M", 1e6L},
      {"G", 1e9L},
      {"T", 1e12L},
      {"P", 1e15L},
      {"E", 1e18L},
      {"Ki", 1024.0L},
      {"Mi", 1048576.0L},
      {"Gi", 1073741824.0L},
      {"Ti", 1099511627776.0L},
      {"Pi", 1125899906842624.0L},
      {"Ei", 1152921504606846976.0L},
  };
  bool found = false;
  for (const auto& e : kSuffixes) {
    if (suffix == e.suffix) {
      mult = e.mult;
      found = true;
      break;
    }
  }
  if (!found && !suffix.empty() && (suffix[0] == 'e' || suffix[0] == 'E')) {
    char* end = nullptr;
    long exp = std::strtol(suffix.c_str() + 1, &end, 10);
    if (end != nullptr && *end == '\0' && suffix.size() > 1) {
      mult = std::pow(10.0L, static_cast<long double>(exp));
      found = true;
    }
  }
  if (!found) {
    return Status(StatusCode::kInvalid,
                  "unable to parse quantity's suffix: \"" + s + "\"");
  }
  return number * mult;
}

int64_t CeilToInt(long double v) {
  // Guard against representation noise such as 0.1 * 1000 = 100.0000001.
  long double r = std::round(v);
  if (std::fabs(v - r) < 1e-6L) return static_cast<int64_t>(r);
  return static_cast<int64_t>(std::ceil(v));
}

}  // namespace

Result<int64_t> ParseMilliValue(const nlohmann::json& q) {
  KMOCK_ASSIGN_OR_RETURN(long double v, ParseNumber(q));
  return CeilToInt(v * 1000.0L);
}

Result<int64_t> ParseValue(const nlohmann::json& q) {
  KMOCK_ASSIGN_OR_RETURN(long double v, ParseNumber(q));
  return CeilToInt(v);
}

}  // namespace kmock::controllers
