#include "registry/admission/default_storage_class.h"

#include "registry/admission/default_class.h"
#include "registry/registry.h"

namespace kmock::registry {

using nlohmann::json;

namespace {

constexpr std::initializer_list<const char*> kDefaultAnnotations = {
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class"};

}  // namespace

std::optional<std::string> DefaultStorageClassName(
    const std::vector<json>& classes) {
  return NewestDefaultClass(classes, kDefaultAnnotations);
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
  KMOCK_ASSIGN_OR_RETURN(
      std::optional<std::string> name,
      ServedDefaultClass(registry, "storage.k8s.io", "storageclasses",
                         kDefaultAnnotations));
  if (name) spec["storageClassName"] = *name;
  return Status::Ok();
}

}  // namespace kmock::registry
