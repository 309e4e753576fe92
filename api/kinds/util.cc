#include "api/kinds/util.h"

namespace kmock::api::kinds {

const json* Find(const json& obj, std::initializer_list<const char*> path) {
  const json* cur = &obj;
  for (const char* key : path) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::string Str(const json& obj, std::initializer_list<const char*> path) {
  const json* v = Find(obj, path);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

int64_t Int(const json& obj, std::initializer_list<const char*> path,
            int64_t def) {
  const json* v = Find(obj, path);
  return v && v->is_number() ? v->get<int64_t>() : def;
}

bool Bool(const json& obj, std::initializer_list<const char*> path) {
  const json* v = Find(obj, path);
  return v && v->is_boolean() && v->get<bool>();
}

const json& Array(const json& obj, std::initializer_list<const char*> path) {
  static const json kEmpty = json::array();
  const json* v = Find(obj, path);
  return v && v->is_array() ? *v : kEmpty;
}

std::string Since(const std::string& timestamp, TimePoint now) {
  TimePoint t;
  if (timestamp.empty() || !ParseRfc3339(timestamp, &t)) return "<unknown>";
  return HumanDuration(
      std::chrono::duration_cast<std::chrono::seconds>(now - t));
}

json& ObjectAt(json& obj, const char* key) {
  json& v = obj[key];
  if (!v.is_object()) v = json::object();
  return v;
}

std::string JoinStrings(const std::vector<std::string>& items,
                        const char* sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

std::vector<std::string> LoadBalancerAddresses(const json& obj) {
  std::vector<std::string> out;
  for (const json& in : Array(obj, {"status", "loadBalancer", "ingress"})) {
    std::string ip = Str(in, {"ip"});
    std::string hostname = Str(in, {"hostname"});
    if (!ip.empty()) {
      out.push_back(ip);
    } else if (!hostname.empty()) {
      out.push_back(hostname);
    }
  }
  return out;
}

}  // namespace kmock::api::kinds
