#include "common/json_view.h"

namespace kmock {

namespace {

using nlohmann::json;

const json* Member(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

}  // namespace

const json& ObjectAt(const json& obj, std::string_view key) {
  static const json* const kEmpty = new json(json::object());
  const json* m = Member(obj, key);
  return m != nullptr && m->is_object() ? *m : *kEmpty;
}

const json& ArrayAt(const json& obj, std::string_view key) {
  static const json* const kEmpty = new json(json::array());
  const json* m = Member(obj, key);
  return m != nullptr && m->is_array() ? *m : *kEmpty;
}

const json& ValueAt(const json& obj, std::string_view key) {
  static const json* const kNull = new json();
  const json* m = Member(obj, key);
  return m != nullptr ? *m : *kNull;
}

const std::string& StringAt(const json& obj, std::string_view key) {
  static const std::string* const kEmpty = new std::string();
  const json* m = Member(obj, key);
  return m != nullptr && m->is_string() ? m->get_ref<const std::string&>()
                                        : *kEmpty;
}

nlohmann::json CopyWithoutManagedFields(const nlohmann::json& obj) {
  if (!obj.is_object()) return obj;
  nlohmann::json out = nlohmann::json::object();
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (it.key() != "metadata" || !it->is_object()) {
      out.emplace(it.key(), *it);
      continue;
    }
    nlohmann::json meta = nlohmann::json::object();
    for (auto m = it->begin(); m != it->end(); ++m) {
      if (m.key() != "managedFields") meta.emplace(m.key(), *m);
    }
    out.emplace(it.key(), std::move(meta));
  }
  return out;
}

}  // namespace kmock
