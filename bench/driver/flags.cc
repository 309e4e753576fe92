#include "driver/flags.h"

#include <cstdlib>

namespace kmock::bench {

bool Flags::Parse(const std::vector<std::string>& args, Flags* out,
                  std::string* error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      out->trailing_.assign(args.begin() + i + 1, args.end());
      return true;
    }
    if (a.rfind("--", 0) != 0 || a.size() == 2) {
      *error = "unexpected argument " + a;
      return false;
    }
    std::string name = a.substr(2);
    std::string value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      *error = "flag --" + name + " needs a value";
      return false;
    }
    out->values_[name].push_back(value);
  }
  return true;
}

bool Flags::Has(const std::string& name) const {
  return values_.count(name) > 0;
}

std::string Flags::Get(const std::string& name, const std::string& def) const {
  auto it = values_.find(name);
  return it == values_.end() ? def : it->second.back();
}

std::vector<std::string> Flags::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

double Flags::GetDouble(const std::string& name, double def,
                        std::string* error) const {
  if (!Has(name)) return def;
  const std::string v = Get(name);
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') {
    *error = "--" + name + ": not a number: " + v;
    return def;
  }
  return d;
}

int64_t Flags::GetInt(const std::string& name, int64_t def,
                      std::string* error) const {
  if (!Has(name)) return def;
  const std::string v = Get(name);
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') {
    *error = "--" + name + ": not an integer: " + v;
    return def;
  }
  return n;
}

std::vector<std::string> Flags::Unknown(
    const std::set<std::string>& allowed) const {
  std::vector<std::string> unknown;
  for (const auto& [name, unused] : values_) {
    if (!allowed.count(name)) unknown.push_back("--" + name);
  }
  return unknown;
}

}  // namespace kmock::bench
