#include "api/kinds/limit_range.h"

namespace kmock::api::kinds {

using nlohmann::json;

namespace {

// Copies each amount of `from` that `to` lacks.
void FillMissing(const json& item, const char* from, json& to) {
  auto source = item.find(from);
  if (source == item.end() || !source->is_object()) return;
  for (auto it = source->begin(); it != source->end(); ++it) {
    if (!to.contains(it.key())) to[it.key()] = it.value();
  }
}

}  // namespace

void DefaultLimitRange(json& obj) {
  auto spec = obj.find("spec");
  if (spec == obj.end() || !spec->is_object()) return;
  auto limits = spec->find("limits");
  if (limits == spec->end() || !limits->is_array()) return;
  for (json& item : *limits) {
    if (!item.is_object() || item.value("type", "") != "Container") continue;
    json defaults = item.value("default", json::object());
    json requests = item.value("defaultRequest", json::object());
    if (!defaults.is_object() || !requests.is_object()) continue;
    FillMissing(item, "max", defaults);
    item["default"] = defaults;
    json with_defaults = item;
    FillMissing(with_defaults, "default", requests);
    FillMissing(item, "min", requests);
    item["defaultRequest"] = requests;
    if (item["default"].empty()) item.erase("default");
    if (item["defaultRequest"].empty()) item.erase("defaultRequest");
  }
}

}  // namespace kmock::api::kinds
