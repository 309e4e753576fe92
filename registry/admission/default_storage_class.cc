#include "registry/admission/default_storage_class.h"

#include "common/json_view.h"
#include "registry/registry.h"

namespace kmock::registry {

using nlohmann::json;

namespace {

bool IsDefaultClass(const json& sc) {
  auto meta = sc.find("metadata");
  if (meta == sc.end() || !meta->is_object()) return false;
  auto ann = meta->find("annotations");
  if (ann == meta->end() || !ann->is_object()) return false;
  for (const char* key : {"storageclass.kubernetes.io/is-default-class",
                          "storageclass.beta.kubernetes.io/is-default-class"}) {
    auto it = ann->find(key);
    if (it != ann->end() && it->is_string() && *it == "true") return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> DefaultStorageClassName(
    const std::vector<json>& classes) {
  // The newest wins (RFC 3339 times compare as strings); between equals
  // the first name, so the choice never depends on list order.
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
  for (const json& sc : classes) {
    if (IsDefaultClass(sc) && (chosen == nullptr || preferred(sc, *chosen)))
      chosen = &sc;
  }
  if (chosen == nullptr) return std::nullopt;
  return StringAt(ObjectAt(*chosen, "metadata"), "name");
}

bool DefaultStorageClassAdmission::Handles(const api::ResourceInfo& res) const {
  return res.group.empty() && res.plural == "persistentvolumeclaims";
}

Status DefaultStorageClassAdmission::AdmitCreate(Registry& registry,
                                                 const AdmissionRequest&,
                                                 json& obj) const {
  json& spec = obj["spec"];
  if (!spec.is_object() || spec.contains("storageClassName")) {
    return Status::Ok();
  }
  const api::ResourceInfo* classes =
      registry.catalog().Find("storage.k8s.io", "v1", "storageclasses");
  if (classes == nullptr) return Status::Ok();
  auto list = registry.List(*classes, "", {});
  if (!list.ok()) return list.status();
  std::vector<json> items;
  for (const json& sc : (*list)["items"]) items.push_back(sc);
  if (auto name = DefaultStorageClassName(items)) {
    spec["storageClassName"] = *name;
  }
  return Status::Ok();
}

}  // namespace kmock::registry
