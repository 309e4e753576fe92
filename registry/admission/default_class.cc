#include "registry/admission/default_class.h"

#include "common/json_view.h"
#include "registry/registry.h"

namespace kmock::registry {

using nlohmann::json;

namespace {

bool MarkedDefault(const json& obj,
                   std::initializer_list<const char*> annotations) {
  const json& ann = ObjectAt(ObjectAt(obj, "metadata"), "annotations");
  for (const char* key : annotations) {
    if (StringAt(ann, key) == "true") return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> NewestDefaultClass(
    const std::vector<json>& classes,
    std::initializer_list<const char*> annotations) {
  // RFC 3339 times compare as strings.
  auto preferred = [](const json& a, const json& b) {
    const std::string ta =
        StringAt(ObjectAt(a, "metadata"), "creationTimestamp");
    const std::string tb =
        StringAt(ObjectAt(b, "metadata"), "creationTimestamp");
    if (ta != tb) return ta > tb;
    return StringAt(ObjectAt(a, "metadata"), "name") <
           StringAt(ObjectAt(b, "metadata"), "name");
  };
  const json* chosen = nullptr;
  for (const json& c : classes) {
    if (MarkedDefault(c, annotations) &&
        (chosen == nullptr || preferred(c, *chosen))) {
      chosen = &c;
    }
  }
  if (chosen == nullptr) return std::nullopt;
  return StringAt(ObjectAt(*chosen, "metadata"), "name");
}

Result<std::optional<std::string>> ServedDefaultClass(
    Registry& registry, const char* group, const char* plural,
    std::initializer_list<const char*> annotations) {
  const api::ResourceInfo* classes =
      registry.catalog().Find(group, "v1", plural);
  if (classes == nullptr) return std::optional<std::string>();
  auto list = registry.List(*classes, "", {});
  if (!list.ok()) return list.status();
  std::vector<json> items;
  for (const json& c : ArrayAt(*list, "items")) items.push_back(c);
  return NewestDefaultClass(items, annotations);
}

}  // namespace kmock::registry
